/*
 * libvgpu-qtest: helpers shared by the vgpu qtests (see libvgpu-qtest.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libvgpu-qtest.h"

/* ------------------------------------------------------- Start/stop --- */

/*
 * A QEMU built from Debian's source has no firmware of its own: point it at
 * the seabios and qemu-system-data packages.
 */
const char *firmware_args(void)
{
    static const char *const dirs[] = { "/usr/share/seabios",
                                        "/usr/share/qemu" };
    static char args[256];
    int i;

    if (!args[0]) {
        for (i = 0; i < ARRAY_SIZE(dirs); i++) {
            if (g_file_test(dirs[i], G_FILE_TEST_IS_DIR)) {
                g_strlcat(args, " -L ", sizeof(args));
                g_strlcat(args, dirs[i], sizeof(args));
            }
        }
        g_strlcat(args, " ", sizeof(args));
    }
    return args;
}

void vgpu_attach(VGPUTest *t)
{
    t->bus = qpci_new_pc(t->qts, NULL);
    t->dev = qpci_device_find(t->bus, QPCI_DEVFN(4, 0));
    g_assert(t->dev);
    qpci_device_enable(t->dev);
    t->mmio = qpci_iomap(t->dev, VGPU_BAR_MMIO, &t->mmio_size);
    t->vram = qpci_iomap(t->dev, VGPU_BAR_VRAM, &t->vram_bar_size);
    t->pt_next[0] = VRAM_PT;
    t->pt_next[1] = SYS_PT;
}

void vgpu_test_launch(VGPUTest *t, const char *props,
                      const char *extra)
{
    memset(t, 0, sizeof(*t));
    t->qts = qtest_initf("%s-nodefaults -machine pc -m 256 "
                         "-device vgpu,addr=04.0%s%s %s",
                         firmware_args(), props && *props ? "," : "",
                         props ? props : "", extra ? extra : "");
}

void vgpu_test_start(VGPUTest *t, const char *props)
{
    vgpu_test_launch(t, props ? props : "vram_size=64M", NULL);
    vgpu_attach(t);
}

void vgpu_test_stop(VGPUTest *t)
{
    g_free(t->dev);
    qpci_free_pc(t->bus);
    qtest_quit(t->qts);
}

/* ------------------------------------------------------------ Migration --- */

/*
 * Save the VM behind @qts into @file and wait for the end: true once
 * query-migrate says "completed", false if it says "failed".  QEMU writes
 * the file itself, through a descriptor passed with getfd, so the file is
 * whole when "completed" is reported.  (To exec:cat QEMU reports it before
 * the clean-up that waits for cat: the file could still be short.)
 */
