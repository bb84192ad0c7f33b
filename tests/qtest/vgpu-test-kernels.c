/*
 * vgpu qtests: the data-dependent and tiled access kernels GATHER,
 * SCATTER and TILE (vgpu-kernels.c, hardware.rst "Access kernels").
 *
 * Results are checked in memory against a model computed here, and the
 * device counters against the accesses the model makes; faults stop at
 * the right VA with the accesses before them done and none after, and
 * REPLAY finishes the command; an index out of bound is an INDEX error;
 * bad encodings are refused before anything runs; the kernels run in an
 * unprivileged (CALL) stream.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "libvgpu-qtest.h"

/* Inside the 2 MiB at CMD_VA (cmd_setup()): indices, elements, packed. */
#define K_INDEX             0x0ull
#define K_BASE              0x40000ull
#define K_PACKED            0x100000ull
#define K_BASE_SIZE         (256 * KiB)
#define K_PACKED_SIZE       (1 * MiB)

/* GATHER/SCATTER flags for elements of 1 << @shift bytes. */
#define GF(shift)           ((shift) << VGPU_GATHER_FLAG_ELEM_SHIFT_SHIFT)

static void fill_indices(uint32_t *idx, uint32_t count, uint32_t bound,
                         uint32_t seed)
{
    g_autoptr(GRand) r = g_rand_new_with_seed(seed);
    uint32_t i;

    for (i = 0; i < count; i++) {
        idx[i] = g_rand_int_range(r, 0, bound);
    }
}

static void store_indices(VGPUTest *t, uint64_t pa, const uint32_t *idx,
                          uint32_t count)
{
    g_autofree uint32_t *le = g_new(uint32_t, count);
    uint32_t i;

    for (i = 0; i < count; i++) {
        le[i] = cpu_to_le32(idx[i]);
    }
    mem_write(t, false, pa, le, count * 4);
}

/* --------------------------------------------------------- GATHER --- */

typedef struct GatherCase {
    const char *name;
    unsigned shift;         /* log2 of the element size */
    uint32_t count, bound;
    bool nodst;
} GatherCase;

static const GatherCase gather_cases[] = {
    { "4-byte", 2, 4096, 65536, false },
    { "64-byte", 6, 2000, 4096, false },
    { "4KiB", 12, 200, 64, false },
    { "64-byte-nodst", 6, 2000, 4096, true },
};

/*
 * dst[i] = base[idx[i]] for random indices (with repeats): dst checked
 * against the model, the counters against the bytes it moves.
 */
static void test_gather(const void *opaque)
{
    const GatherCase *c = opaque;
    uint64_t elem = 1ull << c->shift, i;
    g_autofree uint32_t *idx = g_new(uint32_t, c->count);
    g_autofree uint8_t *base = g_malloc(K_BASE_SIZE);
    g_autofree uint8_t *got = g_malloc(c->count * elem);
    VGPUTest t;

    g_assert_cmpuint(c->bound * elem, <=, K_BASE_SIZE);
    g_assert_cmpuint(c->count * elem, <=, K_PACKED_SIZE);
    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    fill_indices(idx, c->count, c->bound, 7);
    store_indices(&t, CMD_PA + K_INDEX, idx, c->count);
    mem_pattern(base, K_BASE_SIZE, 11);
    mem_write(&t, false, CMD_PA + K_BASE, base, K_BASE_SIZE);
    mem_fill(&t, false, CMD_PA + K_PACKED, 0, K_PACKED_SIZE);

    cmd_gather(&t, 0, VGPU_OP_GATHER,
               GF(c->shift) | (c->nodst ? VGPU_GATHER_FLAG_NODST : 0),
               CMD_VA + K_INDEX, CMD_VA + K_BASE, c->count, c->bound,
               c->nodst ? 0 : CMD_VA + K_PACKED);
    q_submit(&t, 0);
    q_wait_done(&t, 0);

    mem_read(&t, false, CMD_PA + K_PACKED, got, c->count * elem);
    for (i = 0; i < c->count; i++) {
        if (c->nodst) {
            g_assert_cmpuint(ldq_le_p(got + i * elem), ==, 0);
        } else {
            g_assert_cmpmem(got + i * elem, elem, base + idx[i] * elem, elem);
        }
    }
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_READ_BYTES), ==,
                     c->count * (4 + elem));
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_WRITE_BYTES), ==,
                     c->nodst ? 0 : c->count * elem);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, 0);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_COMMANDS), ==, 1);
    /* Every element went through the MMU: the base pages are ACCESSED. */
    g_assert_true(pt_get(&t, CTX, CMD_VA + K_BASE + idx[0] * elem, 0) &
                  VGPU_PTE_ACCESSED);
    g_assert_true(!!(pt_get(&t, CTX, CMD_VA + K_PACKED, 0) & VGPU_PTE_DIRTY)
                  == !c->nodst);
    vgpu_test_stop(&t);
}

/* -------------------------------------------------------- SCATTER --- */

/*
 * base[idx[i]] = src[i]: a permutation of the whole bound, then repeats
 * of earlier indices.  With one lane (@opaque "lanes=1") the later element
 * wins, as the sequential definition says; with 32 lanes the repeats race
 * and any element scattered to an index may win, as on a GPU.
 */
