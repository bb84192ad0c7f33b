// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libvgpu's managed memory (vgpu_malloc_managed(), vgpu_free(),
 * vgpu_mem_prefetch(), vgpu_mem_advise()): one pointer the CPU
 * dereferences and the GPU uses as a VA; CPU writes read by the GPU and
 * GPU writes read by the CPU; twice VRAM in managed memory, every
 * allocation checked; prefetch both ways with the bytes moved and the
 * paging counters; advice; vgpu_free() waiting for a job; vgpu_close()
 * unmapping what is left; and hostile input (zero, overflowing and huge
 * sizes, flags, foreign, interior, double frees, ranges outside an
 * allocation, bad advice and locations).
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"

#define MiB	(1ull << 20)
#define SEC	1000000000ll

FIXTURE(managed) {
	struct vgpu_dev dev;
	struct vgpu_cmd cmd;
};

FIXTURE_SETUP(managed)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	vgpu_cmd_init(&self->cmd);
}

FIXTURE_TEARDOWN(managed)
{
	vgpu_cmd_fini(&self->cmd);
	vgpu_close(&self->dev);
}

static int run(struct vgpu_dev *dev, struct vgpu_cmd *cmd)
{
	int ret = vgpu_run(dev, 0, cmd, 60 * SEC);

	vgpu_cmd_reset(cmd);
	return ret;
}

/* Is [@p, @p + 4 KiB) mapped in this process? */
static int mapped(const void *p)
{
	return !msync((void *)((uintptr_t)p & ~4095ull), 4096, MS_ASYNC);
}

static struct drm_vgpu_paging_counters paging_of(struct vgpu_dev *dev, bool vm)
{
	struct drm_vgpu_query_paging pg;

	memset(&pg, 0, sizeof(pg));
	vgpu_query_paging(dev, &pg);
	return vm ? pg.vm : pg.device;
}

static struct drm_vgpu_paging_counters vm_paging(struct vgpu_dev *dev)
{
	return paging_of(dev, true);
}

/* The GPU reads [@p, @p + @size); the VM's counters before and after. */
static int gpu_read(struct vgpu_dev *dev, struct vgpu_cmd *cmd, const void *p,
		    uint64_t size, struct drm_vgpu_paging_counters *c0,
		    struct drm_vgpu_paging_counters *c1)
{
	int ret;

	*c0 = vm_paging(dev);
	vgpu_cmd_touch(cmd, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, (uintptr_t)p,
		       size, 0, 0, 0, 0);
	ret = run(dev, cmd);
	*c1 = vm_paging(dev);
	return ret;
}

/*
 * Takes [@p, @p + @size) of mirrored memory from the GPU, as any change
 * of the CPU's mapping does (svm.rst): the GPU's next access faults.
 */
static int gpu_unmapped(void *p, uint64_t size)
{
	return mprotect(p, size, PROT_READ) ?:
	       mprotect(p, size, PROT_READ | PROT_WRITE);
}

/*
 * Between @c0 and @c1 a GPU read of a chunk under advice that keeps
 * mirrored memory in place: on pageable BOs (@bo) it moved into VRAM (a
 * copy, or the chunk itself); on mirrors nothing moved, and the fault was
 * served where the memory is.
 */
#define EXPECT_READ_IN_VRAM_OR_IN_PLACE(bo, c0, c1) do {			\
	if (bo) {							\
		EXPECT_LE((c0).bytes_to_vram + 2 * MiB, (c1).bytes_to_vram);	\
	} else {							\
		EXPECT_EQ((c0).bytes_to_vram, (c1).bytes_to_vram);	\
		EXPECT_EQ((c0).remote_maps + 1, (c1).remote_maps);	\
	}								\
} while (0)

