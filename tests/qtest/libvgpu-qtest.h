/*
 * libvgpu-qtest: what every vgpu qtest needs: start QEMU with the device,
 * map its BARs, build page tables in VRAM or system memory, set up rings
 * and emit commands, wait for queues, read fault records.
 *
 * Memory layout used by the tests (vram_size 64 MiB unless a test says
 * otherwise; guest RAM 256 MiB):
 *
 *   VRAM  0 .. 32M   data            system  64M .. 72M   page tables
 *         32M .. 40M page tables             72M .. 76M   rings
 *         40M .. 44M rings                   76M .. 80M   MSI-X targets
 *         44M .. 48M fault buffer            128M .. 256M data
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef LIBVGPU_QTEST_H
#define LIBVGPU_QTEST_H

#include "qemu/units.h"
#include "libqtest.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"
#include "qapi/qmp/qdict.h"
#include "qemu/bswap.h"
#include "qemu/madvise.h"
#include "qemu/memalign.h"
#include "hw/vgpu/vgpu_hw.h"

#define FIELD_GET(val, f)   (((val) & f##_MASK) >> f##_SHIFT)

#define VRAM_DATA           0
#define VRAM_PT             (32 * MiB)
#define VRAM_RING           (40 * MiB)
#define VRAM_FAULT_BUF      (44 * MiB)
#define SYS_PT              (64 * MiB)
#define SYS_RING            (72 * MiB)
#define SYS_MSI             (76 * MiB)
#define SYS_DATA            (128 * MiB)
#define RING_SIZE           (16 * KiB)
#define RING_SLOT           (64 * KiB)

#define PTE_RW              (VGPU_PTE_READ | VGPU_PTE_WRITE)
#define PTE_RWX             (PTE_RW | VGPU_PTE_EXEC)

#define WAIT_TIMEOUT_US     (10 * 1000 * 1000)

typedef struct VGPUTest {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar mmio;
    QPCIBar vram;
    uint64_t mmio_size;
    uint64_t vram_bar_size;
    uint64_t visible_base;              /* VRAM offset BAR2 starts at */
    bool pt_sys;                        /* new page tables in system memory */
    bool ring_sys;                      /* new rings in system memory */
    uint64_t pt_next[2];                /* [0] VRAM, [1] system */
    uint64_t root[VGPU_NUM_CONTEXTS];   /* root descriptors set up */
    uint64_t ring_addr[VGPU_NUM_QUEUES];
    bool ring_in_sys[VGPU_NUM_QUEUES];
    uint32_t tail[VGPU_NUM_QUEUES];
} VGPUTest;

/* ------------------------------------------------------- Start/stop --- */

/*
 * A QEMU built from Debian's source has no firmware of its own: point it at
 * the seabios and qemu-system-data packages.
 */
const char *firmware_args(void);
void vgpu_attach(VGPUTest *t);
void vgpu_test_launch(VGPUTest *t, const char *props,
                      const char *extra);
/*
 * Properties for a test of one access stream's exact order and resume
 * point: an access kernel runs as one lane, as hardware.rst defines it.
 */
#define VGPU_ONE_LANE "vram_size=64M,lanes=1"

void vgpu_test_start(VGPUTest *t, const char *props);
void vgpu_test_stop(VGPUTest *t);

/* ------------------------------------------------------------ Migration --- */

#define MIG_TIMEOUT_S       60

bool vgpu_migrate_to_file(QTestState *qts, const char *file);
void vgpu_migrate_from_file(QTestState *qts, const char *file,
                            bool wait_answer);

/* ------------------------------------------------------------ Registers --- */

uint32_t rd(VGPUTest *t, uint64_t reg);
void wr(VGPUTest *t, uint64_t reg, uint32_t val);
uint64_t rd64(VGPUTest *t, uint64_t reg);
void wr64(VGPUTest *t, uint64_t reg, uint64_t val);
uint64_t ctr(VGPUTest *t, int ctx, int i);
uint32_t qrd(VGPUTest *t, int q, uint64_t reg);
void qwr(VGPUTest *t, int q, uint64_t reg, uint32_t val);
uint32_t q_state(VGPUTest *t, int q);
uint32_t q_error(VGPUTest *t, int q);

/* --------------------------------------------------------------- Memory --- */

/* Where the CPU reaches @addr: VRAM through BAR2, from VISIBLE_BASE. */
uint64_t cpu_addr(VGPUTest *t, bool sys, uint64_t addr);
void mem_write(VGPUTest *t, bool sys, uint64_t addr, const void *buf,
               size_t len);
void mem_read(VGPUTest *t, bool sys, uint64_t addr, void *buf,
              size_t len);
void mem_wq(VGPUTest *t, bool sys, uint64_t addr, uint64_t val);
uint64_t mem_rq(VGPUTest *t, bool sys, uint64_t addr);
void mem_fill(VGPUTest *t, bool sys, uint64_t addr, uint8_t byte,
              size_t len);
