/*
 * vgpu-fuzz: a seeded, structure-aware fuzzer of the vgpu device.
 *
 * It drives QEMU through qtest as a hostile driver would: random register
 * writes and reads, page tables in VRAM and system memory (mostly valid
 * entries, some garbage), command streams in rings and in CALL streams
 * (mostly valid headers and arguments aimed at mapped memory, some
 * garbage), fault answers, invalidations, resets and clock steps.  It
 * checks that QEMU never aborts, asserts or dies (libqtest notices),
 * never hangs (every step must finish within STEP_TIMEOUT_S), never grows
 * (QEMU's VmRSS, with guest RAM and VRAM touched up front, stays within
 * RSS_SLACK of where it started), that the device keeps its invariants
 * (register fields in range, HEAD inside an enabled ring, a bounded
 * invalidation queue, and QUEUE_FENCE moved by the ring only: the seqnos
 * of stream FENCEs have STREAM_SEQNO_HI as their high half, a dword no
 * ring holds), and
 * that the state it reached migrates to a fresh QEMU.
 *
 * A run is a seed: its programs are generated from it alone, so the same
 * seed replays the same input.  Each program starts from a device reset,
 * sets up contexts, mappings and queues, then runs PROGRAM_OPS random
 * operations; after each one that starts work the fuzzer waits (a bounded
 * number of register polls) until no queue is running, so what the
 * device does between operations does not depend on timing either.
 *
 *   vgpu-fuzz --tap [--seeds S,S,...] [--programs N]
 *       one TAP line per seed (the check tier)
 *   vgpu-fuzz --seconds T [--seed S] [--programs N]
 *       seeds S, S+1, ... until T seconds passed; prints executions
 *       (programs) per second and the seeds of anything found
 *   vgpu-fuzz --seed S [--programs N] [--from P] [--verbose]
 *       replay one seed in this process (from program P)
 *
 * Each seed runs in a child process with its own QEMU; the parent reports
 * a child that dies, fails a check or stops making progress.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <poll.h>
#include <sys/wait.h>
#include "qemu/bitops.h"
#include "qemu/host-utils.h"
#include "libvgpu-qtest.h"

#define STEP_TIMEOUT_S      10          /* one operation, settling included */
#define RSS_SLACK           (64 * MiB)
#define RSS_EVERY           32          /* programs between RSS samples */
#define PROGRAM_OPS         48
#define SETTLE_POLLS        64
#define DEFAULT_PROGRAMS    300
#define STREAM_SEQNO_HI     0x5eed57eau     /* high half of stream seqnos */

/* Where the fuzzer puts things (the library's layout, libvgpu-qtest.h). */
#define VRAM_DATA_SIZE      (32 * MiB)
#define SYS_DATA_SIZE       (128 * MiB)
#define PT_AREA_SIZE        (8 * MiB)
#define NR_WINDOWS          24
#define STREAM_WIN_VA       0x7e0000000ull
#define STREAM_WIN_PAGES    4
#define MAX_STREAM_DW       (STREAM_WIN_PAGES * VGPU_PAGE_SIZE_4K / 4)

enum { EXIT_CHECK = 2, EXIT_HANG = 3, EXIT_RSS = 4, EXIT_MIGRATE = 5 };

/* A range of VA some context maps, for commands to aim at. */
typedef struct FuzzWin {
    int ctx;
    uint64_t va;
    uint64_t size;
    uint64_t flags;             /* of its leaves */
} FuzzWin;

typedef struct FuzzCtx {
    bool live;
    bool sys;                   /* its tables in system memory */
    uint64_t root;              /* descriptor */
    GHashTable *tables;         /* (level, VA prefix) -> table descriptor */
    uint64_t stream_pa;         /* 4 pages at STREAM_WIN_VA */
    bool stream_sys;
    uint32_t stream_len;        /* dwords of the stream written last */
} FuzzCtx;

typedef struct Fuzz {
    VGPUTest t;
    uint64_t rng;
    uint64_t seed;
    uint64_t program;
    unsigned op;
    bool verbose;
    pid_t qemu_pid;
    char *dir;
    uint64_t rss_base;
    uint32_t queues;            /* mask of queues set up */
    int queue_ctx[VGPU_NUM_QUEUES];
    FuzzCtx ctx[VGPU_NUM_CONTEXTS];
    FuzzWin win[NR_WINDOWS];
    int nwin;
    uint64_t ops;               /* operations run, for the report */
    /* how deep the programs got, summed over them */
    uint64_t commands;          /* CTR_COMMANDS */
    uint64_t faults;            /* CTR_FAULTS */
    uint64_t walks;             /* CTR_WALKS */
    uint64_t errors[VGPU_QUEUE_ERROR_INDEX + 1];         /* queues in ERROR */
} Fuzz;

/* For the SIGALRM handler: the QEMU to kill and where the run was. */
static Fuzz *alarm_fuzz;
static char alarm_where[96];

/* ------------------------------------------------------------ Random --- */

