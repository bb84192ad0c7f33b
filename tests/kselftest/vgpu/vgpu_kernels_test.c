// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The access kernels GATHER, SCATTER and TILE (hardware.rst "Access
 * kernels") from a user's command stream: GATHER with random indices over
 * a demand-paged BO half as large again as VRAM (every chunk it reaches
 * faults in, VRAM overflows, the data gathered is the CPU's), SCATTER into
 * such a BO checked by the CPU element by element, an index beyond the
 * bound failing the job with -EIO without harming the VM, a TILE checked
 * line by line, and malformed encodings refused.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "vgpu_test_buf.h"
#include "vgpu_test_paging.h"
#include "libvgpu.h"

#define MiB		VGPU_TEST_MiB
#define SEC		(1000ll * 1000 * 1000)
#define ELEM_SHIFT	6			/* 64-byte elements */
#define ELEM		(1u << ELEM_SHIFT)
#define PVA		(1ull << 36)		/* the pageable BO */
#define IDX_VA		(1ull << 35)		/* indices */
#define PACK_VA		((1ull << 35) + (1ull << 30))	/* packed elements */
#define COUNT		4096u

FIXTURE(kernels) {
	struct vgpu_dev dev;
	uint64_t vram;
};

FIXTURE_SETUP(kernels)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	ASSERT_EQ(0, vgpu_get_param(&self->dev, DRM_VGPU_PARAM_VRAM_SIZE, &self->vram));
}

FIXTURE_TEARDOWN(kernels)
{
	vgpu_close(&self->dev);
}

/*
 * The oversubscribing set-up: a demand-paged BO of 1.5x VRAM at PVA
 * filled with pattern(seed), COUNT indices at IDX_VA, COUNT packed
 * elements at PACK_VA (both in system memory).
 */
struct oversub {
	uint64_t size, elems;
	uint32_t h;
	uint64_t *p;
	struct buf idx, pack;
};

/* 1.5x VRAM, at most VRAM + 32 MiB (large VRAM under KASAN takes minutes). */
static uint64_t oversub_size(uint64_t vram)
{
	uint64_t more = vram / 2 < 32 * MiB ? vram / 2 : 32 * MiB;

	return (vram + more + 2 * MiB - 1) & ~(2 * MiB - 1);
}

/* Twice the BO (its pages and the CPU's check) must fit in guest RAM. */
static bool oversub_fits(uint64_t vram)
{
	return oversub_size(vram) * 2 <= mem_total() * 6 / 10;
}

static int oversub_create(struct vgpu_dev *dev, uint64_t vram, uint64_t seed,
			  uint32_t pack_perms, struct oversub *o)
{
	uint64_t i;
	int ret;

	o->size = oversub_size(vram);
	o->elems = o->size / ELEM;
	ret = vgpu_bo_create_pageable(dev, o->size, &o->h, NULL);
	if (!ret)
		ret = vgpu_bo_map(dev, o->h, o->size, (void **)&o->p);
	if (!ret)
		ret = vgpu_vm_map(dev, o->h, 0, PVA, o->size, VGPU_MAP_RW);
	if (!ret)
		ret = buf_create(dev, &o->idx, COUNT * 4, VGPU_PLACE_SYSTEM, IDX_VA,
				 VGPU_MAP_R);
	if (!ret)
		ret = buf_create(dev, &o->pack, COUNT * ELEM, VGPU_PLACE_SYSTEM,
				 PACK_VA, pack_perms);
	if (ret)
		return ret;
	for (i = 0; i < o->size / 8; i++)
		o->p[i] = pattern(seed, i);
	return 0;
}

static void oversub_destroy(struct vgpu_dev *dev, struct oversub *o)
{
	buf_destroy(dev, &o->pack);
	buf_destroy(dev, &o->idx);
	vgpu_bo_unmap(o->p, o->size);
	vgpu_bo_close(dev, o->h);
}

static int run_one(struct vgpu_dev *dev, struct vgpu_cmd *cmd)
{
	return vgpu_run(dev, 0, cmd, 400 * SEC);
}

/*
 * GATHER of COUNT random 64-byte elements of a pageable BO over VRAM:
 * every element the CPU wrote arrives in the packed buffer, the chunks
 * were faulted into VRAM (evicting others), nothing was cancelled, and
 * the VM's counters show the index and element reads.  (Minutes on the
 * debug kernel, where the CPU fills VRAM + 32 MiB first.)
 */