bool vgpu_migrate_to_file(QTestState *qts, const char *file)
{
    gint64 end = g_get_monotonic_time() + MIG_TIMEOUT_S * G_USEC_PER_SEC;
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    QDict *rsp;

    g_assert(fd >= 0);
    rsp = qtest_qmp_fds(qts, &fd, 1, "{ 'execute': 'getfd', 'arguments': "
                        "{ 'fdname': 'vgpu-migration' } }");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    close(fd);
    qtest_qmp_assert_success(qts, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': 'fd:vgpu-migration' } }");
    for (;;) {
        const char *status;
        bool completed, failed;

        rsp = qtest_qmp(qts, "{ 'execute': 'query-migrate' }");
        status = qdict_get_try_str(qdict_get_qdict(rsp, "return"), "status");
        completed = status && !strcmp(status, "completed");
        failed = status && !strcmp(status, "failed");
        qobject_unref(rsp);
        if (completed || failed) {
            return completed;
        }
        g_assert(g_get_monotonic_time() < end);
        g_usleep(10 * 1000);
    }
}

/*
 * Load @file into @qts, launched with "-incoming defer": the load starts
 * now, after qtest_init()'s handshake, which a destination that refuses
 * the stream and exits at once would otherwise break.  With @wait_answer
 * false the command is only sent, for a destination that may exit before
 * it answers (set its expected status first).
 */
void vgpu_migrate_from_file(QTestState *qts, const char *file,
                            bool wait_answer)
{
    g_autofree char *uri = g_strdup_printf("exec:cat %s", file);

    if (wait_answer) {
        qtest_qmp_assert_success(qts, "{ 'execute': 'migrate-incoming', "
                                 "'arguments': { 'uri': %s } }", uri);
    } else {
        qtest_qmp_send(qts, "{ 'execute': 'migrate-incoming', "
                       "'arguments': { 'uri': %s } }", uri);
    }
}

/* ------------------------------------------------------------ Registers --- */

uint32_t rd(VGPUTest *t, uint64_t reg)
{
    return qpci_io_readl(t->dev, t->mmio, reg);
}

void wr(VGPUTest *t, uint64_t reg, uint32_t val)
{
    qpci_io_writel(t->dev, t->mmio, reg, val);
}

uint64_t rd64(VGPUTest *t, uint64_t reg)
{
    uint64_t lo = rd(t, reg);

    return lo | (uint64_t)rd(t, reg + 4) << 32;
}

void wr64(VGPUTest *t, uint64_t reg, uint64_t val)
{
    wr(t, reg, val);
    wr(t, reg + 4, val >> 32);
}

uint64_t ctr(VGPUTest *t, int ctx, int i)
{
    return rd64(t, ctx < 0 ? VGPU_COUNTER_GLOBAL(i) : VGPU_COUNTER_CTX(ctx, i));
}

uint32_t qrd(VGPUTest *t, int q, uint64_t reg)
{
    return rd(t, VGPU_QUEUE_REG(q, reg));
}

void qwr(VGPUTest *t, int q, uint64_t reg, uint32_t val)
{
    wr(t, VGPU_QUEUE_REG(q, reg), val);
}

uint32_t q_state(VGPUTest *t, int q)
{
    return FIELD_GET(qrd(t, q, VGPU_QUEUE_STATUS), VGPU_QUEUE_STATUS_STATE);
}

uint32_t q_error(VGPUTest *t, int q)
{
    return FIELD_GET(qrd(t, q, VGPU_QUEUE_STATUS), VGPU_QUEUE_STATUS_ERROR);
}

/* --------------------------------------------------------------- Memory --- */

/* Where the CPU reaches @addr: VRAM through BAR2, from VISIBLE_BASE. */
uint64_t cpu_addr(VGPUTest *t, bool sys, uint64_t addr)
{
    if (sys) {
        return addr;
    }
    g_assert(addr >= t->visible_base &&
             addr - t->visible_base < t->vram_bar_size);
    return t->vram.addr + addr - t->visible_base;
}

void mem_write(VGPUTest *t, bool sys, uint64_t addr, const void *buf,
               size_t len)
{
    qtest_bufwrite(t->qts, cpu_addr(t, sys, addr), buf, len);
}

void mem_read(VGPUTest *t, bool sys, uint64_t addr, void *buf,
              size_t len)
{
    qtest_bufread(t->qts, cpu_addr(t, sys, addr), buf, len);
}

void mem_wq(VGPUTest *t, bool sys, uint64_t addr, uint64_t val)
{
    qtest_writeq(t->qts, cpu_addr(t, sys, addr), val);
}

uint64_t mem_rq(VGPUTest *t, bool sys, uint64_t addr)
{
    return qtest_readq(t->qts, cpu_addr(t, sys, addr));
}

void mem_fill(VGPUTest *t, bool sys, uint64_t addr, uint8_t byte,
              size_t len)
{
    g_autofree uint8_t *buf = g_malloc(len);

    memset(buf, byte, len);
    mem_write(t, sys, addr, buf, len);
}

void mem_pattern(uint8_t *buf, size_t len, uint32_t seed)
{
    size_t i;

    for (i = 0; i < len; i++) {
        buf[i] = (uint8_t)((i * 131 + seed * 7 + (i >> 8)) ^ seed);
    }
}

/* --------------------------------------------------------- Page tables --- */

uint64_t desc(bool sys, uint64_t addr)
{
    return addr | VGPU_PTE_VALID | (sys ? VGPU_PTE_SYSTEM : 0);
}

uint64_t pt_alloc(VGPUTest *t, bool sys)
{
    uint64_t addr = t->pt_next[sys];

    t->pt_next[sys] += VGPU_PT_SIZE;
    mem_fill(t, sys, addr, 0, VGPU_PT_SIZE);
    return addr;
}

void ctx_init(VGPUTest *t, int ctx)
{
    t->root[ctx] = desc(t->pt_sys, pt_alloc(t, t->pt_sys));
    wr64(t, VGPU_CTX_REG(ctx, VGPU_CTX_ROOT_LO), t->root[ctx]);
}

int leaf_level(uint64_t page_size)
{
    switch (page_size) {
    case VGPU_PAGE_SIZE_1G:
        return 2;
    case VGPU_PAGE_SIZE_2M:
        return 1;
    default:
        return 0;
    }
}

/*
 * Address (and aperture) of the entry at @level for @va, creating the
 * directories above it.
 */
uint64_t pt_entry(VGPUTest *t, int ctx, uint64_t va, int level,
                  bool *sys)
{
    uint64_t d = t->root[ctx];
    int l;

    g_assert(d & VGPU_PTE_VALID);
    for (l = VGPU_PT_LEVELS - 1; l > level; l--) {
        bool tsys = d & VGPU_PTE_SYSTEM;
        uint64_t addr = (d & VGPU_PTE_ADDR_MASK) + VGPU_PT_INDEX(va, l) * 8;

        d = mem_rq(t, tsys, addr);
        if (!(d & VGPU_PTE_VALID)) {
            d = desc(t->pt_sys, pt_alloc(t, t->pt_sys));
            mem_wq(t, tsys, addr, d);
        }
    }
    *sys = d & VGPU_PTE_SYSTEM;
    return (d & VGPU_PTE_ADDR_MASK) + VGPU_PT_INDEX(va, level) * 8;
}

void pt_set(VGPUTest *t, int ctx, uint64_t va, int level, uint64_t e)
{
    bool sys;
    uint64_t addr = pt_entry(t, ctx, va, level, &sys);

    mem_wq(t, sys, addr, e);
}

uint64_t pt_get(VGPUTest *t, int ctx, uint64_t va, int level)
{
    bool sys;
    uint64_t addr = pt_entry(t, ctx, va, level, &sys);

    return mem_rq(t, sys, addr);
}

/* Map [va, va + size) to [pa, pa + size) with leaves of @page_size. */
void map(VGPUTest *t, int ctx, uint64_t va, uint64_t pa, uint64_t size,
         uint64_t flags, uint64_t page_size)
{
    int level = leaf_level(page_size);
    uint64_t off, i;

    for (off = 0; off < size; off += page_size) {
        if (page_size != VGPU_PAGE_SIZE_64K) {
            pt_set(t, ctx, va + off, level, (pa + off) | flags |
                   VGPU_PTE_VALID | (level ? VGPU_PTE_LEAF : 0));
            continue;
        }
        /* A fragment: 16 aligned 4 KiB PTEs, each marked FRAG64K. */
        for (i = 0; i < page_size; i += VGPU_PAGE_SIZE_4K) {
            pt_set(t, ctx, va + off + i, 0, (pa + off + i) | flags |
                   VGPU_PTE_VALID | VGPU_PTE_FRAG64K);
        }
    }
}

void map4k(VGPUTest *t, int ctx, uint64_t va, uint64_t pa,
           uint64_t flags)
{
    map(t, ctx, va, pa, VGPU_PAGE_SIZE_4K, flags, VGPU_PAGE_SIZE_4K);
}

/*
 * map(), faster for 4 KiB pages: whole level-0 tables written at once.
 * @va and @pa 2 MiB aligned, @size a multiple of 2 MiB.
 */
void map_bulk(VGPUTest *t, int ctx, uint64_t va, uint64_t pa, uint64_t size,
              uint64_t flags, uint64_t page_size)
{
    g_autofree uint64_t *pt = g_new0(uint64_t, VGPU_PT_ENTRIES);
    uint64_t off, i;

    if (page_size != VGPU_PAGE_SIZE_4K) {
        map(t, ctx, va, pa, size, flags, page_size);
        return;
    }
    for (off = 0; off < size; off += VGPU_PAGE_SIZE_2M) {
        uint64_t table = pt_alloc(t, t->pt_sys);

        for (i = 0; i < VGPU_PT_ENTRIES; i++) {
            pt[i] = (pa + off + i * VGPU_PAGE_SIZE_4K) | flags |
                    VGPU_PTE_VALID;
        }
        mem_write(t, t->pt_sys, table, pt, VGPU_PT_SIZE);
        pt_set(t, ctx, va + off, 1, desc(t->pt_sys, table));
    }
}

/* ------------------------------------------------------------- Queues --- */

void q_init(VGPUTest *t, int q, int ctx)
{
    bool sys = t->ring_sys;
    uint64_t addr = (sys ? SYS_RING : VRAM_RING) + q * RING_SLOT;

    t->ring_addr[q] = addr;
    t->ring_in_sys[q] = sys;
    t->tail[q] = 0;
    mem_fill(t, sys, addr, 0, RING_SIZE);
    wr64(t, VGPU_QUEUE_REG(q, VGPU_QUEUE_RING_LO), desc(sys, addr));
    qwr(t, q, VGPU_QUEUE_RING_SIZE, RING_SIZE);
    qwr(t, q, VGPU_QUEUE_CONTEXT, ctx);
    qwr(t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_ENABLE);
    g_assert_cmpuint(q_state(t, q), ==, VGPU_QUEUE_STATE_IDLE);
}

void q_emit(VGPUTest *t, int q, const uint32_t *dw, uint32_t n)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        uint64_t addr = t->ring_addr[q] + t->tail[q];

        qtest_writel(t->qts, cpu_addr(t, t->ring_in_sys[q], addr), dw[i]);
        t->tail[q] = (t->tail[q] + 4) % RING_SIZE;
    }
}