TEST_F(managed, one_pointer_cpu_writes_gpu_reads)
{
	uint64_t *sum, n = 4 * MiB / 8, i;
	uint32_t *a;

	ASSERT_EQ(NULL, vgpu_managed_backend(&self->dev));
	ASSERT_EQ(0, vgpu_malloc_managed(&self->dev, 4 * MiB, 0, (void **)&a));
	ASSERT_EQ(0, vgpu_malloc_managed(&self->dev, 8, 0, (void **)&sum));
	/* Mirrored process memory where it migrates, else pageable BOs. */
	ASSERT_STREQ(vgpu_svm_mode(&self->dev) & DRM_VGPU_SVM_VRAM ? "svm" :
		     "pageable-bo", vgpu_managed_backend(&self->dev));
	/* Chunk aligned, a GPU VA as it is, and zeroed. */
	EXPECT_EQ(0, (uintptr_t)a % (2 * MiB));
	EXPECT_GE((uintptr_t)a, self->dev.va_start);
	EXPECT_LT((uintptr_t)a, self->dev.va_end);
	EXPECT_EQ(0, a[12345]);
	for (i = 0; i < n * 2; i++)
		a[i] = (uint32_t)(i * 2654435761u);
	/* The GPU hashes what the CPU wrote, at the same address. */
	vgpu_cmd_checksum(&self->cmd, (uintptr_t)a, 4 * MiB, (uintptr_t)sum);
	ASSERT_EQ(0, run(&self->dev, &self->cmd));
	EXPECT_EQ(vgpu_fnv1a64(a, 4 * MiB), *sum);
	/* The GPU faulted the chunks in: its VM counted the faults. */
	EXPECT_GT(vm_paging(&self->dev).faults, 0);
	EXPECT_EQ(0, vgpu_free(&self->dev, a));
	EXPECT_EQ(0, vgpu_free(&self->dev, sum));
	EXPECT_FALSE(mapped(a));
}

TEST_F(managed, gpu_writes_cpu_reads)
{
	uint32_t *a, *b;
	uint64_t i;

	ASSERT_EQ(0, vgpu_malloc_managed(&self->dev, 3 * MiB, 0, (void **)&a));
	ASSERT_EQ(0, vgpu_malloc_managed(&self->dev, 3 * MiB, 0, (void **)&b));
	a[0] = 1;	/* the CPU first, so the GPU's writes move it back */
	vgpu_cmd_fill(&self->cmd, (uintptr_t)a, 3 * MiB, 0x5a5a0001);
	vgpu_cmd_fill(&self->cmd, (uintptr_t)a + MiB, 4096, 0x77);
	vgpu_cmd_copy(&self->cmd, (uintptr_t)a, (uintptr_t)b, 3 * MiB);
	ASSERT_EQ(0, run(&self->dev, &self->cmd));
	for (i = 0; i < 3 * MiB / 4; i++) {
		uint32_t want = i >= MiB / 4 && i < (MiB + 4096) / 4 ? 0x77 : 0x5a5a0001;

		if (a[i] != want || b[i] != want)
			ASSERT_EQ(want, a[i] != want ? a[i] : b[i]) TH_LOG("word %llu",
									  (unsigned long long)i);
	}
	EXPECT_EQ(0, vgpu_free(&self->dev, b));
	EXPECT_EQ(0, vgpu_free(&self->dev, a));
}

TEST_F_TIMEOUT(managed, twice_vram_every_allocation_checked, 600)
{
	uint64_t total = 2 * self->dev.vram_size, each = 16 * MiB, sum, i;
	unsigned int n = total / each, k;
	struct drm_vgpu_paging_counters c0, c1;
	uint32_t **p = calloc(n, sizeof(*p));
	uint64_t *sums;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, vgpu_malloc_managed(&self->dev, n * 8, 0, (void **)&sums));
	for (k = 0; k < n; k++)
		ASSERT_EQ(0, vgpu_malloc_managed(&self->dev, each, 0, (void **)&p[k]));
	c0 = vm_paging(&self->dev);
	for (k = 0; k < n; k++)
		vgpu_cmd_fill(&self->cmd, (uintptr_t)p[k], each, 0x1000 + k);
	for (k = 0; k < n; k++)
		vgpu_cmd_checksum(&self->cmd, (uintptr_t)p[k], each,
				  (uintptr_t)&sums[k]);
	/* Minutes on the debug kernel, where SVM memory migrates. */
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &self->cmd, 400 * SEC));
	vgpu_cmd_reset(&self->cmd);
	c1 = vm_paging(&self->dev);
	/*
	 * More than VRAM went in: something was evicted on the way, and the
	 * evictions are charged to this VM on both backends (a chunk's to
	 * the VMs mapping it, an SVM block's to the VM that filled it).
	 */
	EXPECT_GE(c1.bytes_to_vram - c0.bytes_to_vram, total);
	EXPECT_GT(c1.evictions, c0.evictions);
	EXPECT_LE(c1.bytes_to_system - c0.bytes_to_system,
		  c1.bytes_to_vram - c0.bytes_to_vram);
	for (k = 0; k < n; k++) {
		uint32_t *w = p[k];

		for (i = 0; i < each / 4; i += 1021)
			ASSERT_EQ(0x1000 + k, w[i]);
		ASSERT_EQ(0x1000 + k, w[each / 4 - 1]);
	}
	/* The CPU's hash of one allocation agrees with the GPU's. */
	sum = vgpu_fnv1a64(p[n / 2], each);
	EXPECT_EQ(sum, sums[n / 2]);
	for (k = 0; k < n; k++)
		ASSERT_EQ(0, vgpu_free(&self->dev, p[k]));
	EXPECT_EQ(0, vgpu_free(&self->dev, sums));
	free(p);
}

