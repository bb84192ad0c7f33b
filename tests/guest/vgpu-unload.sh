#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Work the driver (BOs in every placement, eviction, binds, GPU jobs,
# faults), close everything, then unload vgpu.ko: the VRAM allocator and
# the page-table pool must report everything returned, and the kernel log
# must stay clean.  Prints TAP.

. "$(dirname "$0")/lib/tap.sh"

echo "TAP version 13"
echo "1..5"
dmesg -c >/dev/null 2>&1
t "unload.workload" "vgpu_exec_test -r exec.vram.integrity_across_eviction -r exec.vram.fault_on_unmapped_bans_vm_only -r exec.system.copy_and_checksum >/dev/null 2>&1 && vgpu_vm_test -r vm.stress_1000_bind_unbind >/dev/null 2>&1"
t "unload.rmmod" "rmmod vgpu && ! grep -q '^vgpu ' /proc/modules"
t "unload.vram_returned" "dmesg | grep -q 'VRAM manager: all VRAM returned'"
t "unload.no_leak_reported" "! dmesg | grep -E -q 'leaked|cannot evict'"
t "unload.reload_works" "modprobe vgpu && sleep 0.5 && vgpu_param_test >/dev/null 2>&1"
exit 0
