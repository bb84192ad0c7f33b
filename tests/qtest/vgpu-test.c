/*
 * QTest testcases for the vgpu device.
 *
 * Everything goes through the device's registers, its VRAM BAR and guest
 * memory, as a driver would: page tables and rings are written into VRAM or
 * system memory, commands are submitted through doorbells, results are read
 * back from memory, fault records, status registers and counters.
 *
 * One binary, tests/qtest/vgpu-test, built from this file (main), the
 * helper library libvgpu-qtest.c/.h (device start, BARs, page-table
 * builders, rings and commands, fault records) and one file per topic:
 *
 *   vgpu-test-regs.c     identification, properties, registers, MSI-X,
 *                        access counters, small BAR, reset
 *   vgpu-test-mmu.c      translation, permissions, TLB, A/D bits
 *   vgpu-test-fault.c    fault records, REPLAY, CANCEL, overflow
 *   vgpu-test-engine.c   scheduling, WAIT, bad commands, the commands
 *   vgpu-test-call.c     indirect streams (CALL), privilege levels,
 *                        FENCE NOWRITE
 *   vgpu-test-kernels.c  GATHER, SCATTER, TILE
 *   vgpu-test-migration.c  save/load, crafted streams refused, live
 *                        migration while the engine writes VRAM
 *   vgpu-test-system.c   worked examples, benchmark
 *
 * With VGPU_BENCH=1 in the environment the binary also registers
 * /vgpu/bench/copy, the COPY benchmark (see tools/bench-device/).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libvgpu-qtest.h"

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    vgpu_test_add_regs();
    vgpu_test_add_cost();
    vgpu_test_add_mmu();
    vgpu_test_add_fault();
    vgpu_test_add_engine();
    vgpu_test_add_call();
    vgpu_test_add_kernels();
    vgpu_test_add_system();
    vgpu_test_add_migration();
    return g_test_run();
}