static void test_scatter(const void *opaque)
{
    const char *props = opaque;
    bool one_lane = strstr(props, "lanes=1") != NULL;
    const uint32_t bound = 2048, count = bound + 64;
    const uint64_t elem = 64;
    g_autofree uint32_t *idx = g_new(uint32_t, count);
    g_autofree uint8_t *src = g_malloc(count * elem);
    g_autofree uint8_t *want = g_malloc(bound * elem);
    g_autofree uint8_t *got = g_malloc(bound * elem);
    g_autoptr(GRand) r = g_rand_new_with_seed(5);
    uint32_t i;
    VGPUTest t;

    for (i = 0; i < bound; i++) {
        idx[i] = i;
    }
    for (i = bound - 1; i > 0; i--) {
        uint32_t j = g_rand_int_range(r, 0, i + 1), x = idx[i];

        idx[i] = idx[j];
        idx[j] = x;
    }
    for (i = bound; i < count; i++) {
        idx[i] = idx[g_rand_int_range(r, 0, bound)];
    }
    mem_pattern(src, count * elem, 21);
    for (i = 0; i < count; i++) {
        memcpy(want + idx[i] * elem, src + i * elem, elem);
    }

    vgpu_test_start(&t, props);
    cmd_setup(&t);
    store_indices(&t, CMD_PA + K_INDEX, idx, count);
    mem_write(&t, false, CMD_PA + K_PACKED, src, count * elem);
    mem_fill(&t, false, CMD_PA + K_BASE, 0xee, K_BASE_SIZE);
    cmd_gather(&t, 0, VGPU_OP_SCATTER, GF(6), CMD_VA + K_INDEX,
               CMD_VA + K_BASE, count, bound, CMD_VA + K_PACKED);
    q_submit(&t, 0);
    q_wait_done(&t, 0);

    mem_read(&t, false, CMD_PA + K_BASE, got, bound * elem);
    if (one_lane) {
        g_assert_cmpmem(got, bound * elem, want, bound * elem);
    }
    for (i = 0; i < count; i++) {
        uint8_t *g = got + idx[i] * elem;
        uint32_t j;
        bool any = false;

        /* Element idx[i] holds what one of its writers stored. */
        for (j = 0; j < count && !any; j++) {
            any = idx[j] == idx[i] && !memcmp(g, src + j * elem, elem);
        }
        g_assert_true(any);
    }
    /* Nothing beyond the bound. */
    g_assert_cmphex(mem_rq(&t, false, CMD_PA + K_BASE + bound * elem), ==,
                    0xeeeeeeeeeeeeeeeeull);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_READ_BYTES), ==,
                     count * (4 + elem));
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_WRITE_BYTES), ==,
                     count * elem);
    g_assert_true(pt_get(&t, CTX, CMD_VA + K_BASE, 0) & VGPU_PTE_DIRTY);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------ Faults, REPLAY --- */

static void fault_ack(VGPUTest *t, uint32_t n)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        mem_wq(t, false, VRAM_FAULT_BUF + i * VGPU_FAULT_RECORD_SIZE +
               VGPU_FAULT_DW_FLAGS * 4, 0);
    }
    wr(t, VGPU_REG_FAULT_BUF_HEAD, n);
}

typedef enum GFaultWhere {
    GF_ELEMENT,             /* GATHER: an element's page not present */
    GF_INDEX,               /* GATHER: the index buffer runs into a hole */
    GF_SCATTER_RO,          /* SCATTER: an element's page read-only */
} GFaultWhere;

typedef struct GFaultCase {
    const char *name;
    GFaultWhere where;
} GFaultCase;

static const GFaultCase gfault_cases[] = {
    { "gather-element", GF_ELEMENT },
    { "gather-index", GF_INDEX },
    { "scatter-read-only", GF_SCATTER_RO },
};

/*
 * 64-byte elements in four pages at FAULT_VA (the base), one of them a
 * hole or read-only; the indices and packed elements in CMD_VA, except
 * for GF_INDEX, whose index buffer ends in the hole.  The command stalls
 * on the hole's page with exactly the elements before the faulting one
 * done; REPLAY after the fix finishes it, with one fault in all.
 */
/* What the first @n elements leave in the written region, from zero. */
static void gather_model(bool scatter, const uint32_t *idx, uint32_t n,
                         const uint8_t *base, const uint8_t *packed,
                         uint8_t *want, size_t size)
{
    const uint32_t elem = 64;
    uint32_t i;

    memset(want, 0, size);
    for (i = 0; i < n; i++) {
        if (scatter) {
            memcpy(want + idx[i] * elem, packed + i * elem, elem);
        } else {
            memcpy(want + i * elem, base + idx[i] * elem, elem);
        }
    }
}