void q_submit(VGPUTest *t, int q)
{
    qwr(t, q, VGPU_QUEUE_TAIL, t->tail[q]);
    qwr(t, q, VGPU_QUEUE_DOORBELL, 1);
}

/* ---------------------------------------------------- Command encoders --- */

GArray *stream_new(void)
{
    return g_array_new(false, false, sizeof(uint32_t));
}

void st_dw(GArray *s, uint32_t dw)
{
    g_array_append_val(s, dw);
}

static void st_dws(GArray *s, const uint32_t *dw, uint32_t n)
{
    g_array_append_vals(s, dw, n);
}

void st_nop(GArray *s, uint32_t len)
{
    st_dw(s, VGPU_CMD_HEADER(VGPU_OP_NOP, 0, len));
    while (--len) {
        st_dw(s, 0);
    }
}

/* NOPs up to stream dword @at (at least one dword away). */
void st_pad_to(GArray *s, uint32_t at)
{
    g_assert_cmpuint(s->len, <, at);
    st_nop(s, at - s->len);
}

void st_copy(GArray *s, uint64_t src, uint64_t dst, uint64_t size)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_COPY, 0, VGPU_COPY_LEN),
                      LO(src), HI(src), LO(dst), HI(dst), LO(size), HI(size) };

    st_dws(s, dw, ARRAY_SIZE(dw));
}