TEST_F_TIMEOUT(kernels, gather_pageable_over_vram, 600)
{
	struct drm_vgpu_query_vm vm0, vm1;
	struct drm_vgpu_query_paging pg;
	uint64_t *got, reads, i, bad = 0;
	struct oversub o;
	struct vgpu_cmd cmd;
	uint32_t *ix;

	if (!oversub_fits(self->vram))
		SKIP(return, "guest RAM too small for the BO over VRAM");
	ASSERT_EQ(0, oversub_create(&self->dev, self->vram, 5, VGPU_MAP_RW, &o));
	ix = o.idx.cpu;
	got = o.pack.cpu;
	srandom(11);
	for (i = 0; i < COUNT; i++)
		ix[i] = (uint32_t)(((uint64_t)random() << 16 ^ random()) % o.elems);
	memset(got, 0, COUNT * ELEM);

	ASSERT_EQ(0, vgpu_query_vm(&self->dev, &vm0));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_gather(&cmd, ELEM_SHIFT, IDX_VA, COUNT, PVA, o.elems, PACK_VA);
	ASSERT_EQ(0, run_one(&self->dev, &cmd));
	vgpu_cmd_fini(&cmd);
	ASSERT_EQ(0, vgpu_query_vm(&self->dev, &vm1));

	for (i = 0; i < COUNT * ELEM / 8; i++) {
		uint64_t want = pattern(5, (uint64_t)ix[i / 8] * (ELEM / 8) + i % 8);

		if (got[i] != want && bad++ < 4)
			TH_LOG("element %llu qword %llu: %#llx, want %#llx",
			       (unsigned long long)i / 8, (unsigned long long)i % 8,
			       (unsigned long long)got[i], (unsigned long long)want);
	}
	EXPECT_EQ(0, bad);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(0, pg.vm.faults_cancelled);
	EXPECT_LE(1, pg.vm.faults_resolved);
	EXPECT_LE(self->vram / 2, pg.vm.bytes_to_vram);
	EXPECT_LE(1, pg.device.evictions);
	EXPECT_EQ(0, vm1.state & DRM_VGPU_VM_STATE_BANNED);
	/*
	 * Index and element reads, plus the stream's fetches; an element
	 * that faulted reads its index again when it resumes.
	 */
	reads = vm1.device[VGPU_CTR_VRAM_READ_BYTES] - vm0.device[VGPU_CTR_VRAM_READ_BYTES] +
		vm1.device[VGPU_CTR_SYS_READ_BYTES] - vm0.device[VGPU_CTR_SYS_READ_BYTES];
	EXPECT_LE((uint64_t)COUNT * (4 + ELEM), reads);
	EXPECT_GE((COUNT + vm1.gpu_faults - vm0.gpu_faults) * (4 + ELEM) + 4096, reads);
	EXPECT_LE((uint64_t)COUNT * ELEM,
		  vm1.device[VGPU_CTR_SYS_WRITE_BYTES] - vm0.device[VGPU_CTR_SYS_WRITE_BYTES]);
	EXPECT_LE(1, vm1.gpu_faults - vm0.gpu_faults);
	TH_LOG("%u elements of %llu MiB: %llu faults resolved, %llu MiB to VRAM, %llu evictions",
	       COUNT, (unsigned long long)(o.size >> 20),
	       (unsigned long long)pg.vm.faults_resolved,
	       (unsigned long long)(pg.vm.bytes_to_vram >> 20),
	       (unsigned long long)pg.device.evictions);
	oversub_destroy(&self->dev, &o);
}

/*
 * SCATTER of COUNT elements to distinct indices spread over a pageable
 * BO over VRAM (oversub_size()): the CPU, reading the BO back (its faults bring the
 * chunks home), finds each scattered element where its index said and
 * every other element as it wrote it.
 */