TEST_F(managed, prefetch_both_ways_and_advice)
{
	struct drm_vgpu_paging_counters c0, c1;
	uint64_t moved = 0;
	uint32_t *a;
	bool bo;

	ASSERT_EQ(0, vgpu_malloc_managed(&self->dev, 8 * MiB, 0, (void **)&a));
	memset(a, 0x3c, 8 * MiB);
	c0 = vm_paging(&self->dev);
	/* Any range inside, widened to pages. */
	ASSERT_EQ(0, vgpu_mem_prefetch(&self->dev, (char *)a + 100, 4 * MiB,
				       VGPU_MEM_LOC_GPU, &moved));
	/* Chunks of 2 MiB: [100, 4 MiB + 100) touches three. */
	EXPECT_EQ(6 * MiB, moved);
	c1 = vm_paging(&self->dev);
	EXPECT_EQ(6 * MiB, c1.bytes_to_vram - c0.bytes_to_vram);
	EXPECT_EQ(6 * MiB, c1.prefetch_bytes - c0.prefetch_bytes);
	ASSERT_EQ(0, vgpu_mem_prefetch(&self->dev, a, 8 * MiB, VGPU_MEM_LOC_CPU,
				       &moved));
	EXPECT_EQ(6 * MiB, moved);
	EXPECT_EQ(0x3c3c3c3c, a[3 * MiB / 4]);

	/*
	 * Read-mostly, GPU reads of chunk 1: pageable BOs get a VRAM copy
	 * beside the system pages; mirrored memory has one copy, which the
	 * GPU maps where it is.  Either way the CPU then reads without a
	 * move.
	 */
	bo = !strcmp(vgpu_managed_backend(&self->dev), "pageable-bo");
	ASSERT_EQ(0, vgpu_mem_advise(&self->dev, a + MiB / 2, 2 * MiB,
				     VGPU_MEM_ADVISE_SET_READ_MOSTLY, 0));
	/* The prefetches mapped the mirror: make the read fault. */
	if (!bo)
		ASSERT_EQ(0, gpu_unmapped(a + MiB / 2, 2 * MiB));
	ASSERT_EQ(0, gpu_read(&self->dev, &self->cmd, a + MiB / 2, 2 * MiB,
			      &c0, &c1));
	EXPECT_READ_IN_VRAM_OR_IN_PLACE(bo, c0, c1);
	EXPECT_EQ(0x3c3c3c3c, a[MiB / 2 + 17]);
	EXPECT_EQ(c1.bytes_to_system, vm_paging(&self->dev).bytes_to_system);
	EXPECT_EQ(0, vgpu_mem_advise(&self->dev, a + MiB / 2, 2 * MiB,
				     VGPU_MEM_ADVISE_UNSET_READ_MOSTLY, 0));

	/* Preferred location CPU: the GPU's reads map it where it is. */
	EXPECT_EQ(0, vgpu_mem_advise(&self->dev, a, 2 * MiB,
				     VGPU_MEM_ADVISE_SET_PREFERRED_LOCATION,
				     VGPU_MEM_LOC_CPU));
	ASSERT_EQ(0, gpu_read(&self->dev, &self->cmd, a, 2 * MiB, &c0, &c1));
	EXPECT_EQ(c0.bytes_to_vram, c1.bytes_to_vram);
	EXPECT_EQ(c0.remote_maps + 1, c1.remote_maps);
	EXPECT_EQ(0, vgpu_mem_advise(&self->dev, a, 2 * MiB,
				     VGPU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, 0));
	/*
	 * Preferred location GPU: the memory moves now, as a prefetch, the
	 * whole chunk on pageable BOs, the advised pages on mirrors.
	 */
	c0 = vm_paging(&self->dev);
	EXPECT_EQ(0, vgpu_mem_advise(&self->dev, a + 6 * MiB / 4, MiB,
				     VGPU_MEM_ADVISE_SET_PREFERRED_LOCATION,
				     VGPU_MEM_LOC_GPU));
	c1 = vm_paging(&self->dev);
	EXPECT_EQ(c0.bytes_to_vram + (bo ? 2 * MiB : MiB), c1.bytes_to_vram);
	/*
	 * Accessed-by the GPU: mirrored memory is mapped where it is, and a
	 * GPU read of chunk 2 moves nothing; a pageable BO's chunk still
	 * migrates, and is mapped in system memory when it is evicted.
	 */
	EXPECT_EQ(0, vgpu_mem_advise(&self->dev, a, 8 * MiB,
				     VGPU_MEM_ADVISE_SET_ACCESSED_BY, VGPU_MEM_LOC_GPU));
	EXPECT_EQ(0, vgpu_mem_advise(&self->dev, a, 8 * MiB,
				     VGPU_MEM_ADVISE_SET_ACCESSED_BY, VGPU_MEM_LOC_CPU));
	if (!bo)
		ASSERT_EQ(0, gpu_unmapped(a + MiB, 2 * MiB));
	ASSERT_EQ(0, gpu_read(&self->dev, &self->cmd, a + MiB, 2 * MiB, &c0, &c1));
	EXPECT_READ_IN_VRAM_OR_IN_PLACE(bo, c0, c1);
	EXPECT_EQ(0, vgpu_mem_advise(&self->dev, a, 8 * MiB,
				     VGPU_MEM_ADVISE_UNSET_ACCESSED_BY, VGPU_MEM_LOC_GPU));
	/* The data survived all of it. */
	EXPECT_EQ(0x3c3c3c3c, a[0]);
	EXPECT_EQ(0x3c3c3c3c, a[8 * MiB / 4 - 1]);
	EXPECT_EQ(0, vgpu_free(&self->dev, a));
}