void st_fill(GArray *s, uint64_t dst, uint64_t size, uint32_t value)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_FILL, 0, VGPU_FILL_LEN),
                      LO(dst), HI(dst), LO(size), HI(size), value };

    st_dws(s, dw, ARRAY_SIZE(dw));
}

void st_write(GArray *s, uint64_t dst, const uint32_t *data, uint32_t n)
{
    st_dw(s, VGPU_CMD_HEADER(VGPU_OP_WRITE, 0, 3 + n));
    st_dw(s, LO(dst));
    st_dw(s, HI(dst));
    st_dws(s, data, n);
}

void st_write1(GArray *s, uint64_t dst, uint32_t val)
{
    st_write(s, dst, &val, 1);
}

void st_fence(GArray *s, uint32_t flags, uint64_t dst, uint64_t seqno)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_FENCE, flags, VGPU_FENCE_LEN),
                      LO(dst), HI(dst), LO(seqno), HI(seqno) };

    st_dws(s, dw, ARRAY_SIZE(dw));
}

void st_wait(GArray *s, uint64_t addr, uint64_t value)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_WAIT, 0, VGPU_WAIT_LEN),
                      LO(addr), HI(addr), LO(value), HI(value) };

    st_dws(s, dw, ARRAY_SIZE(dw));
}

void st_timestamp(GArray *s, uint32_t flags, uint64_t dst)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_TIMESTAMP, flags,
                                      VGPU_TIMESTAMP_LEN),
                      LO(dst), HI(dst) };

    st_dws(s, dw, ARRAY_SIZE(dw));
}

void st_touch(GArray *s, unsigned pattern, unsigned access, uint64_t va,
              uint64_t size, uint32_t stride, uint32_t count, uint32_t seed,
              uint32_t repeat)
{
    st_touch_lanes(s, 0, pattern, access, va, size, stride, count, seed,
                   repeat);
}