/* splitmix64: small, fast, and every seed gives a good stream. */
static uint64_t rnd(Fuzz *f)
{
    uint64_t z = (f->rng += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t below(Fuzz *f, uint64_t n)
{
    return n ? rnd(f) % n : 0;
}

static bool chance(Fuzz *f, unsigned percent)
{
    return below(f, 100) < percent;
}

/* Mostly small, sometimes large: 2^k + a little, k below @max_shift. */
static uint64_t rnd_size(Fuzz *f, unsigned max_shift)
{
    uint64_t k = below(f, max_shift + 1);

    return (1ull << k) + (chance(f, 50) ? below(f, 1ull << k) : 0);
}

static uint64_t align_down(uint64_t v, uint64_t a)
{
    return v & ~(a - 1);
}

/* An "interesting" 32-bit register value, or any. */
static uint32_t rnd_reg_value(Fuzz *f)
{
    static const uint32_t vals[] = {
        0, 1, 2, 3, 4, 0x10, 0x1f, 0x40, 0x1000, 0x4000, 0xfff, 0x10000,
        0x400000, 0x7fffffff, 0x80000000, 0xfffffffc, 0xffffffff,
    };

    return chance(f, 60) ? vals[below(f, ARRAY_SIZE(vals))] : rnd(f);
}


/* --------------------------------------------------------- Page tables --- */

static guint u64_hash(gconstpointer v)
{
    uint64_t x = *(const uint64_t *)v;

    return x ^ (x >> 32);
}

static gboolean u64_equal(gconstpointer a, gconstpointer b)
{
    return *(const uint64_t *)a == *(const uint64_t *)b;
}

/* The table of @level covering @va is known by this key. */
static uint64_t table_key(int level, uint64_t va)
{
    return (uint64_t)level << 56 | (va >> VGPU_PT_LEVEL_SHIFT(level + 1));
}

/* Room for @n more tables in the area new tables of @sys come from? */
static bool pt_room(Fuzz *f, bool sys, int n)
{
    uint64_t end = (sys ? SYS_PT : VRAM_PT) + PT_AREA_SIZE;

    return f->t.pt_next[sys] + n * VGPU_PT_SIZE <= end;
}

/*
 * Address of the entry at @level for @va in context @c, creating the
 * tables above it.  The fuzzer remembers the tables it made instead of
 * reading them back, so garbage it wrote over an entry cannot mislead it.
 */
static bool pt_entry_addr(Fuzz *f, int c, uint64_t va, int level,
                          uint64_t *addr, bool *sys)
{
    FuzzCtx *x = &f->ctx[c];
    uint64_t d = x->root;
    int l;

    for (l = VGPU_PT_LEVELS - 2; l >= level; l--) {
        uint64_t key = table_key(l, va);
        uint64_t *known = g_hash_table_lookup(x->tables, &key);

        if (!known) {
            uint64_t parent = (d & VGPU_PTE_ADDR_MASK) +
                              VGPU_PT_INDEX(va, l + 1) * 8;

            if (!pt_room(f, x->sys, 1)) {
                return false;
            }
            known = g_new(uint64_t, 2);
            known[0] = key;
            known[1] = desc(x->sys, pt_alloc(&f->t, x->sys));
            mem_wq(&f->t, d & VGPU_PTE_SYSTEM, parent, known[1]);
            g_hash_table_insert(x->tables, known, known);
        }
        d = known[1];
    }
    *sys = d & VGPU_PTE_SYSTEM;
    *addr = (d & VGPU_PTE_ADDR_MASK) + VGPU_PT_INDEX(va, level) * 8;
    return true;
}

static void pt_write(Fuzz *f, int c, uint64_t va, int level, uint64_t e)
{
    uint64_t addr;
    bool sys;

    if (pt_entry_addr(f, c, va & ((1ull << VGPU_VA_BITS) - 1), level, &addr,
                      &sys)) {
        mem_wq(&f->t, sys, addr, e);
    }
}

/* Leaf permissions: mostly read-write, some read-only, some odd. */
static uint64_t rnd_leaf_flags(Fuzz *f)
{
    switch (below(f, 20)) {
    case 0:
        return VGPU_PTE_VALID | VGPU_PTE_READ;
    case 1:
        return VGPU_PTE_VALID | VGPU_PTE_WRITE;
    case 2:
        return rnd(f) & (VGPU_PTE_VALID | PTE_RWX | VGPU_PTE_ACCESSED |
                         VGPU_PTE_DIRTY);
    case 3:
        return VGPU_PTE_VALID | PTE_RWX;
    default:
        return VGPU_PTE_VALID | PTE_RW;
    }
}

/*
 * Map @pages pages of @page bytes at @va in context @c to data memory
 * (VRAM or RAM) with leaf @flags and remember the window.  A 1 GiB leaf
 * covers all of VRAM or RAM, rings included, so it is read-only: no ring
 * ever holds a dword the fuzzer did not put there.
 */
static void map_window(Fuzz *f, int c, uint64_t va, uint64_t page,
                       uint64_t pages, uint64_t flags)
{
    bool sys = chance(f, 30);
    uint64_t size = page * pages;
    uint64_t area = sys ? SYS_DATA_SIZE : VRAM_DATA_SIZE;
    uint64_t pa = (sys ? SYS_DATA : VRAM_DATA) +
                  align_down(below(f, area - MIN(size, area) + 1), page);
    int level = leaf_level(page);
    uint64_t off, i;

    if (page == VGPU_PAGE_SIZE_1G) {
        pa = 0;
        flags = VGPU_PTE_VALID | VGPU_PTE_READ;
    }
    flags |= sys ? VGPU_PTE_SYSTEM : 0;
    for (off = 0; off < size; off += page) {
        if (page != VGPU_PAGE_SIZE_64K) {
            pt_write(f, c, va + off, level, (pa + off) | flags |
                     (level ? VGPU_PTE_LEAF : 0));
            continue;
        }
        for (i = 0; i < page; i += VGPU_PAGE_SIZE_4K) {
            pt_write(f, c, va + off + i, 0, (pa + off + i) | flags |
                     VGPU_PTE_FRAG64K);
        }
    }
    if (f->nwin < NR_WINDOWS) {
        f->win[f->nwin++] = (FuzzWin) { .ctx = c, .va = va, .size = size,
                                        .flags = flags };
    }
}

static void op_map(Fuzz *f, int c)
{
    static const uint64_t pages[] = { VGPU_PAGE_SIZE_4K, VGPU_PAGE_SIZE_4K,
                                      VGPU_PAGE_SIZE_64K, VGPU_PAGE_SIZE_2M };
    uint64_t page = chance(f, 2) ? VGPU_PAGE_SIZE_1G
                                 : pages[below(f, ARRAY_SIZE(pages))];
    uint64_t n = page >= VGPU_PAGE_SIZE_2M ? 1 : 1 + below(f, 16);
    uint64_t va = ((1 + below(f, 8)) << 32) +
                  align_down(below(f, 64 * MiB), page);

    map_window(f, c, va, page, n, rnd_leaf_flags(f));
}

/* An entry no driver writes, at any level but the root's. */
static void op_pte_garbage(Fuzz *f, int c)
{
    static const uint64_t targets[] = {
        VRAM_PT, VRAM_FAULT_BUF, 64 * MiB, 64 * MiB - VGPU_PAGE_SIZE_4K,
        1ull << 40, SYS_PT, SYS_MSI, 0xfee00000, VGPU_PTE_ADDR_MASK,
    };
    uint64_t va = f->nwin ? f->win[below(f, f->nwin)].va : rnd(f);
    int level = below(f, VGPU_PT_LEVELS - 1);
    uint64_t e;

    switch (below(f, 4)) {
    case 0:
        e = rnd(f);
        break;
    case 1:
        e = targets[below(f, ARRAY_SIZE(targets))] |
            (rnd(f) & 0x1ff) | VGPU_PTE_VALID;
        break;
    case 2:
        e = 0;                  /* unmap */
        break;
    default:
        /* A table as a page (written through), or as a loop. */
        e = desc(false, f->t.pt_next[0] - VGPU_PT_SIZE) | PTE_RW |
            (chance(f, 50) ? VGPU_PTE_LEAF : 0);
        break;
    }
    pt_write(f, c, va, level, e);
}

static void ctx_setup(Fuzz *f, int c)
{
    FuzzCtx *x = &f->ctx[c];
    uint64_t i;

    if (!pt_room(f, false, 8) || !pt_room(f, true, 8)) {
        return;
    }
    x->live = true;
    x->stream_len = 0;
    x->sys = chance(f, 25);
    x->root = desc(x->sys, pt_alloc(&f->t, x->sys));
    g_hash_table_remove_all(x->tables);
    wr64(&f->t, VGPU_CTX_REG(c, VGPU_CTX_ROOT_LO), x->root);
    /* Four read-only pages for its CALL streams, at the end of data. */
    x->stream_sys = chance(f, 30);
    x->stream_pa = (x->stream_sys ? SYS_DATA + SYS_DATA_SIZE
                                  : VRAM_DATA + VRAM_DATA_SIZE) -
                   MiB + c * 64 * KiB;
    for (i = 0; i < STREAM_WIN_PAGES; i++) {
        pt_write(f, c, STREAM_WIN_VA + i * VGPU_PAGE_SIZE_4K, 0,
                 (x->stream_pa + i * VGPU_PAGE_SIZE_4K) | VGPU_PTE_VALID |
                 VGPU_PTE_READ | (x->stream_sys ? VGPU_PTE_SYSTEM : 0));
    }
}

/* ----------------------------------------------------------- Commands --- */

static int rnd_live_ctx(Fuzz *f)
{
    int c = below(f, VGPU_NUM_CONTEXTS), i;

    for (i = 0; i < VGPU_NUM_CONTEXTS; i++) {
        if (f->ctx[(c + i) % VGPU_NUM_CONTEXTS].live) {
            return (c + i) % VGPU_NUM_CONTEXTS;
        }
    }
    return c;
}

/* A window of context @c whose leaves allow @need, if there is one. */
static FuzzWin *rnd_window(Fuzz *f, int c, uint64_t need)
{
    int i, start = below(f, MAX(f->nwin, 1));

    for (i = 0; i < f->nwin; i++) {
        FuzzWin *w = &f->win[(start + i) % f->nwin];

        if (w->ctx == c && (w->flags & need) == need) {
            return w;
        }
    }
    return NULL;
}

/*
 * A VA for *@len bytes aligned to @align for context @c, where its leaves
 * allow @need (VGPU_PTE_READ, _WRITE): mostly inside one of its windows,
 * *@len shrunk to fit; sometimes across a window's end, and sometimes
 * anywhere at all (a fault, mostly).
 */
static uint64_t rnd_range(Fuzz *f, int c, uint64_t *len, uint64_t align,
                          uint64_t need)
{
    FuzzWin *w = chance(f, 97) ? rnd_window(f, c, need | VGPU_PTE_VALID)
                               : NULL;
    uint64_t off;

    if (!w && chance(f, 80)) {
        w = rnd_window(f, c, VGPU_PTE_VALID);   /* a permission fault */
    }
    if (!w || chance(f, 2)) {
        return align_down(chance(f, 10) ? rnd(f)
                                        : below(f, 1ull << VGPU_VA_BITS),
                          align);
    }
    if (chance(f, 5)) {
        /* May run past the window's end. */
        return align_down(w->va + below(f, w->size), align);
    }
    if (*len > w->size) {
        *len = align_down(w->size, MAX(align, 4));
    }
    off = align_down(below(f, w->size - *len + 1), align);
    return w->va + off;
}

static uint64_t rnd_va(Fuzz *f, int c, uint64_t len, uint64_t align,
                       uint64_t need)
{
    return rnd_range(f, c, &len, align, need);
}

/*
 * A GATHER or SCATTER: mostly valid element sizes and bounds, ranges in
 * mapped memory, and half the time indices below the bound written just
 * before it (else whatever the memory holds: INDEX errors).
 */
static void gen_gather(Fuzz *f, GArray *s, int c)
{
    bool scatter = chance(f, 50);
    uint32_t shift = chance(f, 95) ? 2 + below(f, 11) : below(f, 16);
    uint32_t count = chance(f, 95) ? below(f, 512) : rnd(f);
    uint32_t bound = chance(f, 95) ? 1 + below(f, 4096) : rnd(f);
    uint64_t elem = 1ull << MIN(shift, 12), isize = (uint64_t)count * 4;
    uint64_t bsize = bound * elem, psize = count * elem;
    uint64_t index = rnd_range(f, c, &isize, 4, VGPU_PTE_READ);
    uint64_t base = rnd_range(f, c, &bsize, elem,
                              scatter ? VGPU_PTE_WRITE : VGPU_PTE_READ);
    uint64_t packed = rnd_range(f, c, &psize, elem,
                                scatter ? VGPU_PTE_READ : VGPU_PTE_WRITE);
    uint32_t flags = shift << VGPU_GATHER_FLAG_ELEM_SHIFT_SHIFT;
    uint32_t idx[64], n = MIN(count, ARRAY_SIZE(idx)), i;

    if (chance(f, 50) && n) {
        for (i = 0; i < n; i++) {
            idx[i] = chance(f, 98) ? below(f, bound) : rnd(f);
        }
        st_write(s, index, idx, n);
        count = n;
    }
    if (!scatter && chance(f, 20)) {
        flags |= VGPU_GATHER_FLAG_NODST;
    }
    if (chance(f, 3)) {
        flags ^= 1u << below(f, 8);
    }
    st_gather(s, scatter ? VGPU_OP_SCATTER : VGPU_OP_GATHER,
              flags & 0xff, index, base, count, bound, packed);
}

/* A TILE: small grids in mapped memory, sometimes odd fields. */
static void gen_tile(Fuzz *f, GArray *s, int c)
{
    uint32_t mode = chance(f, 95) ? below(f, 2) : below(f, 4);
    uint32_t access = below(f, 4);
    uint32_t radius = mode == VGPU_TILE_STENCIL ? 1 + below(f, 7) : 0;
    uint32_t width = VGPU_TOUCH_LINE * (1 + below(f, 16));
    uint32_t across = 1 + below(f, 8), down = 1 + below(f, 8);
    uint32_t pitch = across * width + VGPU_TOUCH_LINE * below(f, 4);
    uint32_t height = 1 + below(f, 16), flags;
    uint64_t size = (uint64_t)down * height * pitch, va;

    if (chance(f, 3)) {
        radius = below(f, 8);
    }
    flags = mode << VGPU_TILE_FLAG_MODE_SHIFT |
            access << VGPU_TILE_FLAG_ACCESS_SHIFT |
            (chance(f, 50) ? VGPU_TILE_FLAG_COLUMNS : 0) |
            radius << VGPU_TILE_FLAG_RADIUS_SHIFT;
    va = rnd_range(f, c, &size, VGPU_TOUCH_LINE,
                   access == VGPU_TOUCH_READ ? VGPU_PTE_READ :
                   access == VGPU_TOUCH_WRITE ? VGPU_PTE_WRITE :
                   access == VGPU_TOUCH_EXEC ? VGPU_PTE_EXEC : PTE_RW);
    if (chance(f, 3)) {
        pitch = rnd(f);
    }
    if (chance(f, 3)) {
        height = chance(f, 50) ? 0 : 1 + below(f, 4096);   /* long */
    }
    st_tile(s, flags, va, pitch, width, height, across, down, below(f, 3));
}

/*
 * Append one command for a queue of context @c: mostly a valid one aimed
 * at mapped memory, sometimes with odd sizes, flags or lengths, sometimes
 * garbage.  FENCE seqnos of streams have STREAM_SEQNO_HI as high half.
 */
static void gen_cmd(Fuzz *f, GArray *s, int c, bool in_stream)
{
    uint32_t data[64], n, i;
    uint64_t size, src, dst, seqno;

    switch (below(f, 28)) {
    case 0:
        st_nop(s, 1 + below(f, 8));
        break;
    case 1: case 2: case 3:
        size = rnd_size(f, chance(f, 2) ? 26 : 16);
        src = rnd_range(f, c, &size, 1, VGPU_PTE_READ);
        dst = rnd_range(f, c, &size, 1, VGPU_PTE_WRITE);
        st_copy(s, src, dst, size);
        break;
    case 4: case 5:
        size = align_down(rnd_size(f, 17), 4);
        dst = rnd_range(f, c, &size, 4, VGPU_PTE_WRITE);
        st_fill(s, dst, size, rnd(f));
        break;
    case 6: case 7:
        n = 1 + below(f, ARRAY_SIZE(data));
        for (i = 0; i < n; i++) {
            data[i] = rnd(f);
        }
        st_write(s, rnd_va(f, c, n * 4, 4, VGPU_PTE_WRITE), data, n);
        break;
    case 8: case 9: case 10:
        /* In a stream mostly a user's fence: no IRQ, no NOWRITE. */
        seqno = in_stream ? (uint64_t)STREAM_SEQNO_HI << 32 | (uint32_t)rnd(f)
                          : below(f, 1 << 20);
        st_fence(s, chance(f, in_stream ? 20 : 60) ? 1 + below(f, 3) : 0,
                 rnd_va(f, c, 8, 8, VGPU_PTE_WRITE), seqno);
        break;
    case 11:
        /* Mostly satisfied at once, sometimes never. */
        st_wait(s, rnd_va(f, c, 8, 8, VGPU_PTE_READ),
                chance(f, 80) ? 0 : rnd(f));
        break;
    case 12:
        st_timestamp(s, 0, rnd_va(f, c, 8, 8, VGPU_PTE_WRITE));
        break;
    case 13: case 14: case 15:
        size = chance(f, 3) ? below(f, 2 * VGPU_TOUCH_LINE)
                            : VGPU_TOUCH_LINE * rnd_size(f, 12);
        n = chance(f, 3) ? 3 : below(f, 3);         /* pattern */
        i = below(f, 4);                            /* access */
        dst = rnd_range(f, c, &size, VGPU_TOUCH_LINE,
                        i == VGPU_TOUCH_READ ? VGPU_PTE_READ :
                        i == VGPU_TOUCH_WRITE ? VGPU_PTE_WRITE :
                        i == VGPU_TOUCH_EXEC ? VGPU_PTE_EXEC : PTE_RW);
        /* Launch width: the device's, or any field (above 9: refused). */
        st_touch_lanes(s, chance(f, 50) ? 0 : below(f, 16), n, i, dst, size,
                       chance(f, 3) ? below(f, 256)
                                    : VGPU_TOUCH_LINE * (1 + below(f, 64)),
                       chance(f, 3) ? 0 : 1 + below(f, 2048), rnd(f),
                       below(f, 3));
        break;
    case 16: case 17:
        size = rnd_size(f, 16) - chance(f, 10);
        src = rnd_range(f, c, &size, 1, VGPU_PTE_READ);
        st_checksum(s, src, size, rnd_va(f, c, 8, 8, VGPU_PTE_WRITE));
        break;
    case 18: case 19: case 20:
        /* Mostly the stream op_call() wrote last, again. */
        n = f->ctx[c].stream_len;
        if (!n || chance(f, 20)) {
            n = chance(f, 95) ? 1 + below(f, MAX_STREAM_DW)
                              : (chance(f, 50) ? 0 : rnd(f));
        }
        st_call(s, chance(f, 95) ? STREAM_WIN_VA
                                 : rnd_va(f, c, 4, 4, VGPU_PTE_READ), n);
        break;
    case 21: case 22:
        gen_gather(f, s, c);
        break;
    case 23:
        gen_tile(f, s, c);
        break;
    case 24:
        /* Mostly short, sometimes seconds; a bad length or flag at times. */
        st_compute(s, chance(f, 10) ? 1 + below(f, 0xff) : 0,
                   chance(f, 10) ? 1 + below(f, 4) : VGPU_COMPUTE_LEN,
                   chance(f, 80) ? below(f, 100000) : rnd(f));
        break;
    default:
        if (chance(f, 60)) {
            st_nop(s, 1 + below(f, 4));
            break;
        }
        /* Garbage: a random header, mostly with a small length. */
        n = chance(f, 50) ? 1 + below(f, 12) : 0;
        st_dw(s, n ? ((uint32_t)rnd(f) & ~VGPU_CMD_LEN_MASK) |
                     n << VGPU_CMD_LEN_SHIFT : rnd(f));
        for (i = 1; i < (n ? n : below(f, 12)); i++) {
            st_dw(s, rnd(f));
        }
        break;
    }
}

/* Emit @s into queue @q's ring, where STREAM_SEQNO_HI never appears. */
static void ring_emit(Fuzz *f, int q, GArray *s)
{
    uint32_t i;

    for (i = 0; i < s->len; i++) {
        if (g_array_index(s, uint32_t, i) == STREAM_SEQNO_HI) {
            g_array_index(s, uint32_t, i) ^= 1;
        }
    }
    q_emit_stream(&f->t, q, s);
}

/* Move TAIL and ring the doorbell; sometimes a TAIL out of the ring. */
static void ring_submit(Fuzz *f, int q)
{
    if (chance(f, 3)) {
        qwr(&f->t, q, VGPU_QUEUE_TAIL, rnd_reg_value(f));
        qwr(&f->t, q, VGPU_QUEUE_DOORBELL, 1);
        return;
    }
    q_submit(&f->t, q);
}

static int rnd_queue(Fuzz *f)
{
    int q = below(f, VGPU_NUM_QUEUES), i;

    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        if (f->queues & BIT((q + i) % VGPU_NUM_QUEUES)) {
            return (q + i) % VGPU_NUM_QUEUES;
        }
    }
    return q;
}

static void op_ring(Fuzz *f, int q)
{
    g_autoptr(GArray) s = stream_new();
    int n = 1 + below(f, 8), i;

    for (i = 0; i < n; i++) {
        gen_cmd(f, s, f->queue_ctx[q], false);
    }
    ring_emit(f, q, s);
    ring_submit(f, q);
}

/* A CALL of a stream of random commands in the context's stream pages. */
static void op_call(Fuzz *f, int q)
{
    FuzzCtx *x = &f->ctx[f->queue_ctx[q]];
    g_autoptr(GArray) st = stream_new();
    g_autoptr(GArray) ring = stream_new();
    int n = 1 + below(f, 16), i;
    uint32_t len;

    for (i = 0; i < n && st->len < MAX_STREAM_DW - 80; i++) {
        gen_cmd(f, st, f->queue_ctx[q], true);
    }
    mem_write(&f->t, x->stream_sys, x->stream_pa, st->data, st->len * 4);
    x->stream_len = st->len;
    len = chance(f, 90) ? st->len : 1 + below(f, MAX_STREAM_DW);
    st_call(ring, STREAM_WIN_VA, len);
    ring_emit(f, q, ring);
    ring_submit(f, q);
}

/* ------------------------------------------------------------- Queues --- */

/* Queue @q on context @c: a good ring most of the time, else anything. */
static void queue_setup(Fuzz *f, int q, int c)
{
    static const uint64_t bad_rings[] = {
        0, VRAM_RING, 64 * MiB | VGPU_PTE_VALID,
        (64 * MiB - 4 * KiB) | VGPU_PTE_VALID,
        0xfee00000 | VGPU_PTE_VALID | VGPU_PTE_SYSTEM,
        (1ull << 40) | VGPU_PTE_VALID | VGPU_PTE_SYSTEM,
    };
    static const uint32_t sizes[] = { 0, 2, 4, 0x800, 0x3000, 0x1000,
                                      0x2000, 0x10000, 8 * MiB };

    qwr(&f->t, q, VGPU_QUEUE_CONTROL,
        VGPU_QUEUE_CONTROL_DISABLE | VGPU_QUEUE_CONTROL_RESET);
    f->t.tail[q] = 0;
    f->queues |= BIT(q);
    f->queue_ctx[q] = c;
    if (chance(f, 90)) {
        f->t.ring_sys = chance(f, 20);
        q_init(&f->t, q, c);
        return;
    }
    wr64(&f->t, VGPU_QUEUE_REG(q, VGPU_QUEUE_RING_LO),
         bad_rings[below(f, ARRAY_SIZE(bad_rings))]);
    qwr(&f->t, q, VGPU_QUEUE_RING_SIZE, sizes[below(f, ARRAY_SIZE(sizes))]);
    qwr(&f->t, q, VGPU_QUEUE_CONTEXT, chance(f, 50) ? c : rnd_reg_value(f));
    qwr(&f->t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_ENABLE);
}

static void op_control(Fuzz *f, int q)
{
    static const uint32_t bits[] = {
        VGPU_QUEUE_CONTROL_REPLAY, VGPU_QUEUE_CONTROL_REPLAY,
        VGPU_QUEUE_CONTROL_CANCEL, VGPU_QUEUE_CONTROL_ENABLE,
        VGPU_QUEUE_CONTROL_RESET, VGPU_QUEUE_CONTROL_DISABLE,
        VGPU_QUEUE_CONTROL_RESET | VGPU_QUEUE_CONTROL_ENABLE,
    };
    uint32_t val = chance(f, 10) ? rnd(f) : bits[below(f, ARRAY_SIZE(bits))];

    qwr(&f->t, q, VGPU_QUEUE_CONTROL, val);
    if (val & VGPU_QUEUE_CONTROL_RESET) {
        f->t.tail[q] = 0;
    }
}

/*
 * Service the device as a driver would: consume fault records, answer
 * stalled queues (mostly mapping the page first), restart queues in
 * ERROR.
 */
static void op_service(Fuzz *f)
{
    int q;

    wr(&f->t, VGPU_REG_FAULT_BUF_HEAD, chance(f, 90) ?
       rd(&f->t, VGPU_REG_FAULT_BUF_TAIL) : rnd_reg_value(f));
    wr(&f->t, VGPU_REG_INT_STATUS, ~0u);
    for (q = 0; q < VGPU_NUM_QUEUES; q++) {
        uint32_t state = q_state(&f->t, q);
        int c = f->queue_ctx[q];

        if (!(f->queues & BIT(q))) {
            continue;
        }
        if (state == VGPU_QUEUE_STATE_STALLED) {
            uint32_t info = qrd(&f->t, q, VGPU_QUEUE_FAULT_INFO);

            if (FIELD_GET(info, VGPU_FAULT_INFO_REASON) ==
                VGPU_FAULT_BAD_ADDRESS && chance(f, 90)) {
                qwr(&f->t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_CANCEL);
                continue;       /* nothing to map there */
            }
            if (chance(f, 70)) {
                uint64_t va = rd64(&f->t, VGPU_QUEUE_REG(q,
                                              VGPU_QUEUE_FAULT_VA_LO));

                map_window(f, c, va, VGPU_PAGE_SIZE_4K, 1,
                           VGPU_PTE_VALID | PTE_RWX);
                wr(&f->t, VGPU_REG_INVAL_CMD,
                   VGPU_INVAL_OP_CONTEXT << VGPU_INVAL_CMD_OP_SHIFT |
                   c << VGPU_INVAL_CMD_CTX_SHIFT);
            }
            qwr(&f->t, q, VGPU_QUEUE_CONTROL, chance(f, 85) ?
                VGPU_QUEUE_CONTROL_REPLAY : VGPU_QUEUE_CONTROL_CANCEL);
        } else if (state == VGPU_QUEUE_STATE_ERROR) {
            wr(&f->t, VGPU_REG_ERROR_QUEUES, BIT(q));
            if (chance(f, 60)) {
                qwr(&f->t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_RESET);
                f->t.tail[q] = 0;
            } else if (chance(f, 50)) {
                qwr(&f->t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_ENABLE);
            } else {
                queue_setup(f, q, c);
            }
        }
    }
}

static void op_inval(Fuzz *f)
{
    wr64(&f->t, VGPU_REG_INVAL_VA_LO, chance(f, 50) ? rnd(f) :
         (f->nwin ? f->win[below(f, f->nwin)].va : 0));
    wr64(&f->t, VGPU_REG_INVAL_SIZE_LO, rnd_size(f, chance(f, 5) ? 63 : 24));
    wr(&f->t, VGPU_REG_INVAL_CMD,
       (uint32_t)below(f, 4) << VGPU_INVAL_CMD_OP_SHIFT |
       (uint32_t)below(f, VGPU_NUM_CONTEXTS + 2) << VGPU_INVAL_CMD_CTX_SHIFT);
}

/* ---------------------------------------------------------- Registers --- */

/*
 * A register to write at random.  Ring set-up registers are left to
 * queue_setup(): a ring elsewhere would read dwords the fuzzer does not
 * control (see STREAM_SEQNO_HI).
 */
static uint32_t rnd_reg(Fuzz *f)
{
    static const uint32_t regs[] = {
        VGPU_REG_CONTROL, VGPU_REG_INT_STATUS, VGPU_REG_INT_ENABLE,
        VGPU_REG_FENCE_QUEUES, VGPU_REG_ERROR_QUEUES, VGPU_REG_INVAL_VA_LO,
        VGPU_REG_INVAL_VA_HI, VGPU_REG_INVAL_SIZE_LO, VGPU_REG_INVAL_CMD,
        VGPU_REG_FAULT_BUF_LO, VGPU_REG_FAULT_BUF_HI,
        VGPU_REG_FAULT_BUF_ENTRIES, VGPU_REG_FAULT_BUF_HEAD,
        VGPU_REG_ACCESS_CTR_INDEX, VGPU_REG_ACCESS_CTR_CLEAR,
        VGPU_REG_VISIBLE_BASE_LO, VGPU_REG_VISIBLE_BASE_HI, VGPU_REG_ID,
        VGPU_REG_STATUS, VGPU_REG_FAULT_BUF_TAIL, VGPU_REG_PT_XCHG_ADDR_LO,
        VGPU_REG_PT_XCHG_ADDR_HI, VGPU_REG_PT_XCHG_DATA_LO,
        VGPU_REG_PT_XCHG_DATA_HI,
    };
    uint32_t reg, off;

    switch (below(f, 4)) {
    case 0:
        return VGPU_CTX_REG(below(f, VGPU_NUM_CONTEXTS),
                            4 * below(f, VGPU_CTX_STRIDE / 4));
    case 1:
        reg = VGPU_QUEUE_REG(below(f, VGPU_NUM_QUEUES),
                             4 * below(f, VGPU_QUEUE_STRIDE / 4));
        break;
    case 2:
        reg = 4 * below(f, VGPU_MMIO_SIZE / 4);
        break;
    default:
        return regs[below(f, ARRAY_SIZE(regs))];
    }
    if (reg >= VGPU_QUEUE_BASE &&
        reg < VGPU_QUEUE_BASE + VGPU_NUM_QUEUES * VGPU_QUEUE_STRIDE) {
        off = (reg - VGPU_QUEUE_BASE) % VGPU_QUEUE_STRIDE;
        if (off <= VGPU_QUEUE_RING_SIZE) {
            return reg - off + VGPU_QUEUE_STATUS;
        }
    }
    return reg;
}

static void op_mmio(Fuzz *f)
{
    uint32_t reg = rnd_reg(f);
    uint32_t val = rnd_reg_value(f);

    if (reg == VGPU_REG_CONTROL) {
        val &= chance(f, 90) ? VGPU_CONTROL_COUNTERS_RESET : ~0u;
    }
    if (chance(f, 30)) {
        rd(&f->t, reg);
        return;
    }
    wr(&f->t, reg, val);
    if (reg == VGPU_REG_CONTROL && (val & VGPU_CONTROL_RESET)) {
        memset(f->t.tail, 0, sizeof(f->t.tail));
    }
}

/* CPU writes into data memory: values WAITs read, streams, anything. */
static void op_memw(Fuzz *f)
{
    bool sys = chance(f, 30);
    uint8_t buf[256];
    uint64_t len = 1 + below(f, sizeof(buf)), i;
    uint64_t addr = (sys ? SYS_DATA + below(f, SYS_DATA_SIZE - len)
                         : VRAM_DATA + below(f, VRAM_DATA_SIZE - len));

    for (i = 0; i < len; i++) {
        buf[i] = chance(f, 50) ? 0 : rnd(f);
    }
    mem_write(&f->t, sys, addr, buf, len);
}

/* ------------------------------------------------------------ Checks --- */

static void fuzz_fail(Fuzz *f, int code, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

static void fuzz_fail(Fuzz *f, int code, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "vgpu-fuzz: seed %" PRIu64 " program %" PRIu64
            " op %u: ", f->seed, f->program, f->op);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (f->qemu_pid > 0) {
        kill(f->qemu_pid, SIGKILL);
    }
    _exit(code);
}

/* Arm the step timeout for the step @f is at. */
static void step_alarm(Fuzz *f, unsigned seconds)
{
    snprintf(alarm_where, sizeof(alarm_where), "vgpu-fuzz: seed %" PRIu64
             " program %" PRIu64 " op %u: ", f->seed, f->program, f->op);
    alarm(seconds);
}

static void on_alarm(int sig)
{
    static const char msg[] = "the step did not finish in time: QEMU hangs\n";

    if (write(2, alarm_where, strlen(alarm_where)) < 0 ||
        write(2, msg, sizeof(msg) - 1) < 0) {
        /* nothing more to do */
    }
    if (alarm_fuzz && alarm_fuzz->qemu_pid > 0) {
        kill(alarm_fuzz->qemu_pid, SIGKILL);
    }
    _exit(EXIT_HANG);
}

/*
 * Give the engine time to finish what the last operation started: poll
 * until no queue set up is RUNNING and no invalidation is pending, for at
 * most SETTLE_POLLS rounds (a long command may go on meanwhile).
 */
static void settle(Fuzz *f)
{
    int i, q;

    for (i = 0; i < SETTLE_POLLS; i++) {
        bool busy = rd(&f->t, VGPU_REG_INVAL_REQ_SEQNO) !=
                    rd(&f->t, VGPU_REG_INVAL_DONE_SEQNO);

        for (q = 0; q < VGPU_NUM_QUEUES && !busy; q++) {
            busy = (f->queues & BIT(q)) &&
                   q_state(&f->t, q) == VGPU_QUEUE_STATE_RUNNING;
        }
        if (!busy) {
            return;
        }
    }
}

/* What the device must keep true whatever it was fed. */
static void check_invariants(Fuzz *f)
{
    uint32_t req = rd(&f->t, VGPU_REG_INVAL_REQ_SEQNO);
    uint32_t done = rd(&f->t, VGPU_REG_INVAL_DONE_SEQNO);
    uint32_t entries = rd(&f->t, VGPU_REG_FAULT_BUF_ENTRIES);
    uint32_t tail = rd(&f->t, VGPU_REG_FAULT_BUF_TAIL);
    int q;

    if (rd(&f->t, VGPU_REG_ID) != VGPU_ID_MAGIC ||
        !(rd(&f->t, VGPU_REG_STATUS) & VGPU_STATUS_READY)) {
        fuzz_fail(f, EXIT_CHECK, "device lost its ID or READY");
    }
    if (req - done > VGPU_INVAL_QUEUE_DEPTH) {
        fuzz_fail(f, EXIT_CHECK, "%u invalidations pending", req - done);
    }
    if (is_power_of_2(entries) && entries >= VGPU_FAULT_BUF_ENTRIES_MIN &&
        entries <= VGPU_FAULT_BUF_ENTRIES_MAX && tail >= entries) {
        fuzz_fail(f, EXIT_CHECK, "fault TAIL %u of %u entries", tail,
                  entries);
    }
    for (q = 0; q < VGPU_NUM_QUEUES; q++) {
        uint32_t st = qrd(&f->t, q, VGPU_QUEUE_STATUS);
        uint32_t state = FIELD_GET(st, VGPU_QUEUE_STATUS_STATE);
        uint32_t size = qrd(&f->t, q, VGPU_QUEUE_RING_SIZE);
        uint32_t head = qrd(&f->t, q, VGPU_QUEUE_HEAD);
        uint64_t fence = rd64(&f->t, VGPU_QUEUE_REG(q, VGPU_QUEUE_FENCE_LO));

        if (state > VGPU_QUEUE_STATE_ERROR ||
            FIELD_GET(st, VGPU_QUEUE_STATUS_ERROR) >
            VGPU_QUEUE_ERROR_INDEX) {
            fuzz_fail(f, EXIT_CHECK, "queue %d status 0x%x", q, st);
        }
        if (state != VGPU_QUEUE_STATE_DISABLED &&
            state != VGPU_QUEUE_STATE_ERROR &&
            (!is_power_of_2(size) || head >= size || head % 4 ||
             qrd(&f->t, q, VGPU_QUEUE_CONTEXT) >= VGPU_NUM_CONTEXTS)) {
            fuzz_fail(f, EXIT_CHECK, "queue %d enabled (status 0x%x) with "
                      "HEAD 0x%x in a ring of 0x%x", q, st, head, size);
        }
        if (fence >> 32 == STREAM_SEQNO_HI) {
            fuzz_fail(f, EXIT_CHECK, "queue %d: QUEUE_FENCE 0x%" PRIx64
                      " came from a CALL stream", q, fence);
        }
    }
}

static uint64_t qemu_rss(Fuzz *f)
{
    g_autofree char *path = g_strdup_printf("/proc/%d/status", f->qemu_pid);
    g_autofree char *text = NULL;
    const char *at = NULL;

    if (g_file_get_contents(path, &text, NULL, NULL)) {
        at = strstr(text, "VmRSS:");
    }
    if (!at) {
        fuzz_fail(f, EXIT_CHECK, "cannot read %s", path);
    }
    return g_ascii_strtoull(at + strlen("VmRSS:"), NULL, 10) * KiB;
}

static void check_rss(Fuzz *f)
{
    uint64_t rss = qemu_rss(f);

    if (!f->rss_base) {
        f->rss_base = rss;
    } else if (rss > f->rss_base + RSS_SLACK) {
        fuzz_fail(f, EXIT_RSS, "QEMU grew from %" PRIu64 " to %" PRIu64
                  " MiB", f->rss_base / MiB, rss / MiB);
    }
}

/* ----------------------------------------------------------- Programs --- */

/* Add what the last program did to the totals (reset clears counters). */
static void program_count(Fuzz *f)
{
    int q;

    f->commands += ctr(&f->t, -1, VGPU_CTR_COMMANDS);
    f->faults += ctr(&f->t, -1, VGPU_CTR_FAULTS);
    f->walks += ctr(&f->t, -1, VGPU_CTR_WALKS);
    for (q = 0; q < VGPU_NUM_QUEUES; q++) {
        if (q_state(&f->t, q) == VGPU_QUEUE_STATE_ERROR) {
            f->errors[MIN(q_error(&f->t, q), VGPU_QUEUE_ERROR_INDEX)]++;
        }
    }
}

static void print_counts(Fuzz *f)
{
    static const char *const names[] = {
        "none", "opcode", "length", "ring", "ring-dma", "context",
        "cancelled", "argument", "call-nested", "privilege", "index",
    };
    g_autoptr(GString) e = g_string_new("");
    int i;

    for (i = 0; i < ARRAY_SIZE(names); i++) {
        g_string_append_printf(e, " %s %" PRIu64, names[i], f->errors[i]);
    }
    printf("# seed %" PRIu64 ": %" PRIu64 " commands completed, %" PRIu64
           " faults, %" PRIu64 " walks; queues ending in ERROR:%s; QEMU RSS "
           "%" PRIu64 " MiB from %" PRIu64 "\n", f->seed, f->commands,
           f->faults, f->walks, e->str, qemu_rss(f) / MiB, f->rss_base / MiB);
    fflush(stdout);
}

/* Back to power-on: the device reset, and the fuzzer's model with it. */
static void program_reset(Fuzz *f)
{
    int c;

    wr(&f->t, VGPU_REG_CONTROL, VGPU_CONTROL_RESET);
    f->t.pt_next[0] = VRAM_PT;
    f->t.pt_next[1] = SYS_PT;
    memset(f->t.tail, 0, sizeof(f->t.tail));
    for (c = 0; c < VGPU_NUM_CONTEXTS; c++) {
        f->ctx[c].live = false;
        g_hash_table_remove_all(f->ctx[c].tables);
    }
    f->nwin = 0;
    f->queues = 0;
}

/* Contexts with mappings, a fault buffer and queues: mostly valid. */
static void program_setup(Fuzz *f)
{
    int n, i;

    if (chance(f, 90)) {
        fault_buf_init(&f->t, 16 << below(f, 5));
    }
    if (chance(f, 20)) {
        /* In system memory instead, behind the MSI-X targets. */
        wr64(&f->t, VGPU_REG_FAULT_BUF_LO, desc(true, SYS_MSI + MiB));
        wr(&f->t, VGPU_REG_FAULT_BUF_ENTRIES, 64);
    }
    wr(&f->t, VGPU_REG_INT_ENABLE, chance(f, 80) ? ~0u : rnd_reg_value(f));
    n = 1 + below(f, 3);
    for (i = 0; i < n; i++) {
        int c = below(f, VGPU_NUM_CONTEXTS), m = 3 + below(f, 5);

        ctx_setup(f, c);
        while (f->ctx[c].live && m--) {
            op_map(f, c);
        }
    }
    n = 1 + below(f, 3);
    for (i = 0; i < n; i++) {
        queue_setup(f, below(f, VGPU_NUM_QUEUES), rnd_live_ctx(f));
    }
}

/* One random operation; true if it may have started work. */
static bool program_op(Fuzz *f)
{
    int q = rnd_queue(f);

    switch (below(f, 100)) {
    case 0 ... 29:
        op_ring(f, q);
        return true;
    case 30 ... 44:
        op_call(f, q);
        return true;
    case 45 ... 50:
        op_map(f, rnd_live_ctx(f));
        return false;
    case 51 ... 53:
        op_pte_garbage(f, rnd_live_ctx(f));
        return false;
    case 54 ... 67:
        op_service(f);
        return true;
    case 68 ... 71:
        op_control(f, q);
        return true;
    case 72 ... 75:
        op_inval(f);
        return true;
    case 76 ... 84:
        op_mmio(f);
        return true;
    case 85 ... 87:
        queue_setup(f, below(f, VGPU_NUM_QUEUES), rnd_live_ctx(f));
        return false;
    case 88 ... 91:
        qtest_clock_step(f->t.qts, rnd_size(f, 30));
        return true;
    case 92 ... 96:
        op_memw(f);
        return false;
    default:
        if (chance(f, 50)) {
            ctx_setup(f, below(f, VGPU_NUM_CONTEXTS));
        } else {
            wr64(&f->t, VGPU_CTX_REG(below(f, VGPU_NUM_CONTEXTS),
                                     VGPU_CTX_ROOT_LO),
                 chance(f, 50) ? 0 : rnd(f));
        }
        return false;
    }
}

/* Program @p of the seed: its operations come from (seed, p) alone. */
static void program_run(Fuzz *f, uint64_t p)
{
    f->program = p;
    f->rng = f->seed * 0x2545f4914f6cdd1dull + p * 0x9e3779b97f4a7c15ull;
    f->op = 0;
    step_alarm(f, STEP_TIMEOUT_S);
    program_reset(f);
    program_setup(f);
    for (f->op = 1; f->op <= PROGRAM_OPS; f->op++) {
        step_alarm(f, STEP_TIMEOUT_S);
        if (f->verbose) {
            fprintf(stderr, "program %" PRIu64 " op %u\n", p, f->op);
        }
        if (program_op(f)) {
            settle(f);
            if (chance(f, 60)) {
                op_service(f);  /* a driver answers at once, mostly */
                settle(f);
            }
        }
        f->ops++;
    }
    step_alarm(f, STEP_TIMEOUT_S);
    check_invariants(f);
    program_count(f);
    alarm(0);
}

/* ------------------------------------------------------------ Workers --- */

/*
 * The device's properties for a seed: the default TLBs, or tiny ones
 * that evict all the time; strict mode (re-walks on every hit); the
 * deterministic mode (faults published at quiescence, REPLAYs held):
 * each for every fourth seed.
 */
static const char *fuzz_props(uint64_t seed)
{
    static const char *const props[] = {
        "vram_size=64M",
        "vram_size=64M,tlb_l1_sets=1,tlb_l1_ways=1,tlb_l2_sets=2,"
        "tlb_l2_ways=1",
        "vram_size=64M,strict=on",
        "vram_size=64M,deterministic=on",
    };

    return props[seed % ARRAY_SIZE(props)];
}

static void fuzz_start(Fuzz *f)
{
    g_autofree char *pidfile = g_strdup_printf("%s/qemu.pid", f->dir);
    g_autofree char *extra = g_strdup_printf("-mem-prealloc -pidfile %s%s",
                                             pidfile, f->verbose ?
                                             " -d guest_errors" : "");
    g_autofree char *pid = NULL;
    int c;

    vgpu_test_launch(&f->t, fuzz_props(f->seed), extra);
    vgpu_attach(&f->t);
    g_assert(g_file_get_contents(pidfile, &pid, NULL, NULL));
    f->qemu_pid = atoi(pid);
    alarm_fuzz = f;
    if (f->seed & 1) {
        msix_setup(&f->t);      /* MSI-X for odd seeds, INTx for even */
    }
    /* Touch all of VRAM up front, so that RSS only grows by leaks. */
    qtest_memset(f->t.qts, f->t.vram.addr, 0, 64 * MiB);
    for (c = 0; c < VGPU_NUM_CONTEXTS; c++) {
        f->ctx[c].tables = g_hash_table_new_full(u64_hash, u64_equal, NULL,
                                                 g_free);
    }
}

static void fuzz_stop(Fuzz *f)
{
    int c;

    alarm(0);
    vgpu_test_stop(&f->t);
    for (c = 0; c < VGPU_NUM_CONTEXTS; c++) {
        g_hash_table_destroy(f->ctx[c].tables);
    }
    f->qemu_pid = 0;
}

/*
 * The state the programs left must migrate: save it from the running
 * device and load it into a fresh QEMU, which must accept it.
 */
static void check_migration(Fuzz *f)
{
    g_autofree char *file = g_strdup_printf("%s/state", f->dir);
    gint64 end = g_get_monotonic_time() + MIG_TIMEOUT_S * G_USEC_PER_SEC;
    VGPUTest d;
    int i;

    step_alarm(f, 60);
    if (!vgpu_migrate_to_file(f->t.qts, file)) {
        fuzz_fail(f, EXIT_MIGRATE, "saving the state failed");
    }
    vgpu_test_launch(&d, fuzz_props(f->seed), "-incoming defer");
    qtest_set_expected_status(d.qts, 1);
    vgpu_migrate_from_file(d.qts, file, true);
    for (;;) {
        QDict *rsp;
        bool running;

        if (!qtest_probe_child(d.qts)) {
            fuzz_fail(f, EXIT_MIGRATE, "the destination refused the state "
                      "(its message is above)");
        }
        rsp = qtest_qmp(d.qts, "{ 'execute': 'query-status' }");
        running = !strcmp(qdict_get_str(qdict_get_qdict(rsp, "return"),
                                        "status"), "running");
        qobject_unref(rsp);
        if (running) {
            break;
        }
        if (g_get_monotonic_time() > end) {
            fuzz_fail(f, EXIT_MIGRATE, "the destination did not start");
        }
        g_usleep(10 * 1000);
    }
    qtest_set_expected_status(d.qts, 0);
    vgpu_attach(&d);
    for (i = 0; i < 20; i++) {
        /* The engine goes on with the loaded work meanwhile. */
        g_assert_cmphex(rd(&d, VGPU_REG_ID), ==, VGPU_ID_MAGIC);
        g_usleep(5 * 1000);
    }
    vgpu_test_stop(&d);
    unlink(file);
    alarm(0);
}

/*
 * Run programs [from, from + programs) of @seed, reporting progress on
 * @fd ("P programs ops" lines) until done or past @deadline (0: none).
 */
static int fuzz_seed(uint64_t seed, uint64_t from, uint64_t programs,
                     gint64 deadline, bool verbose, int fd)
{
    struct sigaction sa = { .sa_handler = on_alarm };
    Fuzz *f = g_new0(Fuzz, 1);
    uint64_t p;

    f->seed = seed;
    f->verbose = verbose;
    f->dir = g_dir_make_tmp("vgpu-fuzz-XXXXXX", NULL);
    sigaction(SIGALRM, &sa, NULL);
    fuzz_start(f);
    for (p = from; p < from + programs; p++) {
        if (deadline && g_get_monotonic_time() > deadline) {
            break;
        }
        program_run(f, p);
        if ((p - from) % RSS_EVERY == 0) {
            check_rss(f);
        }
        if (fd >= 0) {
            dprintf(fd, "P %" PRIu64 " %" PRIu64 "\n", p - from + 1, f->ops);
        }
    }
    check_rss(f);
    check_migration(f);
    print_counts(f);
    fuzz_stop(f);
    rmdir(f->dir);
    return 0;
}

/* ------------------------------------------------------- Supervisor --- */

typedef struct SeedResult {
    uint64_t programs;
    uint64_t ops;
    bool ok;
    char what[96];
} SeedResult;

/*
 * Run @seed in a child process and wait for it.  A child that makes no
 * progress for twice the step timeout is killed (its own alarm should
 * have fired first).
 */
static void run_child(uint64_t seed, uint64_t programs, gint64 deadline,
                      SeedResult *r)
{
    int fds[2], status;
    gint64 last;
    char buf[256];
    size_t have = 0;
    pid_t pid;

    memset(r, 0, sizeof(*r));
    g_assert(!pipe(fds));
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    g_assert(pid >= 0);
    if (!pid) {
        close(fds[0]);
        _exit(fuzz_seed(seed, 0, programs, deadline, false, fds[1]));
    }
    close(fds[1]);
    last = g_get_monotonic_time();
    for (;;) {
        struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
        ssize_t n;
        char *nl;

        if (poll(&pfd, 1, 1000) <= 0) {
            if (g_get_monotonic_time() - last >
                2 * STEP_TIMEOUT_S * G_USEC_PER_SEC + 60 * G_USEC_PER_SEC) {
                kill(pid, SIGKILL);
                snprintf(r->what, sizeof(r->what), "no progress");
            }
            continue;
        }
        n = read(fds[0], buf + have, sizeof(buf) - 1 - have);
        if (n <= 0) {
            break;
        }
        have += n;
        buf[have] = 0;
        while ((nl = strchr(buf, '\n'))) {
            *nl = 0;
            sscanf(buf, "P %" SCNu64 " %" SCNu64, &r->programs, &r->ops);
            have -= nl + 1 - buf;
            memmove(buf, nl + 1, have + 1);
            last = g_get_monotonic_time();
        }
    }
    close(fds[0]);
    g_assert(waitpid(pid, &status, 0) == pid);
    if (WIFEXITED(status) && !WEXITSTATUS(status)) {
        r->ok = !r->what[0];
        return;
    }
    if (r->what[0]) {
        return;
    }
    if (WIFSIGNALED(status)) {
        snprintf(r->what, sizeof(r->what), "died of signal %d (QEMU crashed "
                 "or libqtest aborted, see above)", WTERMSIG(status));
    } else {
        static const char *const why[] = {
            [EXIT_CHECK] = "a device invariant broke",
            [EXIT_HANG] = "QEMU hung",
            [EXIT_RSS] = "QEMU grew",
            [EXIT_MIGRATE] = "the reached state did not migrate",
        };
        int code = WEXITSTATUS(status);

        snprintf(r->what, sizeof(r->what), "%s (exit %d)",
                 code < ARRAY_SIZE(why) && why[code] ? why[code] : "failed",
                 code);
    }
}

/* --tap: one TAP line per seed. */
static int run_tap(const char *seeds, uint64_t programs)
{
    g_auto(GStrv) list = g_strsplit(seeds, ",", -1);
    int i, n = g_strv_length(list), failed = 0;

    printf("1..%d\n", n);
    for (i = 0; i < n; i++) {
        uint64_t seed = g_ascii_strtoull(list[i], NULL, 0);
        gint64 start = g_get_monotonic_time();
        SeedResult r;
        double secs;

        run_child(seed, programs, 0, &r);
        secs = (g_get_monotonic_time() - start) / 1e6;
        if (r.ok) {
            printf("ok %d vgpu-fuzz seed %" PRIu64 ": %" PRIu64 " programs, "
                   "%" PRIu64 " operations, %.1f exec/s\n", i + 1, seed,
                   r.programs, r.ops, r.programs / secs);
        } else {
            failed++;
            printf("not ok %d vgpu-fuzz seed %" PRIu64 ": %s after %" PRIu64
                   " programs (replay: vgpu-fuzz --seed %" PRIu64
                   " --programs %" PRIu64 ")\n", i + 1, seed, r.what,
                   r.programs, seed, MIN(r.programs + 1, programs));
        }
        fflush(stdout);
    }
    return failed ? 1 : 0;
}

/* --seconds: seeds from @seed on until @seconds passed. */
static int run_timed(uint64_t seed, double seconds, uint64_t programs)
{
    gint64 start = g_get_monotonic_time();
    gint64 deadline = start + seconds * G_USEC_PER_SEC;
    g_autoptr(GString) found = g_string_new("");
    uint64_t total = 0, ops = 0, seeds = 0;
    double secs;

    printf("vgpu-fuzz: seeds from %" PRIu64 ", %.0f s, up to %" PRIu64
           " programs of %d operations per seed\n", seed, seconds, programs,
           PROGRAM_OPS);
    while (g_get_monotonic_time() < deadline) {
        SeedResult r;

        run_child(seed, programs, deadline, &r);
        total += r.programs;
        ops += r.ops;
        seeds++;
        if (!r.ok) {
            g_string_append_printf(found, "  seed %" PRIu64 ": %s after %"
                                   PRIu64 " programs (replay: vgpu-fuzz "
                                   "--seed %" PRIu64 " --programs %" PRIu64
                                   ")\n", seed, r.what, r.programs, seed,
                                   MIN(r.programs + 1, programs));
        }
        printf("vgpu-fuzz: seed %" PRIu64 ": %" PRIu64 " programs, %s\n",
               seed, r.programs, r.ok ? "ok" : r.what);
        fflush(stdout);
        seed++;
    }
    secs = (g_get_monotonic_time() - start) / 1e6;
    printf("vgpu-fuzz: %" PRIu64 " programs (%" PRIu64 " operations) from "
           "%" PRIu64 " seeds in %.1f s: %.1f exec/s, %.0f operations/s\n",
           total, ops, seeds, secs, total / secs, ops / secs);
    printf("vgpu-fuzz: found: %s\n%s", found->len ? "" : "nothing",
           found->str);
    return found->len ? 1 : 0;
}

int main(int argc, char **argv)
{
    g_autofree char *seeds = NULL;
    gint64 seed = -1, from = 0, programs = 0;
    gboolean tap = false, verbose = false, keep = false;
    double seconds = 0;
    GOptionEntry entries[] = {
        { "tap", 0, 0, G_OPTION_ARG_NONE, &tap, "TAP, one line per seed",
          NULL },
        { "seeds", 0, 0, G_OPTION_ARG_STRING, &seeds,
          "seeds for --tap (default 1,2,3,4)", "S,S,..." },
        { "seconds", 0, 0, G_OPTION_ARG_DOUBLE, &seconds,
          "fuzz for this long, seed after seed", "T" },
        { "seed", 0, 0, G_OPTION_ARG_INT64, &seed,
          "the (first) seed; alone: replay it in this process", "S" },
        { "from", 0, 0, G_OPTION_ARG_INT64, &from,
          "replay from this program", "P" },
        { "programs", 0, 0, G_OPTION_ARG_INT64, &programs,
          "programs per seed", "N" },
        { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose,
          "name each operation (replay)", NULL },
        { "keep-going", 'k', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &keep,
          "ignored (meson passes it to qtests)", NULL },
        { NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_autoptr(GError) err = NULL;

    g_option_context_set_summary(ctx, "A seeded fuzzer of the vgpu device "
                                 "(QTEST_QEMU_BINARY names QEMU).");
    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "vgpu-fuzz: %s\n", err->message);
        return 2;
    }
    if (programs <= 0) {
        programs = DEFAULT_PROGRAMS;
    }
    if (tap) {
        return run_tap(seeds ? seeds : "1,2,3,4", programs);
    }
    if (seconds > 0) {
        return run_timed(seed >= 0 ? seed : (uint64_t)time(NULL), seconds,
                         programs);
    }
    if (seed < 0) {
        fprintf(stderr, "vgpu-fuzz: --tap, --seconds or --seed (see "
                "--help)\n");
        return 2;
    }
    return fuzz_seed(seed, from, programs, 0, verbose, -1);
}