static void test_gather_fault(const void *opaque)
{
    const GFaultCase *c = opaque;
    const uint32_t count = 96, bound = 256;
    const uint64_t pg = VGPU_PAGE_SIZE_4K, hole = FAULT_VA + 2 * pg;
    bool scatter = c->where == GF_SCATTER_RO;
    static uint8_t base[256 * 64], packed[96 * 64], zero[256 * 64];
    static uint8_t want[256 * 64], got[256 * 64];
    uint64_t index_va = CMD_VA + K_INDEX, index_pa = CMD_PA + K_INDEX;
    uint64_t out_pa = scatter ? FAULT_PA : CMD_PA + K_PACKED;
    size_t out_size = scatter ? sizeof(base) : sizeof(packed);
    uint32_t idx[96], k, i;
    VGPUTest t;
    FaultRec r;

    for (i = 0; i < count; i++) {
        idx[i] = (i * 37 + 5) % bound;
    }
    if (c->where == GF_INDEX) {
        /* Indices 0..7 at the end of page 1, the rest in the hole. */
        index_va = hole - 8 * 4;
        index_pa = FAULT_PA + 2 * pg - 8 * 4;
        for (i = 0; i < count; i++) {
            idx[i] %= 64;           /* elements in page 0 only */
        }
        k = 8;
    } else {
        /* The first element in page 2: index 128 .. 191. */
        k = 0;
        while (idx[k] < 128 || idx[k] >= 192) {
            k++;
        }
        g_assert_cmpuint(k, >, 0);
    }
    mem_pattern(base, sizeof(base), 1);
    mem_pattern(packed, sizeof(packed), 2);

    vgpu_test_start(&t, VGPU_ONE_LANE);
    cmd_setup(&t);
    for (i = 0; i < 4; i++) {
        if (i != 2 || scatter) {
            map4k(&t, CTX, FAULT_VA + i * pg, FAULT_PA + i * pg,
                  i == 2 ? VGPU_PTE_READ : PTE_RW);
        }
    }
    mem_write(&t, false, FAULT_PA, scatter ? zero : base, sizeof(base));
    mem_write(&t, false, CMD_PA + K_PACKED, scatter ? packed : zero,
              sizeof(packed));
    store_indices(&t, index_pa, idx, count);

    cmd_gather(&t, 0, scatter ? VGPU_OP_SCATTER : VGPU_OP_GATHER,
               GF(6), index_va, FAULT_VA, count, bound,
               CMD_VA + K_PACKED);
    cmd_fence(&t, 0, SCRATCH_VA, 9, false);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);

    r = fault_rec(&t, 0);
    g_assert_cmphex(r.va, ==, hole);
    g_assert_cmphex(qrd(&t, 0, VGPU_QUEUE_FAULT_VA_LO), ==, LO(hole));
    g_assert_cmphex(r.info, ==,
                    fault_info(0, CTX,
                               scatter ? VGPU_ACCESS_WRITE : VGPU_ACCESS_READ,
                               scatter ? VGPU_FAULT_WRITE_DENIED :
                               VGPU_FAULT_NOT_PRESENT, 0));
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA), ==, 0);
    /* Exactly the k elements before the faulting one are done. */
    gather_model(scatter, idx, k, base, packed, want, out_size);
    mem_read(&t, false, out_pa, got, out_size);
    g_assert_cmpmem(got, out_size, want, out_size);

    /* Fix the page, REPLAY: the command and the FENCE finish. */
    fault_ack(&t, 1);
    if (scatter) {
        pt_set(&t, CTX, hole, 0, pt_get(&t, CTX, hole, 0) | VGPU_PTE_WRITE);
        inval(&t, VGPU_INVAL_OP_RANGE, CTX, hole, pg);
    } else {
        map4k(&t, CTX, hole, FAULT_PA + 2 * pg, PTE_RW);
    }
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    q_wait_done(&t, 0);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA), ==, 9);
    gather_model(scatter, idx, count, base, packed, want, out_size);
    mem_read(&t, false, out_pa, got, out_size);
    g_assert_cmpmem(got, out_size, want, out_size);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 1);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, 1);
    g_assert_true(pt_get(&t, CTX, scatter ? hole : CMD_VA + K_PACKED, 0) &
                  VGPU_PTE_DIRTY);
    vgpu_test_stop(&t);
}

/* An index at the bound: INDEX error there, the elements before done. */
static void test_gather_bad_index(void)
{
    uint32_t idx[6] = { 3, 0, 2, 4, 1, 0 }, i;
    uint8_t base[4 * 64], got[6 * 64];
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    mem_pattern(base, sizeof(base), 4);
    mem_write(&t, false, CMD_PA + K_BASE, base, sizeof(base));
    mem_fill(&t, false, CMD_PA + K_PACKED, 0, sizeof(got));
    store_indices(&t, CMD_PA + K_INDEX, idx, 6);
    cmd_nop(&t, 0, 2);
    cmd_gather(&t, 0, VGPU_OP_GATHER, GF(6), CMD_VA + K_INDEX,
               CMD_VA + K_BASE, 6, 4, CMD_VA + K_PACKED);
    cmd_fence(&t, 0, SCRATCH_VA, 1, false);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_ERROR);
    g_assert_cmpuint(q_error(&t, 0), ==, VGPU_QUEUE_ERROR_INDEX);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CMD_OFFSET), ==, 8);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, 8);
    g_assert_true(rd(&t, VGPU_REG_ERROR_QUEUES) & 1);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA), ==, 0);
    mem_read(&t, false, CMD_PA + K_PACKED, got, sizeof(got));
    for (i = 0; i < 3; i++) {
        g_assert_cmpmem(got + i * 64, 64, base + idx[i] * 64, 64);
    }
    for (i = 3 * 64; i < sizeof(got); i++) {
        g_assert_cmpuint(got[i], ==, 0);
    }
    /* Only the NOP completed; no fault was raised. */
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_COMMANDS), ==, 1);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, 0);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------ TILE --- */

typedef struct TileCase {
    const char *name;
    uint32_t flags;         /* mode, order, radius; access is RMW */
    uint32_t repeat;
} TileCase;

#define TILE_FLAGS(mode, cols, radius) \
    (((mode) << VGPU_TILE_FLAG_MODE_SHIFT) | \
     ((cols) ? VGPU_TILE_FLAG_COLUMNS : 0) | \
     ((radius) << VGPU_TILE_FLAG_RADIUS_SHIFT))

static const TileCase tile_cases[] = {
    { "block-rows", TILE_FLAGS(VGPU_TILE_BLOCK, 0, 0), 1 },
    { "block-columns", TILE_FLAGS(VGPU_TILE_BLOCK, 1, 0), 3 },
    { "stencil-r1", TILE_FLAGS(VGPU_TILE_STENCIL, 0, 1), 2 },
    { "stencil-r3-columns", TILE_FLAGS(VGPU_TILE_STENCIL, 1, 3), 1 },
};

/* A grid of 4 x 5 tiles of 256 bytes x 3 rows, pitch 1152 (padded). */
#define G_PITCH             1152u
#define G_WIDTH             256u
#define G_HEIGHT            3u
#define G_ACROSS            4u
#define G_DOWN              5u

/*
 * TILE read-modify-write: every line of the grid is incremented once per
 * pass and the pitch's padding never; the reads are the lines and their
 * in-grid neighbours (stencil), as the model counts them.
 */