/* TOUCH with its lanes field @lanes_field (0: the device's lanes). */
void st_touch_lanes(GArray *s, unsigned lanes_field, unsigned pattern,
                    unsigned access, uint64_t va, uint64_t size,
                    uint32_t stride, uint32_t count, uint32_t seed,
                    uint32_t repeat)
{
    uint32_t flags = (pattern << VGPU_TOUCH_FLAG_PATTERN_SHIFT) |
                     (access << VGPU_TOUCH_FLAG_ACCESS_SHIFT) |
                     (lanes_field << VGPU_TOUCH_FLAG_LANES_SHIFT);
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_TOUCH, flags, VGPU_TOUCH_LEN),
                      LO(va), HI(va), LO(size), HI(size), stride, count,
                      seed, repeat };

    st_dws(s, dw, ARRAY_SIZE(dw));
}

void st_checksum(GArray *s, uint64_t src, uint64_t size, uint64_t dst)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_CHECKSUM, 0, VGPU_CHECKSUM_LEN),
                      LO(src), HI(src), LO(size), HI(size), LO(dst),
                      HI(dst) };

    st_dws(s, dw, ARRAY_SIZE(dw));
}

/* GATHER or SCATTER (@op); @flags carry the element shift and NODST. */
void st_gather(GArray *s, uint32_t op, uint32_t flags, uint64_t index,
               uint64_t base, uint32_t count, uint32_t bound,
               uint64_t packed)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(op, flags, VGPU_GATHER_LEN),
                      LO(index), HI(index), LO(base), HI(base), count,
                      bound, LO(packed), HI(packed) };

    st_dws(s, dw, ARRAY_SIZE(dw));
}

void st_tile(GArray *s, uint32_t flags, uint64_t va, uint32_t pitch,
             uint32_t width, uint32_t height, uint32_t across,
             uint32_t down, uint32_t repeat)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_TILE, flags, VGPU_TILE_LEN),
                      LO(va), HI(va), pitch, width, height, across, down,
                      repeat };

    st_dws(s, dw, ARRAY_SIZE(dw));
}

void st_compute(GArray *s, uint32_t flags, uint32_t len, uint32_t ns)
{
    uint32_t i;

    st_dw(s, VGPU_CMD_HEADER(VGPU_OP_COMPUTE, flags, len));
    st_dw(s, ns);
    for (i = 2; i < len; i++) {
        st_dw(s, 0);
    }
}

void st_call(GArray *s, uint64_t va, uint32_t ndw)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_CALL, 0, VGPU_CALL_LEN),
                      LO(va), HI(va), ndw };

    st_dws(s, dw, ARRAY_SIZE(dw));
}

/* ------------------------------------------------- Commands in a ring --- */

void q_emit_stream(VGPUTest *t, int q, const GArray *s)
{
    q_emit(t, q, (const uint32_t *)s->data, s->len);
}

/* Encode one command with @enc (into s_) and emit it into @q's ring. */
#define RING_CMD(t, q, enc)                                                 \
    do {                                                                    \
        g_autoptr(GArray) s_ = stream_new();                                \
        enc;                                                                \
        q_emit_stream(t, q, s_);                                            \
    } while (0)

void cmd_compute(VGPUTest *t, int q, uint32_t ns)
{
    RING_CMD(t, q, st_compute(s_, 0, VGPU_COMPUTE_LEN, ns));
}

void cmd_nop(VGPUTest *t, int q, uint32_t len)
{
    RING_CMD(t, q, st_nop(s_, len));
}

void cmd_copy(VGPUTest *t, int q, uint64_t src, uint64_t dst,
              uint64_t size)
{
    RING_CMD(t, q, st_copy(s_, src, dst, size));
}

void cmd_fill(VGPUTest *t, int q, uint64_t dst, uint64_t size,
              uint32_t value)
{
    RING_CMD(t, q, st_fill(s_, dst, size, value));
}

void cmd_write(VGPUTest *t, int q, uint64_t dst, const uint32_t *data,
               uint32_t n)
{
    RING_CMD(t, q, st_write(s_, dst, data, n));
}

void cmd_fence(VGPUTest *t, int q, uint64_t dst, uint64_t seqno,
               bool irq)
{
    RING_CMD(t, q, st_fence(s_, irq ? VGPU_FENCE_FLAG_IRQ : 0, dst, seqno));
}

void cmd_wait(VGPUTest *t, int q, uint64_t addr, uint64_t value)
{
    RING_CMD(t, q, st_wait(s_, addr, value));
}