void mem_pattern(uint8_t *buf, size_t len, uint32_t seed);

/* --------------------------------------------------------- Page tables --- */

uint64_t desc(bool sys, uint64_t addr);
uint64_t pt_alloc(VGPUTest *t, bool sys);
void ctx_init(VGPUTest *t, int ctx);
int leaf_level(uint64_t page_size);

/*
 * Address (and aperture) of the entry at @level for @va, creating the
 * directories above it.
 */
uint64_t pt_entry(VGPUTest *t, int ctx, uint64_t va, int level,
                  bool *sys);
void pt_set(VGPUTest *t, int ctx, uint64_t va, int level, uint64_t e);
uint64_t pt_get(VGPUTest *t, int ctx, uint64_t va, int level);

/* Map [va, va + size) to [pa, pa + size) with leaves of @page_size. */
void map(VGPUTest *t, int ctx, uint64_t va, uint64_t pa, uint64_t size,
         uint64_t flags, uint64_t page_size);
void map4k(VGPUTest *t, int ctx, uint64_t va, uint64_t pa,
           uint64_t flags);
void map_bulk(VGPUTest *t, int ctx, uint64_t va, uint64_t pa, uint64_t size,
              uint64_t flags, uint64_t page_size);

/* ------------------------------------------------------------- Queues --- */

void q_init(VGPUTest *t, int q, int ctx);
void q_emit(VGPUTest *t, int q, const uint32_t *dw, uint32_t n);
void q_submit(VGPUTest *t, int q);

#define LO(x) ((uint32_t)(x))
#define HI(x) ((uint32_t)((uint64_t)(x) >> 32))

/*
 * Command encoders: each appends one command to a stream of dwords (a
 * GArray of uint32_t from stream_new()), for a CALL's stream in memory or,
 * through the cmd_*() wrappers below, for a queue's ring.
 */
GArray *stream_new(void);
void st_dw(GArray *s, uint32_t dw);
void st_nop(GArray *s, uint32_t len);
void st_pad_to(GArray *s, uint32_t at);
void st_copy(GArray *s, uint64_t src, uint64_t dst, uint64_t size);
void st_fill(GArray *s, uint64_t dst, uint64_t size, uint32_t value);
void st_write(GArray *s, uint64_t dst, const uint32_t *data, uint32_t n);
void st_write1(GArray *s, uint64_t dst, uint32_t val);
void st_fence(GArray *s, uint32_t flags, uint64_t dst, uint64_t seqno);
void st_wait(GArray *s, uint64_t addr, uint64_t value);
void st_timestamp(GArray *s, uint32_t flags, uint64_t dst);
/* COMPUTE of @ns; @len and @flags as given (VGPU_COMPUTE_LEN, 0: valid). */
void st_compute(GArray *s, uint32_t flags, uint32_t len, uint32_t ns);
void st_touch(GArray *s, unsigned pattern, unsigned access, uint64_t va,
              uint64_t size, uint32_t stride, uint32_t count, uint32_t seed,
              uint32_t repeat);
void st_touch_lanes(GArray *s, unsigned lanes_field, unsigned pattern,
                    unsigned access, uint64_t va, uint64_t size,
                    uint32_t stride, uint32_t count, uint32_t seed,
                    uint32_t repeat);
void st_checksum(GArray *s, uint64_t src, uint64_t size, uint64_t dst);
void st_gather(GArray *s, uint32_t op, uint32_t flags, uint64_t index,
               uint64_t base, uint32_t count, uint32_t bound,
               uint64_t packed);
void st_tile(GArray *s, uint32_t flags, uint64_t va, uint32_t pitch,
             uint32_t width, uint32_t height, uint32_t across,
             uint32_t down, uint32_t repeat);
void st_call(GArray *s, uint64_t va, uint32_t ndw);

/* The same commands, emitted at queue @q's tail (q_submit() runs them). */
void q_emit_stream(VGPUTest *t, int q, const GArray *s);
void cmd_nop(VGPUTest *t, int q, uint32_t len);
void cmd_copy(VGPUTest *t, int q, uint64_t src, uint64_t dst,
              uint64_t size);
void cmd_fill(VGPUTest *t, int q, uint64_t dst, uint64_t size,
              uint32_t value);
void cmd_write(VGPUTest *t, int q, uint64_t dst, const uint32_t *data,
               uint32_t n);
void cmd_fence(VGPUTest *t, int q, uint64_t dst, uint64_t seqno,
               bool irq);