static void test_tile(const void *opaque)
{
    const TileCase *c = opaque;
    const uint64_t rows = G_DOWN * G_HEIGHT, size = rows * G_PITCH;
    const uint64_t cols = G_ACROSS * G_WIDTH / VGPU_TOUCH_LINE;
    unsigned radius = FIELD_GET(c->flags, VGPU_TILE_FLAG_RADIUS);
    g_autofree uint8_t *mem = g_malloc(size);
    uint64_t row, col, reads = 0, centres = 0;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    mem_fill(&t, false, CMD_PA, 0, size + 4096);
    cmd_tile(&t, 0, c->flags | (VGPU_TOUCH_RMW << VGPU_TILE_FLAG_ACCESS_SHIFT),
             CMD_VA, G_PITCH, G_WIDTH, G_HEIGHT, G_ACROSS, G_DOWN, c->repeat);
    q_submit(&t, 0);
    q_wait_done(&t, 0);

    mem_read(&t, false, CMD_PA, mem, size);
    for (row = 0; row < rows; row++) {
        for (col = 0; col < G_PITCH / VGPU_TOUCH_LINE; col++) {
            uint64_t v = ldq_le_p(mem + row * G_PITCH + col * VGPU_TOUCH_LINE);
            unsigned d;

            g_assert_cmpuint(v, ==, col < cols ? c->repeat : 0);
            if (col >= cols) {
                continue;
            }
            centres++;
            reads++;
            for (d = 1; d <= radius; d++) {
                reads += (row >= d) + (row + d < rows) + (col >= d) +
                         (col + d < cols);
            }
        }
    }
    g_assert_cmpuint(centres, ==, G_ACROSS * G_DOWN * G_HEIGHT *
                     (G_WIDTH / VGPU_TOUCH_LINE));
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_READ_BYTES), ==,
                     reads * VGPU_TOUCH_LINE * c->repeat);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_WRITE_BYTES), ==,
                     centres * VGPU_TOUCH_LINE * c->repeat);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, 0);
    vgpu_test_stop(&t);
}

/* @n zeroed pages at FAULT_VA, mapped read-write but for bits of @holes. */
static void map_pages(VGPUTest *t, int n, uint32_t holes)
{
    int p;

    mem_fill(t, false, FAULT_PA, 0, n * VGPU_PAGE_SIZE_4K);
    for (p = 0; p < n; p++) {
        if (!(holes & BIT(p))) {
            map4k(t, CTX, FAULT_VA + p * VGPU_PAGE_SIZE_4K,
                  FAULT_PA + p * VGPU_PAGE_SIZE_4K, PTE_RW);
        }
    }
}

/*
 * Acknowledge the @records written, map the @holes left by map_pages()
 * and REPLAY: the queue finishes, every line of the @n pages was
 * incremented once, and it took @faults faults in all.
 */