TEST_F(managed, free_waits_for_the_gpu)
{
	uint32_t sync, *a;
	uint64_t moved;

	ASSERT_EQ(0, vgpu_malloc_managed(&self->dev, 32 * MiB, 0, (void **)&a));
	ASSERT_EQ(0, vgpu_syncobj_create(&self->dev, &sync));
	vgpu_cmd_fill(&self->cmd, (uintptr_t)a, 32 * MiB, 1);
	vgpu_cmd_fill(&self->cmd, (uintptr_t)a, 32 * MiB, 2);
	ASSERT_EQ(0, vgpu_submit(&self->dev, 0, &self->cmd, NULL, 0, sync));
	ASSERT_EQ(0, vgpu_free(&self->dev, a));
	/* The job ended well: the memory was not taken away under it. */
	EXPECT_EQ(0, vgpu_syncobj_wait(&self->dev, sync, 0));
	EXPECT_EQ(1, vgpu_syncobj_status(&self->dev, sync));
	EXPECT_FALSE(mapped(a));
	/* Gone on the GPU side too: its VA is no longer mapped. */
	EXPECT_EQ(-ENOENT, vgpu_prefetch(&self->dev, (uintptr_t)a, 4096,
					 VGPU_PLACE_VRAM, &moved));
	vgpu_syncobj_destroy(&self->dev, sync);
}

TEST_F(managed, close_frees_what_is_left)
{
	void *a, *b;

	ASSERT_EQ(0, vgpu_malloc_managed(&self->dev, 1, 0, &a));
	ASSERT_EQ(0, vgpu_malloc_managed(&self->dev, 5 * MiB, 0, &b));
	memset(b, 1, 5 * MiB);
	EXPECT_TRUE(mapped(a));
	EXPECT_TRUE(mapped((char *)b + 5 * MiB));	/* rounded to 6 MiB */
	vgpu_close(&self->dev);
	EXPECT_FALSE(mapped(a));
	EXPECT_FALSE(mapped(b));
	EXPECT_EQ(NULL, vgpu_managed_backend(&self->dev));
	ASSERT_EQ(0, vgpu_open(&self->dev));
}