void cmd_timestamp(VGPUTest *t, int q, uint32_t flags, uint64_t dst)
{
    RING_CMD(t, q, st_timestamp(s_, flags, dst));
}

void cmd_touch(VGPUTest *t, int q, unsigned pattern, unsigned access,
               uint64_t va, uint64_t size, uint32_t stride,
               uint32_t count, uint32_t seed, uint32_t repeat)
{
    RING_CMD(t, q, st_touch(s_, pattern, access, va, size, stride, count,
                            seed, repeat));
}

void cmd_touch_lanes(VGPUTest *t, int q, unsigned lanes_field,
                     unsigned pattern, unsigned access, uint64_t va,
                     uint64_t size, uint32_t stride, uint32_t count,
                     uint32_t seed, uint32_t repeat)
{
    RING_CMD(t, q, st_touch_lanes(s_, lanes_field, pattern, access, va, size,
                                  stride, count, seed, repeat));
}

void cmd_checksum(VGPUTest *t, int q, uint64_t src, uint64_t size,
                  uint64_t dst)
{
    RING_CMD(t, q, st_checksum(s_, src, size, dst));
}

void cmd_gather(VGPUTest *t, int q, uint32_t op, uint32_t flags,
                uint64_t index, uint64_t base, uint32_t count,
                uint32_t bound, uint64_t packed)
{
    RING_CMD(t, q, st_gather(s_, op, flags, index, base, count, bound,
                             packed));
}

void cmd_tile(VGPUTest *t, int q, uint32_t flags, uint64_t va,
              uint32_t pitch, uint32_t width, uint32_t height,
              uint32_t across, uint32_t down, uint32_t repeat)
{
    RING_CMD(t, q, st_tile(s_, flags, va, pitch, width, height, across,
                           down, repeat));
}

void cmd_call(VGPUTest *t, int q, uint64_t va, uint32_t ndw)
{
    RING_CMD(t, q, st_call(s_, va, ndw));
}

bool wait_for(VGPUTest *t, WaitCond cond, int q, uint64_t arg)
{
    return wait_for_ms(t, cond, q, arg, WAIT_TIMEOUT_US / 1000);
}

/* wait_for() for at most @ms milliseconds. */
bool wait_for_ms(VGPUTest *t, WaitCond cond, int q, uint64_t arg,
                 unsigned ms)
{
    gint64 end = g_get_monotonic_time() + ms * 1000ll;

    while (!cond(t, q, arg)) {
        if (g_get_monotonic_time() > end) {
            return false;
        }
        g_usleep(20);
    }
    return true;
}

bool cond_state(VGPUTest *t, int q, uint64_t state)
{
    return q_state(t, q) == state;
}

bool cond_done(VGPUTest *t, int q, uint64_t unused)
{
    return q_state(t, q) == VGPU_QUEUE_STATE_IDLE &&
           qrd(t, q, VGPU_QUEUE_HEAD) == t->tail[q];
}

bool cond_inval_done(VGPUTest *t, int q, uint64_t unused)
{
    return rd(t, VGPU_REG_INVAL_DONE_SEQNO) == rd(t, VGPU_REG_INVAL_REQ_SEQNO);
}

bool cond_mem_sys(VGPUTest *t, int q, uint64_t addr)
{
    return qtest_readl(t->qts, addr) != 0;
}

void q_wait_state(VGPUTest *t, int q, uint32_t state)
{
    if (!wait_for(t, cond_state, q, state)) {
        g_error("queue %d: state %u, expected %u (status 0x%x)", q,
                q_state(t, q), state, qrd(t, q, VGPU_QUEUE_STATUS));
    }
}

/* Wait until queue @q ran everything submitted. */
void q_wait_done(VGPUTest *t, int q)
{
    if (!wait_for(t, cond_done, q, 0)) {
        g_error("queue %d not done: status 0x%x head 0x%x tail 0x%x "
                "fault va 0x%" PRIx64 " info 0x%x", q,
                qrd(t, q, VGPU_QUEUE_STATUS), qrd(t, q, VGPU_QUEUE_HEAD),
                t->tail[q], rd64(t, VGPU_QUEUE_REG(q, VGPU_QUEUE_FAULT_VA_LO)),
                qrd(t, q, VGPU_QUEUE_FAULT_INFO));
    }
}