static void replay_holes_n(VGPUTest *t, int n, uint32_t holes,
                           uint32_t records, uint32_t faults)
{
    uint64_t off;
    int p;

    fault_ack(t, records);
    for (p = 0; p < n; p++) {
        if (holes & BIT(p)) {
            map4k(t, CTX, FAULT_VA + p * VGPU_PAGE_SIZE_4K,
                  FAULT_PA + p * VGPU_PAGE_SIZE_4K, PTE_RW);
        }
    }
    qwr(t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    q_wait_done(t, 0);
    for (off = 0; off < n * VGPU_PAGE_SIZE_4K; off += VGPU_TOUCH_LINE) {
        g_assert_cmpuint(mem_rq(t, false, FAULT_PA + off), ==, 1);
    }
    g_assert_cmpuint(ctr(t, CTX, VGPU_CTR_FAULTS), ==, faults);
}

static void replay_holes(VGPUTest *t, int n, uint32_t holes)
{
    replay_holes_n(t, n, holes, 1, 1);
}

typedef struct TileOrderCase {
    const char *name;
    bool columns;
} TileOrderCase;

static const TileOrderCase tile_order_cases[] = {
    { "rows", false },
    { "columns", true },
};

/*
 * The pass order, seen through a fault: 2 x 2 tiles of one page by two
 * rows (pitch two pages) at FAULT_VA, tile (1, 0) not mapped.  In row
 * order only tile (0, 0) is done when the queue stalls on it, in column
 * order tile (0, 1) too; REPLAY finishes the rest.  One lane: the order
 * of one access stream.
 */
static void test_tile_order(const void *opaque)
{
    const TileOrderCase *c = opaque;
    const uint64_t pg = VGPU_PAGE_SIZE_4K;
    uint64_t off;
    VGPUTest t;

    vgpu_test_start(&t, VGPU_ONE_LANE);
    cmd_setup(&t);
    map_pages(&t, 8, BIT(1) | BIT(3));  /* rows 0, 1: tile (1, 0) */
    cmd_tile(&t, 0, (c->columns ? VGPU_TILE_FLAG_COLUMNS : 0) |
             (VGPU_TOUCH_RMW << VGPU_TILE_FLAG_ACCESS_SHIFT), FAULT_VA,
             2 * pg, pg, 2, 2, 2, 0);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmphex(fault_rec(&t, 0).va, ==, FAULT_VA + pg);
    /* Tile (0, 0): pages 0 and 2, every line done. */
    for (off = 0; off < pg; off += VGPU_TOUCH_LINE) {
        g_assert_cmpuint(mem_rq(&t, false, FAULT_PA + off), ==, 1);
        g_assert_cmpuint(mem_rq(&t, false, FAULT_PA + 2 * pg + off), ==, 1);
        /* Tile (0, 1): pages 4 and 6, done first in column order. */
        g_assert_cmpuint(mem_rq(&t, false, FAULT_PA + 4 * pg + off), ==,
                         c->columns);
        g_assert_cmpuint(mem_rq(&t, false, FAULT_PA + 6 * pg + off), ==,
                         c->columns);
    }
    replay_holes(&t, 8, BIT(1) | BIT(3));
    vgpu_test_stop(&t);
}

/*
 * A stencil reads its neighbours before it writes its line: four rows of
 * one page each at FAULT_VA with row 1 not mapped stall on row 1 while
 * row 0's first line is still untouched; the unmapped pages around the
 * grid are never reached (neighbours outside it are skipped), so REPLAY
 * finishes with one fault in all.
 */
static void test_tile_stencil_fault(void)
{
    const uint64_t pg = VGPU_PAGE_SIZE_4K;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    map_pages(&t, 4, BIT(1));
    cmd_tile(&t, 0, TILE_FLAGS(VGPU_TILE_STENCIL, 0, 2) |
             (VGPU_TOUCH_RMW << VGPU_TILE_FLAG_ACCESS_SHIFT), FAULT_VA,
             pg, pg, 4, 1, 1, 1);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmphex(fault_rec(&t, 0).va, ==, FAULT_VA + pg);
    g_assert_cmphex(fault_rec(&t, 0).info, ==,
                    fault_info(0, CTX, VGPU_ACCESS_READ,
                               VGPU_FAULT_NOT_PRESENT, 0));
    g_assert_cmpuint(mem_rq(&t, false, FAULT_PA), ==, 0);
    replay_holes(&t, 4, BIT(1));
    vgpu_test_stop(&t);
}

/* ---------------------------------------------------- Bad encodings --- */

#define HDR VGPU_CMD_HEADER
/* Two list elements each: no parentheses. */
#define IVA                 LO(CMD_VA + K_INDEX), HI(CMD_VA + K_INDEX)
#define BVA                 LO(CMD_VA + K_BASE), HI(CMD_VA + K_BASE)
#define PVA                 LO(CMD_VA + K_PACKED), HI(CMD_VA + K_PACKED)
#define TVA                 LO(CMD_VA), HI(CMD_VA)
#define TACC                (VGPU_TOUCH_RMW << VGPU_TILE_FLAG_ACCESS_SHIFT)

typedef struct BadCase {
    const char *name;
    uint32_t cause;
    uint32_t n;
    uint32_t dw[10];
} BadCase;

static const BadCase bad_cases[] = {
    { "gather-short", VGPU_QUEUE_ERROR_LENGTH, 8,
      { HDR(VGPU_OP_GATHER, GF(6), 8), IVA, BVA, 1, 1, LO(CMD_VA) } },
    { "scatter-long", VGPU_QUEUE_ERROR_LENGTH, 10,
      { HDR(VGPU_OP_SCATTER, GF(6), 10), IVA, BVA, 1, 1, PVA, 0 } },
    { "gather-elem-2-bytes", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_GATHER, GF(1), 9), IVA, BVA, 1, 1, PVA } },
    { "gather-elem-8KiB", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_GATHER, GF(13), 9), IVA, BVA, 1, 1, PVA } },
    { "gather-index-unaligned", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_GATHER, GF(6), 9), LO(CMD_VA + 2), HI(CMD_VA), BVA, 1,
        1, PVA } },
    { "gather-base-unaligned", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_GATHER, GF(6), 9), IVA, LO(CMD_VA + K_BASE + 32),
        HI(CMD_VA), 1, 1, PVA } },
    { "scatter-src-unaligned", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_SCATTER, GF(3), 9), IVA, BVA, 1, 1,
        LO(CMD_VA + K_PACKED + 4), HI(CMD_VA) } },
    { "gather-bound-zero", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_GATHER, GF(6), 9), IVA, BVA, 1, 0, PVA } },
    { "gather-base-wraps", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_GATHER, GF(12), 9), IVA, 0xfff00000u, 0xffffffffu, 1,
        0x1000, PVA } },
    { "gather-dst-wraps", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_GATHER, GF(12), 9), IVA, BVA, 0x1000, 1, 0xfff00000u,
        0xffffffffu } },
    { "scatter-nodst", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_SCATTER, GF(6) | VGPU_GATHER_FLAG_NODST, 9), IVA, BVA,
        1, 1, PVA } },
    { "gather-unknown-flag", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_GATHER, GF(6) | VGPU_BIT(5), 9), IVA, BVA, 1, 1, PVA } },
    { "tile-short", VGPU_QUEUE_ERROR_LENGTH, 8,
      { HDR(VGPU_OP_TILE, TACC, 8), TVA, 64, 64, 1, 1, 1 } },
    { "tile-mode-unknown", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TILE, TACC | 2, 9), TVA, 64, 64, 1, 1, 1, 1 } },
    { "tile-block-radius", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TILE, TACC | TILE_FLAGS(VGPU_TILE_BLOCK, 0, 1), 9), TVA,
        64, 64, 1, 1, 1, 1 } },
    { "tile-stencil-radius-0", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TILE, TACC | VGPU_TILE_STENCIL, 9), TVA, 64, 64, 1, 1,
        1, 1 } },
    { "tile-va-unaligned", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TILE, TACC, 9), LO(CMD_VA + 32), HI(CMD_VA), 64, 64, 1,
        1, 1, 1 } },
    { "tile-pitch-unaligned", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TILE, TACC, 9), TVA, 96, 64, 1, 1, 1, 1 } },
    { "tile-width-zero", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TILE, TACC, 9), TVA, 64, 0, 1, 1, 1, 1 } },
    { "tile-height-zero", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TILE, TACC, 9), TVA, 64, 64, 0, 1, 1, 1 } },
    { "tile-wider-than-pitch", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TILE, TACC, 9), TVA, 256, 128, 1, 3, 1, 1 } },
    { "tile-grid-wraps", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TILE, TACC, 9), TVA, 0xffffffc0u, 64, 0xffffffffu, 1,
        0xffffffffu, 1 } },
    { "tile-accesses-overflow", VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TILE, TACC | TILE_FLAGS(VGPU_TILE_STENCIL, 0, 7), 9), 0,
        0, 0xffffffc0u, 0xffffffc0u, 0xffffffu, 1, 1, 0xffffffffu } },
};

/*
 * A malformed GATHER, SCATTER or TILE is refused when it is decoded:
 * ERROR with its cause, HEAD on it, nothing read or written.
 */