TEST_F(managed, hostile_input)
{
	char *a, *b, stack = 0, *heap = malloc(64);
	void *p = (void *)1;
	uint64_t moved;

	EXPECT_EQ(-EINVAL, vgpu_malloc_managed(&self->dev, 0, 0, &p));
	EXPECT_EQ(-EINVAL, vgpu_malloc_managed(&self->dev, 4096, 1, &p));
	EXPECT_EQ(-EINVAL, vgpu_malloc_managed(&self->dev, SIZE_MAX, 0, &p));
	EXPECT_EQ(-EINVAL, vgpu_malloc_managed(&self->dev, SIZE_MAX - 4096, 0, &p));
	EXPECT_EQ(-E2BIG, vgpu_malloc_managed(&self->dev, self->dev.max_bo_size + 1,
					      0, &p));
	EXPECT_EQ((void *)1, p);	/* untouched on failure */

	ASSERT_EQ(0, vgpu_malloc_managed(&self->dev, 2 * MiB, 0, (void **)&a));
	ASSERT_EQ(0, vgpu_malloc_managed(&self->dev, 2 * MiB, 0, (void **)&b));
	EXPECT_EQ(0, vgpu_free(&self->dev, NULL));
	EXPECT_EQ(-EINVAL, vgpu_free(&self->dev, heap));	/* foreign */
	EXPECT_EQ(-EINVAL, vgpu_free(&self->dev, &stack));
	EXPECT_EQ(-EINVAL, vgpu_free(&self->dev, a + 4096));	/* interior */
	EXPECT_EQ(-EINVAL, vgpu_free(&self->dev, a + 2 * MiB - 1));

	/* Ranges: empty, overflowing, past the end, spanning two, foreign. */
	EXPECT_EQ(-EINVAL, vgpu_mem_prefetch(&self->dev, a, 0, VGPU_MEM_LOC_GPU, &moved));
	EXPECT_EQ(-EINVAL, vgpu_mem_prefetch(&self->dev, a, SIZE_MAX, VGPU_MEM_LOC_GPU, &moved));
	EXPECT_EQ(-EINVAL, vgpu_mem_prefetch(&self->dev, a + 4096, 2 * MiB,
					     VGPU_MEM_LOC_GPU, &moved));
	EXPECT_EQ(-EINVAL, vgpu_mem_prefetch(&self->dev, a < b ? a : b, 4 * MiB,
					     VGPU_MEM_LOC_GPU, &moved));
	EXPECT_EQ(-EINVAL, vgpu_mem_prefetch(&self->dev, heap, 64, VGPU_MEM_LOC_GPU, &moved));
	EXPECT_EQ(-EINVAL, vgpu_mem_prefetch(&self->dev, a, 4096, 0, &moved));
	EXPECT_EQ(-EINVAL, vgpu_mem_prefetch(&self->dev, a, 4096, VGPU_PLACE_ALL, &moved));
	EXPECT_EQ(-EINVAL, vgpu_mem_advise(&self->dev, a, 4096, 0, 0));
	EXPECT_EQ(-EINVAL, vgpu_mem_advise(&self->dev, a, 4096, 7, 0));
	EXPECT_EQ(-EINVAL, vgpu_mem_advise(&self->dev, a, 4096,
					   VGPU_MEM_ADVISE_SET_READ_MOSTLY, VGPU_MEM_LOC_GPU));
	EXPECT_EQ(-EINVAL, vgpu_mem_advise(&self->dev, a, 4096,
					   VGPU_MEM_ADVISE_SET_PREFERRED_LOCATION, 0));
	EXPECT_EQ(-EINVAL, vgpu_mem_advise(&self->dev, a, 4096,
					   VGPU_MEM_ADVISE_SET_PREFERRED_LOCATION, 4));
	EXPECT_EQ(-EINVAL, vgpu_mem_advise(&self->dev, a, 4096,
					   VGPU_MEM_ADVISE_SET_ACCESSED_BY, 0));
	EXPECT_EQ(-EINVAL, vgpu_mem_advise(&self->dev, a, 4096,
					   VGPU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, 1));
	EXPECT_EQ(-EINVAL, vgpu_mem_advise(&self->dev, heap, 64,
					   VGPU_MEM_ADVISE_SET_READ_MOSTLY, 0));
	EXPECT_EQ(-EINVAL, vgpu_mem_advise(&self->dev, a, 0,
					   VGPU_MEM_ADVISE_SET_READ_MOSTLY, 0));

	EXPECT_EQ(0, vgpu_free(&self->dev, a));
	EXPECT_EQ(-EINVAL, vgpu_free(&self->dev, a));		/* double */
	EXPECT_EQ(-EINVAL, vgpu_mem_prefetch(&self->dev, a, 4096, VGPU_MEM_LOC_GPU, &moved));
	/* The other allocation is intact and still usable. */
	b[0] = 9;
	vgpu_cmd_fill(&self->cmd, (uintptr_t)b + 4096, 4096, 0x01010101);
	ASSERT_EQ(0, run(&self->dev, &self->cmd));
	EXPECT_EQ(9, b[0]);
	EXPECT_EQ(1, b[4096]);
	EXPECT_EQ(0, vgpu_free(&self->dev, b));
	free(heap);
}

TEST_HARNESS_MAIN