void inval(VGPUTest *t, unsigned op, int ctx, uint64_t va,
           uint64_t size)
{
    uint32_t req = rd(t, VGPU_REG_INVAL_REQ_SEQNO);

    wr64(t, VGPU_REG_INVAL_VA_LO, va);
    wr64(t, VGPU_REG_INVAL_SIZE_LO, size);
    wr(t, VGPU_REG_INVAL_CMD, (op << VGPU_INVAL_CMD_OP_SHIFT) |
                              (ctx << VGPU_INVAL_CMD_CTX_SHIFT));
    g_assert_cmpuint(rd(t, VGPU_REG_INVAL_REQ_SEQNO), ==, req + 1);
    g_assert(wait_for(t, cond_inval_done, 0, 0));
    g_assert(rd(t, VGPU_REG_INT_STATUS) & VGPU_INT_INVAL_DONE);
    wr(t, VGPU_REG_INT_STATUS, VGPU_INT_INVAL_DONE);
}

void fault_buf_init(VGPUTest *t, uint32_t entries)
{
    mem_fill(t, false, VRAM_FAULT_BUF, 0, entries * VGPU_FAULT_RECORD_SIZE);
    wr64(t, VGPU_REG_FAULT_BUF_LO, desc(false, VRAM_FAULT_BUF));
    wr(t, VGPU_REG_FAULT_BUF_ENTRIES, entries);
    g_assert_cmphex(rd(t, VGPU_REG_STATUS) & VGPU_STATUS_FAULT_BUF_ERROR, ==,
                    0);
}

FaultRec fault_rec(VGPUTest *t, uint32_t idx)
{
    uint32_t dw[VGPU_FAULT_RECORD_SIZE / 4];
    FaultRec r;

    mem_read(t, false, VRAM_FAULT_BUF + idx * VGPU_FAULT_RECORD_SIZE, dw,
             sizeof(dw));
    r.va = dw[VGPU_FAULT_DW_VA_LO] | (uint64_t)dw[VGPU_FAULT_DW_VA_HI] << 32;
    r.info = dw[VGPU_FAULT_DW_INFO];
    r.flags = dw[VGPU_FAULT_DW_FLAGS];
    return r;
}

uint32_t fault_info(int q, int ctx, unsigned access, unsigned reason,
                    unsigned level)
{
    return (q << VGPU_FAULT_INFO_QUEUE_SHIFT) |
           (ctx << VGPU_FAULT_INFO_CTX_SHIFT) |
           (access << VGPU_FAULT_INFO_ACCESS_SHIFT) |
           (reason << VGPU_FAULT_INFO_REASON_SHIFT) |
           (level << VGPU_FAULT_INFO_LEVEL_SHIFT);
}

void basic_setup(VGPUTest *t)
{
    ctx_init(t, CTX);
    map(t, CTX, SCRATCH_VA, SCRATCH_PA, 64 * KiB, PTE_RW, VGPU_PAGE_SIZE_4K);
    mem_fill(t, false, SCRATCH_PA, 0, 64 * KiB);
    fault_buf_init(t, 64);
    q_init(t, 0, CTX);
}

uint64_t fnv1a64(const uint8_t *p, size_t len)
{
    uint64_t h = VGPU_FNV64_OFFSET;
    size_t i;

    for (i = 0; i < len; i++) {
        h = (h ^ p[i]) * VGPU_FNV64_PRIME;
    }
    return h;
}

void cmd_setup(VGPUTest *t)
{
    basic_setup(t);
    map(t, CTX, CMD_VA, CMD_PA, CMD_SIZE, PTE_RW, VGPU_PAGE_SIZE_4K);
}

void msix_setup(VGPUTest *t)
{
    int v;

    qpci_msix_enable(t->dev);
    for (v = 0; v < VGPU_MSIX_NR_VECTORS; v++) {
        uint64_t off = t->dev->msix_table_off + v * PCI_MSIX_ENTRY_SIZE;

        qtest_writel(t->qts, MSI_ADDR(v), 0);
        qpci_io_writel(t->dev, t->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_LOWER_ADDR, MSI_ADDR(v));
        qpci_io_writel(t->dev, t->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_UPPER_ADDR, 0);
        qpci_io_writel(t->dev, t->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_DATA, MSI_DATA(v));
        qpci_io_writel(t->dev, t->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    }
}

uint32_t msi_take(VGPUTest *t, int v)
{
    uint32_t val = qtest_readl(t->qts, MSI_ADDR(v));

    qtest_writel(t->qts, MSI_ADDR(v), 0);
    return val;
}