static void test_kernel_bad(const void *opaque)
{
    const BadCase *c = opaque;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    mem_fill(&t, false, CMD_PA, 0, 64 * KiB);
    q_emit(&t, 0, c->dw, c->n);
    cmd_fence(&t, 0, SCRATCH_VA, 1, false);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_ERROR);
    g_assert_cmpuint(q_error(&t, 0), ==, c->cause);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, 0);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA), ==, 0);
    g_assert_cmpuint(mem_rq(&t, false, CMD_PA), ==, 0);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_READ_BYTES), ==, 0);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_WRITE_BYTES), ==, 0);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------ Unprivileged --- */

#define K_STREAM_VA         0xa00000000ull
#define K_STREAM_PA         (20 * MiB)

/*
 * The kernels are user commands: a CALL's stream (read-only, as a
 * user's batch) runs a SCATTER, a GATHER of what it scattered, and a
 * TILE, and the ring's FENCE after the CALL completes.
 */
static void test_kernels_in_call(void)
{
    g_autoptr(GArray) s = stream_new();
    uint32_t idx[4] = { 3, 1, 0, 2 }, i;
    uint8_t src[4 * 64], got[4 * 64];
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    mem_fill(&t, false, CMD_PA, 0, 2 * MiB);
    store_indices(&t, CMD_PA + K_INDEX, idx, 4);
    mem_pattern(src, sizeof(src), 8);
    mem_write(&t, false, CMD_PA + K_PACKED, src, sizeof(src));
    st_gather(s, VGPU_OP_SCATTER, GF(6), CMD_VA + K_INDEX, CMD_VA + K_BASE,
              4, 4, CMD_VA + K_PACKED);
    st_gather(s, VGPU_OP_GATHER, GF(6), CMD_VA + K_INDEX, CMD_VA + K_BASE,
              4, 4, CMD_VA + K_PACKED + 0x1000);
    st_tile(s, TACC, CMD_VA + 0x10000, 256, 128, 2, 2, 2, 1);
    mem_write(&t, false, K_STREAM_PA, s->data, s->len * 4);
    map4k(&t, CTX, K_STREAM_VA, K_STREAM_PA, VGPU_PTE_READ);
    cmd_call(&t, 0, K_STREAM_VA, s->len);
    cmd_fence(&t, 0, SCRATCH_VA, 5, false);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA), ==, 5);
    for (i = 0; i < 4; i++) {
        mem_read(&t, false, CMD_PA + K_BASE + idx[i] * 64, got, 64);
        g_assert_cmpmem(got, 64, src + i * 64, 64);
    }
    mem_read(&t, false, CMD_PA + K_PACKED + 0x1000, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), src, sizeof(src));
    for (i = 0; i < 4 * 256; i += 64) {
        g_assert_cmpuint(mem_rq(&t, false, CMD_PA + 0x10000 + i), ==, 1);
    }
    /* Three stream commands, the CALL and the FENCE. */
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_COMMANDS), ==, 5);
    vgpu_test_stop(&t);
}


/* --------------------------------------------------------------- Lanes --- */

static bool cond_fault_tail(VGPUTest *t, int q, uint64_t n)
{
    return rd(t, VGPU_REG_FAULT_BUF_TAIL) >= n;
}

/* Every line of the @n pages at FAULT_PA holds @v (RMW TOUCH count). */
static void assert_lines(VGPUTest *t, int n, uint64_t v)
{
    uint64_t off;

    for (off = 0; off < n * VGPU_PAGE_SIZE_4K; off += VGPU_TOUCH_LINE) {
        g_assert_cmpuint(mem_rq(t, false, FAULT_PA + off), ==, v);
    }
}

/*
 * 32 pages, none mapped, one sequential TOUCH: each of the 32 lanes owns
 * one page, so the command raises 32 faults at once, one per page, before
 * the queue stalls; one REPLAY after mapping them all finishes it.
 */
static void test_lanes_fault_together(void)
{
    uint32_t seen = 0, i;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    g_assert_cmpuint(rd(&t, VGPU_REG_LANES), ==, 32);
    cmd_setup(&t);
    map_pages(&t, 32, UINT32_MAX);
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW, FAULT_VA,
              32 * VGPU_PAGE_SIZE_4K, 0, 0, 0, 1);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 32);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, 32);
    for (i = 0; i < 32; i++) {
        FaultRec r = fault_rec(&t, i);
        uint64_t page = (r.va - FAULT_VA) / VGPU_PAGE_SIZE_4K;

        g_assert_cmpuint(page, <, 32);
        g_assert_false(seen & BIT(page));
        seen |= BIT(page);
        g_assert_cmphex(r.info & ~VGPU_FAULT_INFO_LEVEL_MASK, ==,
                        fault_info(0, CTX, VGPU_ACCESS_READ,
                                   VGPU_FAULT_NOT_PRESENT, 0));
    }
    replay_holes_n(&t, 32, UINT32_MAX, 32, 32);
    vgpu_test_stop(&t);
}

/*
 * One page, not mapped, touched by 32 lanes of two lines each: the lanes
 * wait on one fault, reported once.
 */
static void test_lanes_coalesce(void)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    map_pages(&t, 1, BIT(0));
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW, FAULT_VA,
              VGPU_PAGE_SIZE_4K, 0, 0, 0, 1);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 1);
    g_assert_cmphex(fault_rec(&t, 0).va, ==, FAULT_VA);
    replay_holes_n(&t, 1, BIT(0), 1, 1);
    vgpu_test_stop(&t);
}

/*
 * A lane that faults waits while the others go on: page 0 of 32 missing,
 * the other 31 lanes finish their pages before the queue stalls.
 */
static void test_lanes_run_on(void)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    map_pages(&t, 32, BIT(0));
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW, FAULT_VA,
              32 * VGPU_PAGE_SIZE_4K, 0, 0, 0, 1);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 1);
    g_assert_cmphex(fault_rec(&t, 0).va, ==, FAULT_VA);
    g_assert_cmpuint(mem_rq(&t, false, FAULT_PA), ==, 0);
    g_assert_cmpuint(mem_rq(&t, false, FAULT_PA + 31 * VGPU_PAGE_SIZE_4K +
                            VGPU_PAGE_SIZE_4K - VGPU_TOUCH_LINE), ==, 1);
    replay_holes_n(&t, 32, BIT(0), 1, 1);
    vgpu_test_stop(&t);
}