TEST_F_TIMEOUT(kernels, scatter_pageable_checked_by_cpu, 600)
{
	const uint64_t step = 1000003;	/* prime: coprime to elems */
	struct drm_vgpu_query_paging pg;
	uint64_t *src, e, i, bad = 0;
	uint32_t *ix, *who;
	struct oversub o;
	struct vgpu_cmd cmd;

	if (!oversub_fits(self->vram))
		SKIP(return, "guest RAM too small for the BO over VRAM");
	ASSERT_EQ(0, oversub_create(&self->dev, self->vram, 9, VGPU_MAP_R, &o));
	who = calloc(o.elems, sizeof(*who));
	ASSERT_NE(NULL, who);
	ix = o.idx.cpu;
	src = o.pack.cpu;
	/* elems is 3 x 2^k: a prime step visits COUNT distinct elements. */
	for (i = 0; i < COUNT; i++) {
		ix[i] = (uint32_t)((i * step + 7) % o.elems);
		who[ix[i]] = i + 1;
	}
	for (i = 0; i < COUNT * ELEM / 8; i++)
		src[i] = pattern(77, i);

	vgpu_cmd_init(&cmd);
	vgpu_cmd_scatter(&cmd, ELEM_SHIFT, IDX_VA, COUNT, PVA, o.elems, PACK_VA);
	ASSERT_EQ(0, run_one(&self->dev, &cmd));
	vgpu_cmd_fini(&cmd);

	for (e = 0; e < o.elems; e++) {
		for (i = 0; i < ELEM / 8; i++) {
			uint64_t want = who[e] ? src[(who[e] - 1) * (ELEM / 8) + i]
					       : pattern(9, e * (ELEM / 8) + i);
			uint64_t got = o.p[e * (ELEM / 8) + i];

			if (got != want && bad++ < 4)
				TH_LOG("element %llu qword %llu: %#llx, want %#llx",
				       (unsigned long long)e, (unsigned long long)i,
				       (unsigned long long)got, (unsigned long long)want);
		}
	}
	EXPECT_EQ(0, bad);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(0, pg.vm.faults_cancelled);
	EXPECT_LE(1, pg.vm.faults_resolved);
	EXPECT_LE(1, pg.device.evictions);
	/* The CPU's reads took the dirty chunks back to system memory. */
	EXPECT_LE(2 * MiB, pg.vm.bytes_to_system);
	free(who);
	oversub_destroy(&self->dev, &o);
}

/*
 * An index at the bound stops the GATHER there: the job fails with -EIO
 * (queue error INDEX), the elements before it were gathered, the VM is
 * not banned and its next job runs.
 */
TEST_F(kernels, index_beyond_bound_fails_job)
{
	struct drm_vgpu_query_vm vm;
	struct buf b;
	uint32_t *w;
	uint64_t *q;
	struct vgpu_cmd cmd;
	unsigned int i;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 64 * 1024, VGPU_PLACE_SYSTEM, IDX_VA,
				VGPU_MAP_RW));
	w = b.cpu;
	q = b.cpu;
	memset(b.cpu, 0, 64 * 1024);
	/* Indices at 0, elements at 4 KiB (16 of them), packed at 8 KiB. */
	for (i = 0; i < 8; i++)
		w[i] = i == 5 ? 16 : 15 - i;
	for (i = 0; i < 16 * ELEM / 8; i++)
		q[4096 / 8 + i] = pattern(3, i);
	vgpu_cmd_init(&cmd);
	vgpu_cmd_gather(&cmd, ELEM_SHIFT, IDX_VA, 8, IDX_VA + 4096, 16, IDX_VA + 8192);
	EXPECT_EQ(-EIO, run_one(&self->dev, &cmd));
	for (i = 0; i < 8 * ELEM / 8; i++)
		EXPECT_EQ(i / 8 < 5 ? pattern(3, (15 - i / 8) * 8 + i % 8) : 0,
			  q[8192 / 8 + i]) TH_LOG("qword %u", i);
	ASSERT_EQ(0, vgpu_query_vm(&self->dev, &vm));
	EXPECT_EQ(0, vm.state & DRM_VGPU_VM_STATE_BANNED);
	vgpu_cmd_reset(&cmd);
	w[5] = 15;
	vgpu_cmd_gather(&cmd, ELEM_SHIFT, IDX_VA, 8, IDX_VA + 4096, 16, IDX_VA + 8192);
	EXPECT_EQ(0, run_one(&self->dev, &cmd));
	EXPECT_EQ(pattern(3, 15 * 8), q[8192 / 8 + 5 * 8]);
	vgpu_cmd_fini(&cmd);
	buf_destroy(&self->dev, &b);
}

