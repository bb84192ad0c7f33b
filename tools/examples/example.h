/* SPDX-License-Identifier: MIT */
/*
 * What the examples share: opening the device, sizing the data against
 * VRAM, running a stream, the paging counters, and how they end.
 *
 * The device has no arithmetic unit: its one computing command is
 * TOUCH with RMW, which adds 1 to the first 64-bit word of every 64-byte
 * line it visits.  The examples therefore compute on vectors of 64-bit
 * values, one per 64-byte line (the line's first word), with COPY to move
 * them and strided or sequential RMW passes to add to them.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_EXAMPLE_H
#define VGPU_EXAMPLE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvgpu.h"

#define EX_MiB	(1ull << 20)
#define EX_LINE	64ull		/* one element per line */

/* Exit statuses: 0 checked and right, 1 a wrong result, 2 an error. */
#define EX_WRONG	1
#define EX_ERROR	2

/* Element @i of the vector at @v: the first word of line @i. */
static inline uint64_t *ex_elem(void *v, uint64_t i)
{
	return (uint64_t *)((char *)v + i * EX_LINE);
}

/* A value for element @i that no simple mistake reproduces. */
static inline uint64_t ex_hash(uint64_t i)
{
	i ^= i >> 31;
	i *= 0x7fb5d329728ea185ull;
	return (i ^ (i >> 27)) & 0xffffffffffull;
}

/* Print what failed and exit with EX_ERROR. */
static inline void ex_die(const char *prog, const char *what, int ret)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(-ret));
	exit(EX_ERROR);
}

/*
 * Open the device and size one array: @arrays arrays of the size
 * returned together take @pct percent of VRAM (or MiB from argv[1]).
 */
static inline uint64_t ex_open(const char *prog, struct vgpu_dev *dev,
			       int argc, char **argv, unsigned int arrays,
			       unsigned int pct)
{
	uint64_t total;
	int ret = vgpu_open(dev);

	if (ret)
		ex_die(prog, "vgpu_open", ret);
	total = argc > 1 ? strtoull(argv[1], NULL, 0) * EX_MiB :
			   dev->vram_size * pct / 100;
	return (total / arrays + 2 * EX_MiB - 1) & ~(2 * EX_MiB - 1);
}

/*
 * Open the device and make two managed arrays (ex_open()), the first
 * filled with ex_hash() by the CPU.  Returns the size of each.
 */
static inline uint64_t ex_setup(const char *prog, struct vgpu_dev *dev,
				int argc, char **argv, void **x, void **y)
{
	uint64_t size = ex_open(prog, dev, argc, argv, 2, 150), i;
	int ret;

	ret = vgpu_malloc_managed(dev, size, 0, x);
	if (!ret)
		ret = vgpu_malloc_managed(dev, size, 0, y);
	if (ret)
		ex_die(prog, "vgpu_malloc_managed", ret);
	for (i = 0; i < size / EX_LINE; i++)
		*ex_elem(*x, i) = ex_hash(i);
	return size;
}

/* Count a wrong element; print the first. */
static inline void ex_check(const char *prog, uint64_t *wrong, uint64_t i,
			    uint64_t got, uint64_t want)
{
	if (got == want)
		return;
	if (!(*wrong)++)
		fprintf(stderr, "%s: element %llu is %llu, want %llu\n", prog,
			(unsigned long long)i, (unsigned long long)got,
			(unsigned long long)want);
}

/*
 * Print the result line (@what done over two arrays of @size bytes, with
 * @moved bytes migrated into VRAM), free the arrays, close the device;
 * the exit status.
 */
static inline int ex_finish(const char *prog, struct vgpu_dev *dev,
			    const char *what, uint64_t size, uint64_t moved,
			    uint64_t wrong, void *x, void *y)
{
	printf("%s: %s over %llu elements, %llu MiB of managed memory (%.1fx VRAM), "
	       "%llu MiB migrated into VRAM: %s\n", prog, what,
	       (unsigned long long)(size / EX_LINE),
	       (unsigned long long)(2 * size >> 20), 2.0 * size / dev->vram_size,
	       (unsigned long long)(moved >> 20), wrong ? "WRONG" : "ok");
	if (wrong)
		fprintf(stderr, "%s: %llu elements wrong\n", prog,
			(unsigned long long)wrong);
	vgpu_free(dev, y);
	vgpu_free(dev, x);
	vgpu_close(dev);
	return wrong ? EX_WRONG : 0;
}

/* Run @cmd on queue 0 to its end, then empty it. */
static inline void ex_run(const char *prog, struct vgpu_dev *dev,
			  struct vgpu_cmd *cmd)
{
	int ret = vgpu_run(dev, 0, cmd, 600ll * 1000000000);

	if (ret)
		ex_die(prog, "job", ret);
	vgpu_cmd_reset(cmd);
}

/* Bytes the default VM migrated into VRAM so far. */
static inline uint64_t ex_to_vram(struct vgpu_dev *dev)
{
	struct drm_vgpu_query_paging pg;

	return vgpu_query_paging(dev, &pg) ? 0 : pg.vm.bytes_to_vram;
}

#endif /* VGPU_EXAMPLE_H */