typedef struct LaunchCase {
    const char *name;
    unsigned field;         /* TOUCH_FLAG_LANES */
    uint32_t faults;        /* records before the queue stalls */
} LaunchCase;

static const LaunchCase launch_cases[] = {
    { "one", 1, 1 },
    { "eight", 4, 8 },
    { "device", 0, 32 },
    { "more-than-device", 9, 32 },
};

/*
 * A TOUCH's launch width: 32 pages, none mapped, TOUCH_FLAG_LANES k runs
 * at most 2^(k - 1) lanes (0: the device's 32), so that many faults come
 * before the queue stalls; the memory afterwards is the same.
 */
static void test_lanes_launch(const void *opaque)
{
    const LaunchCase *c = opaque;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    map_pages(&t, 32, UINT32_MAX);
    cmd_touch_lanes(&t, 0, c->field, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW,
                    FAULT_VA, 32 * VGPU_PAGE_SIZE_4K, 0, 0, 0, 1);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, c->faults);
    replay_holes_n(&t, 32, UINT32_MAX, c->faults, c->faults);
    vgpu_test_stop(&t);
}

typedef struct LaneAnswerCase {
    const char *name;
    bool cancel;
} LaneAnswerCase;

static const LaneAnswerCase lane_answer_cases[] = {
    { "replay", false },
    { "cancel", true },
};

/*
 * REPLAY and CANCEL reach a lane that waits while the queue still runs:
 * page 0 of 32 missing and 500 passes, so lane 0 faults in the first pass
 * while the others have most of their work ahead.  REPLAY (page mapped)
 * resumes lane 0 without a stall: every line ends at 500.  CANCEL ends the
 * command at once: the queue goes into ERROR (CANCELLED) with the other
 * lanes unfinished, and the FENCE behind it is not written.
 */
static void test_lanes_answer_running(const void *opaque)
{
    const LaneAnswerCase *c = opaque;
    const uint32_t passes = 500;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    map_pages(&t, 32, BIT(0));
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW, FAULT_VA,
              32 * VGPU_PAGE_SIZE_4K, 0, 0, 0, passes);
    cmd_fence(&t, 0, SCRATCH_VA, 7, false);
    q_submit(&t, 0);
    g_assert_true(wait_for(&t, cond_fault_tail, 0, 1));
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_RUNNING);
    fault_ack(&t, 1);
    if (c->cancel) {
        qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_CANCEL);
        g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_ERROR);
        g_assert_cmpuint(q_error(&t, 0), ==, VGPU_QUEUE_ERROR_CANCELLED);
        g_assert_cmpuint(mem_rq(&t, false, FAULT_PA +
                                31 * VGPU_PAGE_SIZE_4K), <, passes);
        g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA), ==, 0);
        vgpu_test_stop(&t);
        return;
    }
    map4k(&t, CTX, FAULT_VA, FAULT_PA, PTE_RW);
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    q_wait_done(&t, 0);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA), ==, 7);
    assert_lines(&t, 32, passes);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, 1);
    /* The queue never stalled: no stall time was charged. */
    g_assert_cmpuint(rd64(&t, VGPU_QTIME_REG(0, VGPU_QTIME_STALL_LO)), ==, 0);
    vgpu_test_stop(&t);
}

/*
 * A full fault buffer with lanes: 32 lanes fault on 32 missing pages but
 * only 15 records fit; the other 17 are dropped (counted, INT_FAULT_
 * OVERFLOW) and their lanes wait all the same.  Recovery as hardware.rst
 * documents it: drain, fix, REPLAY the stalled queue; every line is done
 * once and no further fault comes.
 */
static void test_lanes_overflow(void)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    fault_buf_init(&t, 16);
    map_pages(&t, 32, UINT32_MAX);
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW, FAULT_VA,
              32 * VGPU_PAGE_SIZE_4K, 0, 0, 0, 1);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 15);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_OVERFLOWS), ==, 17);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_FAULT_OVERFLOWS), ==, 17);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, 32);
    g_assert(rd(&t, VGPU_REG_INT_STATUS) & VGPU_INT_FAULT_OVERFLOW);
    replay_holes_n(&t, 32, UINT32_MAX, 15, 32);
    vgpu_test_stop(&t);
}

/*
 * The lanes property reaches LANES (values refused: vgpu-test-regs.c);
 * 256 lanes over 32 pages leave lanes 8 to a page, one fault per page.
 */
static void test_lanes_property(void)
{
    VGPUTest t;

    vgpu_test_start(&t, "vram_size=64M,lanes=256");
    g_assert_cmpuint(rd(&t, VGPU_REG_LANES), ==, 256);
    cmd_setup(&t);
    map_pages(&t, 32, UINT32_MAX);
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW, FAULT_VA,
              32 * VGPU_PAGE_SIZE_4K, 0, 0, 0, 1);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 32);
    replay_holes_n(&t, 32, UINT32_MAX, 32, 32);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------ Deterministic mode --- */

static bool cond_int_fault(VGPUTest *t, int q, uint64_t arg)
{
    return rd(t, VGPU_REG_INT_STATUS) & VGPU_INT_FAULT;
}

/*
 * Publication waits for quiescence: queue 0 faults on page 0 of 32 while
 * queue 1 runs a long TOUCH.  The record is written (TAIL moves) but is
 * not VALID and INT_FAULT is not raised while queue 1 runs; DISABLE of
 * queue 1 leaves no queue running, and the record is published then.
 * Without the property, CAPS does not report the mode.
 */