void cmd_wait(VGPUTest *t, int q, uint64_t addr, uint64_t value);
void cmd_timestamp(VGPUTest *t, int q, uint32_t flags, uint64_t dst);
void cmd_compute(VGPUTest *t, int q, uint32_t ns);
void cmd_touch(VGPUTest *t, int q, unsigned pattern, unsigned access,
               uint64_t va, uint64_t size, uint32_t stride,
               uint32_t count, uint32_t seed, uint32_t repeat);
void cmd_touch_lanes(VGPUTest *t, int q, unsigned lanes_field,
                     unsigned pattern, unsigned access, uint64_t va,
                     uint64_t size, uint32_t stride, uint32_t count,
                     uint32_t seed, uint32_t repeat);
void cmd_checksum(VGPUTest *t, int q, uint64_t src, uint64_t size,
                  uint64_t dst);
void cmd_gather(VGPUTest *t, int q, uint32_t op, uint32_t flags,
                uint64_t index, uint64_t base, uint32_t count,
                uint32_t bound, uint64_t packed);
void cmd_tile(VGPUTest *t, int q, uint32_t flags, uint64_t va,
              uint32_t pitch, uint32_t width, uint32_t height,
              uint32_t across, uint32_t down, uint32_t repeat);
void cmd_call(VGPUTest *t, int q, uint64_t va, uint32_t ndw);

typedef bool (*WaitCond)(VGPUTest *t, int q, uint64_t arg);
bool wait_for(VGPUTest *t, WaitCond cond, int q, uint64_t arg);
bool wait_for_ms(VGPUTest *t, WaitCond cond, int q, uint64_t arg,
                 unsigned ms);
bool cond_state(VGPUTest *t, int q, uint64_t state);
bool cond_done(VGPUTest *t, int q, uint64_t unused);
bool cond_inval_done(VGPUTest *t, int q, uint64_t unused);
bool cond_mem_sys(VGPUTest *t, int q, uint64_t addr);
void q_wait_state(VGPUTest *t, int q, uint32_t state);

/* Wait until queue @q ran everything submitted. */
void q_wait_done(VGPUTest *t, int q);
void inval(VGPUTest *t, unsigned op, int ctx, uint64_t va,
           uint64_t size);

/* ------------------------------------------------------- Fault buffer --- */

typedef struct FaultRec {
    uint64_t va;
    uint32_t info;
    uint32_t flags;
} FaultRec;

void fault_buf_init(VGPUTest *t, uint32_t entries);
FaultRec fault_rec(VGPUTest *t, uint32_t idx);
uint32_t fault_info(int q, int ctx, unsigned access, unsigned reason,
                    unsigned level);

/* -------------------------------------------------- Common setting up --- */

/* Context 1, queue 0, a fault buffer, a 4 KiB scratch page at SCRATCH_VA. */
#define CTX                 1
#define SCRATCH_VA          0x7f0000000ull
#define SCRATCH_PA          (31 * MiB)

void basic_setup(VGPUTest *t);

/* ------------------------------------- Addresses shared by topics --- */

/* A page whose translation the TLB tests change under the device. */
#define STALE_VA            0x600000000ull
#define STALE_PA_A          (7 * MiB)
#define STALE_PA_B          (8 * MiB)

/* Never mapped unless a test maps it: faults on first use. */
#define FAULT_VA            0x300000000ull      /* level-2 table absent */
#define FAULT_PA            (6 * MiB)

/* 2 MiB mapped read-write by cmd_setup(), for the command tests. */
#define CMD_VA              0x900000000ull
#define CMD_PA              (12 * MiB)
#define CMD_SIZE            (2 * MiB)

uint64_t fnv1a64(const uint8_t *p, size_t len);
void cmd_setup(VGPUTest *t);

/* MSI-X messages land in system memory, where the tests poll them. */
#define MSI_ADDR(v)         (SYS_MSI + (v) * 0x100)
#define MSI_DATA(v)         (0x4000 + (v))

void msix_setup(VGPUTest *t);
uint32_t msi_take(VGPUTest *t, int v);

/* Register a table of cases as /vgpu/<prefix>/<case name>. */
#define ADD_TABLE(prefix, cases, fn)                                        \
    do {                                                                    \
        int i_;                                                             \
        for (i_ = 0; i_ < ARRAY_SIZE(cases); i_++) {                        \
            g_autofree char *path_ =                                        \
                g_strdup_printf("/vgpu/" prefix "/%s", (cases)[i_].name);   \
            qtest_add_data_func(path_, &(cases)[i_], fn);                   \
        }                                                                   \
    } while (0)

/* The topic files: each registers its tests. */
void vgpu_test_add_regs(void);
void vgpu_test_add_cost(void);
void vgpu_test_add_mmu(void);
void vgpu_test_add_fault(void);
void vgpu_test_add_engine(void);
void vgpu_test_add_call(void);
void vgpu_test_add_kernels(void);
void vgpu_test_add_system(void);
void vgpu_test_add_migration(void);

#endif /* LIBVGPU_QTEST_H */