/*
 * TILE read-modify-write, 3 x 2 tiles of 256 bytes x 4 rows, pitch 1024
 * (a padded matrix), twice: every line of the tiles is 2, the padding 0;
 * then a stencil of radius 1 adds one more to each line.
 */
TEST_F(kernels, tile_and_stencil_lines)
{
	const uint32_t pitch = 1024, width = 256, height = 4, across = 3, down = 2;
	const uint32_t rmw = VGPU_TOUCH_RMW << VGPU_TILE_FLAG_ACCESS_SHIFT;
	struct buf b;
	uint64_t *q, row, col;
	struct vgpu_cmd cmd;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 64 * 1024, VGPU_PLACE_SYSTEM, IDX_VA,
				VGPU_MAP_RW));
	q = b.cpu;
	memset(b.cpu, 0, 64 * 1024);
	vgpu_cmd_init(&cmd);
	vgpu_cmd_tile(&cmd, VGPU_TILE_BLOCK | rmw, IDX_VA, pitch, width, height,
		      across, down, 2);
	vgpu_cmd_tile(&cmd, VGPU_TILE_STENCIL | rmw | VGPU_TILE_FLAG_COLUMNS |
		      1 << VGPU_TILE_FLAG_RADIUS_SHIFT, IDX_VA, pitch, width, height,
		      across, down, 1);
	ASSERT_EQ(0, run_one(&self->dev, &cmd));
	vgpu_cmd_fini(&cmd);
	for (row = 0; row < down * height + 1; row++)
		for (col = 0; col < pitch / 64; col++)
			EXPECT_EQ(row < down * height && col < across * width / 64 ? 3 : 0,
				  q[(row * pitch + col * 64) / 8])
				TH_LOG("row %llu line %llu", (unsigned long long)row,
				       (unsigned long long)col);
	buf_destroy(&self->dev, &b);
}

/* Malformed encodings fail the job with -EIO (ARGUMENT) and run nothing. */
TEST_F(kernels, bad_encodings_fail_job)
{
	struct buf b;
	struct vgpu_cmd cmd;
	unsigned int i;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 64 * 1024, VGPU_PLACE_SYSTEM, IDX_VA,
				VGPU_MAP_RW));
	memset(b.cpu, 0, 64 * 1024);
	for (i = 0; i < 5; i++) {
		vgpu_cmd_init(&cmd);
		switch (i) {
		case 0:		/* 8 KiB elements */
			vgpu_cmd_gather(&cmd, 13, IDX_VA, 1, IDX_VA + 8192, 1, IDX_VA + 16384);
			break;
		case 1:		/* bound 0 */
			vgpu_cmd_scatter(&cmd, 6, IDX_VA, 1, IDX_VA + 8192, 0, IDX_VA + 16384);
			break;
		case 2:		/* base not aligned to the element */
			vgpu_cmd_gather(&cmd, 6, IDX_VA, 1, IDX_VA + 8200, 1, IDX_VA + 16384);
			break;
		case 3:		/* tiles wider than the pitch */
			vgpu_cmd_tile(&cmd, VGPU_TOUCH_WRITE << VGPU_TILE_FLAG_ACCESS_SHIFT,
				      IDX_VA, 128, 128, 1, 2, 1, 1);
			break;
		default:	/* a stencil without a radius */
			vgpu_cmd_tile(&cmd, VGPU_TILE_STENCIL |
				      VGPU_TOUCH_WRITE << VGPU_TILE_FLAG_ACCESS_SHIFT,
				      IDX_VA, 128, 64, 1, 1, 1, 1);
			break;
		}
		EXPECT_EQ(-EIO, run_one(&self->dev, &cmd)) TH_LOG("case %u", i);
		vgpu_cmd_fini(&cmd);
		EXPECT_EQ(0, ((uint64_t *)b.cpu)[0]) TH_LOG("case %u", i);
		EXPECT_EQ(0, ((uint64_t *)b.cpu)[16384 / 8]) TH_LOG("case %u", i);
	}
	buf_destroy(&self->dev, &b);
}

TEST_HARNESS_MAIN