static void test_deterministic_publish(void)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    g_assert_false(rd(&t, VGPU_REG_CAPS) & VGPU_CAPS_DETERMINISTIC);
    vgpu_test_stop(&t);

    vgpu_test_start(&t, "deterministic=on");
    g_assert_true(rd(&t, VGPU_REG_CAPS) & VGPU_CAPS_DETERMINISTIC);
    cmd_setup(&t);
    q_init(&t, 1, CTX);
    map_pages(&t, 32, BIT(0));
    /* About 10^9 accesses: runs until disabled. */
    cmd_touch(&t, 1, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, CMD_VA,
              CMD_SIZE, 0, 0, 0, 30000);
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW, FAULT_VA,
              32 * VGPU_PAGE_SIZE_4K, 0, 0, 0, 1);
    q_submit(&t, 1);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 1);
    g_assert_cmpuint(q_state(&t, 1), ==, VGPU_QUEUE_STATE_RUNNING);
    g_assert_false(fault_rec(&t, 0).flags & VGPU_FAULT_DW3_VALID);
    g_assert_false(rd(&t, VGPU_REG_INT_STATUS) & VGPU_INT_FAULT);
    qwr(&t, 1, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_DISABLE);
    g_assert_true(fault_rec(&t, 0).flags & VGPU_FAULT_DW3_VALID);
    g_assert_cmphex(fault_rec(&t, 0).va, ==, FAULT_VA);
    g_assert_true(rd(&t, VGPU_REG_INT_STATUS) & VGPU_INT_FAULT);
    replay_holes_n(&t, 32, BIT(0), 1, 1);
    vgpu_test_stop(&t);
}

typedef struct HeldCase {
    const char *name;
    bool cancel;            /* queue 1 is cancelled, not replayed */
} HeldCase;

static const HeldCase held_cases[] = {
    { "replay", false },
    { "cancel", true },
};

/*
 * The queues stalled at a publication resume together: queues 0 and 1
 * fault on pages 0 and 16 of 32.  Queue 0's REPLAY is held (it stays
 * STALLED, its page mapped) until queue 1 is answered too; a REPLAY of
 * queue 1 then resumes both, a CANCEL ends queue 1 at once and releases
 * queue 0.
 */
static void test_deterministic_held(const void *opaque)
{
    const HeldCase *c = opaque;
    const uint64_t half = 16 * VGPU_PAGE_SIZE_4K;
    uint64_t off;
    VGPUTest t;

    vgpu_test_start(&t, "deterministic=on");
    cmd_setup(&t);
    q_init(&t, 1, CTX);
    map_pages(&t, 32, BIT(0) | BIT(16));
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW, FAULT_VA, half,
              0, 0, 0, 1);
    cmd_touch(&t, 1, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW, FAULT_VA + half,
              half, 0, 0, 0, 1);
    q_submit(&t, 0);
    q_submit(&t, 1);
    g_assert_true(wait_for(&t, cond_int_fault, 0, 0));
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(q_state(&t, 1), ==, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 2);
    fault_ack(&t, 2);
    map4k(&t, CTX, FAULT_VA, FAULT_PA, PTE_RW);
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    /* A second answer (a driver resolving one record at a time) too. */
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    /* Held: queue 0 does not run, however long it is given. */
    g_assert_false(wait_for_ms(&t, cond_state, 0,
                               VGPU_QUEUE_STATE_IDLE, 200));
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(mem_rq(&t, false, FAULT_PA), ==, 0);
    if (c->cancel) {
        qwr(&t, 1, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_CANCEL);
        g_assert_cmpuint(q_state(&t, 1), ==, VGPU_QUEUE_STATE_ERROR);
        g_assert_cmpuint(q_error(&t, 1), ==, VGPU_QUEUE_ERROR_CANCELLED);
    } else {
        map4k(&t, CTX, FAULT_VA + half, FAULT_PA + half, PTE_RW);
        qwr(&t, 1, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
        q_wait_done(&t, 1);
    }
    q_wait_done(&t, 0);
    for (off = 0; off < (c->cancel ? 1 : 2) * half; off += VGPU_TOUCH_LINE) {
        g_assert_cmpuint(mem_rq(&t, false, FAULT_PA + off), ==, 1);
    }
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, 2);
    vgpu_test_stop(&t);
}

void vgpu_test_add_kernels(void)
{
    ADD_TABLE("kernels/gather", gather_cases, test_gather);
    qtest_add_data_func("/vgpu/kernels/scatter", "vram_size=64M",
                        test_scatter);
    qtest_add_data_func("/vgpu/kernels/scatter-one-lane",
                        "vram_size=64M,lanes=1", test_scatter);
    ADD_TABLE("kernels/fault", gfault_cases, test_gather_fault);
    qtest_add_func("/vgpu/kernels/bad-index", test_gather_bad_index);
    ADD_TABLE("kernels/tile", tile_cases, test_tile);
    ADD_TABLE("kernels/tile-order", tile_order_cases, test_tile_order);
    qtest_add_func("/vgpu/kernels/stencil-fault", test_tile_stencil_fault);
    ADD_TABLE("kernels/bad", bad_cases, test_kernel_bad);
    qtest_add_func("/vgpu/kernels/in-call", test_kernels_in_call);
    qtest_add_func("/vgpu/kernels/lanes/fault-together",
                   test_lanes_fault_together);
    qtest_add_func("/vgpu/kernels/lanes/coalesce", test_lanes_coalesce);
    qtest_add_func("/vgpu/kernels/lanes/run-on", test_lanes_run_on);
    ADD_TABLE("kernels/lanes/answer-running", lane_answer_cases,
              test_lanes_answer_running);
    qtest_add_func("/vgpu/kernels/lanes/property", test_lanes_property);
    qtest_add_func("/vgpu/kernels/lanes/overflow", test_lanes_overflow);
    ADD_TABLE("kernels/lanes/launch", launch_cases, test_lanes_launch);
    qtest_add_func("/vgpu/kernels/deterministic/publish",
                   test_deterministic_publish);
    ADD_TABLE("kernels/deterministic/held", held_cases,
              test_deterministic_held);
}
