/* SPDX-License-Identifier: MIT */
/*
 * libvgpu - a small C library for the vgpu render node, on libdrm.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef LIBVGPU_H
#define LIBVGPU_H

/**
 * DOC: libvgpu
 *
 * libvgpu wraps the vgpu uapi (vgpu_drm.h) in plain C11 functions:
 * device discovery, buffer objects, GPU virtual memory, command building,
 * submission, waiting and queries.  Every function that can fail returns 0
 * or a negative errno and leaves errno alone; none aborts.  The library
 * keeps no global state: everything is in the caller's &struct vgpu_dev and
 * &struct vgpu_cmd.
 *
 * Example (error checks left out)::
 *
 *	struct vgpu_dev dev;
 *	struct vgpu_cmd cmd;
 *	uint32_t bo, sync;
 *	uint64_t va = dev.va_start;
 *
 *	vgpu_open(&dev);
 *	vgpu_bo_create(&dev, 1 << 20, VGPU_PLACE_VRAM, 0, &bo);
 *	vgpu_vm_map(&dev, bo, 0, va, 1 << 20, VGPU_MAP_RW);
 *	vgpu_cmd_init(&cmd);
 *	vgpu_cmd_fill(&cmd, va, 1 << 20, 0x01020304);
 *	vgpu_syncobj_create(&dev, &sync);
 *	vgpu_submit(&dev, 0, &cmd, NULL, 0, sync);
 *	vgpu_syncobj_wait(&dev, sync, -1);
 *	vgpu_cmd_fini(&cmd);
 *	vgpu_close(&dev);
 */

#include <stddef.h>
#include <stdint.h>

#include "vgpu_drm.h"
/* Command encodings and counter indices: the hardware contract. */
#include "vgpu_hw.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VGPU_PLACE_VRAM		DRM_VGPU_PLACE_VRAM
#define VGPU_PLACE_SYSTEM	DRM_VGPU_PLACE_SYSTEM
#define VGPU_PLACE_ALL		DRM_VGPU_PLACE_ALL
#define VGPU_MAP_R		DRM_VGPU_VM_BIND_READ
#define VGPU_MAP_W		DRM_VGPU_VM_BIND_WRITE
#define VGPU_MAP_X		DRM_VGPU_VM_BIND_EXEC
#define VGPU_MAP_RW		(VGPU_MAP_R | VGPU_MAP_W)

struct vgpu_managed;

/**
 * struct vgpu_dev - an open vgpu render node and its parameters
 * @fd: the render node's file descriptor; owns a default GPU VM (id 0)
 *	and those vgpu_vm_create() made.
 * @vram_size: VRAM bytes.
 * @visible_size: CPU-visible VRAM bytes.
 * @va_start: first GPU VA that may be bound.
 * @va_end: end of the bindable GPU VA range.
 * @page_sizes: GPU page sizes, bit n = 2^n bytes.
 * @max_bo_size: largest BO size.
 * @caps: the device's capability register (``VGPU_CAPS_*``).
 * @exec_queues: exec queues EXEC accepts.
 * @num_contexts: hardware contexts.
 * @managed: managed-memory state (vgpu_malloc_managed()), private; NULL
 *	until the first allocation.
 */
struct vgpu_dev {
	int fd;
	uint64_t vram_size;
	uint64_t visible_size;
	uint64_t va_start;
	uint64_t va_end;
	uint64_t page_sizes;
	uint64_t max_bo_size;
	uint32_t caps;
	uint32_t exec_queues;
	uint32_t num_contexts;
	struct vgpu_managed *managed;
};

/**
 * vgpu_open() - open the first vgpu render node
 * @dev: filled in
 *
 * Finds the device by driver name among drmGetDevices2()'s render nodes.
 *
 * Return: 0, -ENODEV when there is none, or another negative errno.
 */
int vgpu_open(struct vgpu_dev *dev);

/**
 * vgpu_open_fd() - adopt an already open vgpu render node
 * @dev: filled in
 * @fd: file descriptor; vgpu_close() closes it
 *
 * Return: 0, or -ENODEV if @fd is not a vgpu node.
 */
int vgpu_open_fd(struct vgpu_dev *dev, int fd);

/** vgpu_close() - close the node: frees every BO, mapping and job state. */
void vgpu_close(struct vgpu_dev *dev);

/** vgpu_get_param() - GET_PARAM: one &enum drm_vgpu_param into @value. */
int vgpu_get_param(struct vgpu_dev *dev, uint32_t param, uint64_t *value);

/* ----------------------------------------------------------- buffer objects */

/**
 * vgpu_bo_create() - BO_CREATE with default preference and alignment
 * @dev: device
 * @size: bytes (rounded up to 4 KiB by the kernel)
 * @placements: ``VGPU_PLACE_*`` mask
 * @flags: ``DRM_VGPU_BO_*``
 * @handle: out
 *
 * Return: 0 or a negative errno (see &struct drm_vgpu_bo_create).
 */
int vgpu_bo_create(struct vgpu_dev *dev, uint64_t size, uint32_t placements,
		   uint32_t flags, uint32_t *handle);

/**
 * vgpu_bo_create_ex() - BO_CREATE with every argument
 * @dev: device
 * @args: in/out, see &struct drm_vgpu_bo_create
 *
 * Return: 0 or a negative errno.
 */
int vgpu_bo_create_ex(struct vgpu_dev *dev, struct drm_vgpu_bo_create *args);
/**
 * vgpu_bo_create_pageable() - create a demand-paged BO
 * @dev: device
 * @size: bytes; rounded up to the paging chunk size
 * @handle: out, the GEM handle
 * @rounded: out, the BO's size (may be NULL)
 *
 * A ``DRM_VGPU_BO_PAGEABLE`` BO lives in system memory and is brought into
 * VRAM chunk by chunk when the GPU touches it; VRAM acts as its cache, so
 * such BOs may together be many times larger than VRAM.
 *
 * Return: 0 or a negative errno (see &struct drm_vgpu_bo_create).
 */
int vgpu_bo_create_pageable(struct vgpu_dev *dev, uint64_t size,
			    uint32_t *handle, uint64_t *rounded);

/** vgpu_bo_close() - drop a BO handle (GEM_CLOSE). */
int vgpu_bo_close(struct vgpu_dev *dev, uint32_t handle);

/**
 * vgpu_bo_map() - map a BO for the CPU
 * @dev: device
 * @handle: BO
 * @size: bytes to map from the start
 * @ptr: out, the mapping (unmap with vgpu_bo_unmap())
 *
 * Return: 0 or a negative errno.
 */
int vgpu_bo_map(struct vgpu_dev *dev, uint32_t handle, uint64_t size, void **ptr);

/** vgpu_bo_mmap_offset() - BO_MMAP_OFFSET: the offset mmap() takes for @handle. */
int vgpu_bo_mmap_offset(struct vgpu_dev *dev, uint32_t handle, uint64_t *offset);

/** vgpu_bo_unmap() - undo vgpu_bo_map(). */
int vgpu_bo_unmap(void *ptr, uint64_t size);

/**
 * vgpu_bo_wait() - WAIT_BO with a relative timeout
 * @dev: device
 * @handle: BO
 * @timeout_ns: nanoseconds from now; negative waits forever
 *
 * Return: 0 once idle, -ETIMEDOUT, or another negative errno.
 */
int vgpu_bo_wait(struct vgpu_dev *dev, uint32_t handle, int64_t timeout_ns);

/** vgpu_bo_export() - PRIME export to a dma-buf fd (close-on-exec, RW). */
int vgpu_bo_export(struct vgpu_dev *dev, uint32_t handle, int *dmabuf_fd);

/** vgpu_bo_import() - PRIME import of a dma-buf fd. */
int vgpu_bo_import(struct vgpu_dev *dev, int dmabuf_fd, uint32_t *handle);

/* --------------------------------------------------------------- GPU VM */

/** vgpu_vm_bind() - VM_BIND with an array of operations. */
int vgpu_vm_bind(struct vgpu_dev *dev, const struct drm_vgpu_vm_bind_op *ops,
		 uint32_t num_ops);

/** vgpu_vm_map() - map @range bytes of BO @handle at @bo_offset to @va. */
int vgpu_vm_map(struct vgpu_dev *dev, uint32_t handle, uint64_t bo_offset,
		uint64_t va, uint64_t range, uint32_t perms);

/** vgpu_vm_unmap() - unmap [@va, @va + @range). */
int vgpu_vm_unmap(struct vgpu_dev *dev, uint64_t va, uint64_t range);

/**
 * vgpu_vm_mirror() - let the GPU use the caller's own memory in place
 * @dev: device
 * @addr: start, 4 KiB aligned: the GPU VA is the CPU address
 * @size: bytes, a multiple of 4 KiB
 * @perms: %VGPU_MAP_R, optionally with %VGPU_MAP_W
 *
 * A CPU-address mirror (SVM, %DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR): malloc'd,
 * mmap'd or stack memory in [@addr, @addr + @size) is reached by the GPU
 * at the same address, faulted in page by page and kept coherent with the
 * CPU's page tables (svm.rst).  vgpu_vm_unmap() ends it.
 *
 * Return: 0; -EOPNOTSUPP when the kernel cannot mirror (vgpu_svm_mode()
 * is 0), or the errno of VM_BIND.
 */
int vgpu_vm_mirror(struct vgpu_dev *dev, const void *addr, uint64_t size,
		   uint32_t perms);

/**
 * vgpu_svm_mode() - what the kernel offers for mirrored memory
 * @dev: device
 *
 * Return: %DRM_VGPU_PARAM_SVM: 0, or a mask of ``DRM_VGPU_SVM_*``.
 */
uint64_t vgpu_svm_mode(struct vgpu_dev *dev);

/*
 * More VMs per file.  The functions above act on the file's default VM,
 * id 0; the ``_in`` variants take the VM's id.
 */

/** vgpu_vm_create() - VM_CREATE: a new empty VM, its id in @vm_id. */
int vgpu_vm_create(struct vgpu_dev *dev, uint32_t *vm_id);
/** vgpu_vm_destroy() - VM_DESTROY (see &struct drm_vgpu_vm_destroy). */
int vgpu_vm_destroy(struct vgpu_dev *dev, uint32_t vm_id);
/** vgpu_vm_bind_in() - vgpu_vm_bind() on VM @vm_id. */
int vgpu_vm_bind_in(struct vgpu_dev *dev, uint32_t vm_id,
		    const struct drm_vgpu_vm_bind_op *ops, uint32_t num_ops);
/** vgpu_vm_map_in() - vgpu_vm_map() on VM @vm_id. */
int vgpu_vm_map_in(struct vgpu_dev *dev, uint32_t vm_id, uint32_t handle,
		   uint64_t bo_offset, uint64_t va, uint64_t range,
		   uint32_t perms);
/** vgpu_vm_unmap_in() - vgpu_vm_unmap() on VM @vm_id. */
int vgpu_vm_unmap_in(struct vgpu_dev *dev, uint32_t vm_id, uint64_t va,
		     uint64_t range);

/**
 * vgpu_exec_queue_create() - EXEC_QUEUE_CREATE
 * @dev: device
 * @vm_id: the VM the queue's jobs run in
 * @ring: ring, below @dev->exec_queues
 * @priority: ``DRM_VGPU_QUEUE_PRIORITY_*`` (HIGH needs CAP_SYS_NICE)
 * @queue_id: out, for vgpu_submit_in()'s @queue
 *
 * Return: 0 or a negative errno (see &struct drm_vgpu_exec_queue_create).
 */
int vgpu_exec_queue_create(struct vgpu_dev *dev, uint32_t vm_id, uint32_t ring,
			   uint32_t priority, uint32_t *queue_id);
/** vgpu_exec_queue_destroy() - EXEC_QUEUE_DESTROY. */
int vgpu_exec_queue_destroy(struct vgpu_dev *dev, uint32_t queue_id);

/* ------------------------------------------------------ command building */

/**
 * struct vgpu_cmd - a growable device command stream
 * @dw: the dwords.
 * @len: dwords used.
 * @cap: dwords allocated.
 * @error: first error (-ENOMEM) met while building; vgpu_submit() refuses
 *	a stream with an error.
 */
struct vgpu_cmd {
	uint32_t *dw;
	size_t len;
	size_t cap;
	int error;
};

void vgpu_cmd_init(struct vgpu_cmd *cmd);
void vgpu_cmd_fini(struct vgpu_cmd *cmd);
/** vgpu_cmd_reset() - empty the stream, keep the memory. */
void vgpu_cmd_reset(struct vgpu_cmd *cmd);
/** vgpu_cmd_nop() - a NOP of @len dwords (>= 1). */
void vgpu_cmd_nop(struct vgpu_cmd *cmd, uint32_t len);
/** vgpu_cmd_copy() - COPY @size bytes from VA @src to VA @dst. */
void vgpu_cmd_copy(struct vgpu_cmd *cmd, uint64_t src, uint64_t dst, uint64_t size);
/** vgpu_cmd_fill() - FILL @size bytes at @dst with the 32-bit @value. */
void vgpu_cmd_fill(struct vgpu_cmd *cmd, uint64_t dst, uint64_t size, uint32_t value);
/** vgpu_cmd_write() - WRITE @n dwords of @data to @dst. */
void vgpu_cmd_write(struct vgpu_cmd *cmd, uint64_t dst, const uint32_t *data, uint32_t n);
/**
 * vgpu_cmd_fence() - FENCE: write the 64-bit @value to @dst
 *
 * A user stream runs unprivileged: its FENCE only writes memory.  Moving
 * the queue's seqno or raising the interrupt is the kernel's (a FENCE
 * with IRQ or NOWRITE fails the job with -EPERM; hardware.rst,
 * "Privilege levels").
 */
void vgpu_cmd_fence(struct vgpu_cmd *cmd, uint64_t dst, uint64_t value);
/** vgpu_cmd_wait() - WAIT until the 64-bit value at @addr >= @value. */
void vgpu_cmd_wait(struct vgpu_cmd *cmd, uint64_t addr, uint64_t value);
/** vgpu_cmd_timestamp() - TIMESTAMP: the queue's modeled clock (ns) to @dst. */
void vgpu_cmd_timestamp(struct vgpu_cmd *cmd, uint64_t dst);
/**
 * vgpu_cmd_compute() - COMPUTE: @ns of modeled work that touches no memory
 *
 * The arithmetic of a kernel, between its memory accesses: it moves the
 * queue's modeled clock and takes no host time (a device without
 * %VGPU_CAPS_COMPUTE refuses it; hardware.rst, "Cost model").
 */
void vgpu_cmd_compute(struct vgpu_cmd *cmd, uint32_t ns);
/**
 * vgpu_cmd_touch() - TOUCH: an access-pattern kernel
 * @cmd: stream
 * @pattern: ``VGPU_TOUCH_SEQUENTIAL``, ``_STRIDED`` or ``_RANDOM``
 * @access: ``VGPU_TOUCH_READ``, ``_WRITE`` or ``_RMW``
 * @va: start of the range
 * @size: bytes
 * @stride: bytes between accesses (strided)
 * @count: accesses per pass (random)
 * @seed: random seed
 * @repeat: passes (0 = 1)
 *
 * It runs as the device's lanes (%DRM_VGPU_PARAM_LANES): many of its
 * accesses can fault at once, as a GPU kernel's warps do.
 */
void vgpu_cmd_touch(struct vgpu_cmd *cmd, uint32_t pattern, uint32_t access,
		    uint64_t va, uint64_t size, uint32_t stride, uint32_t count,
		    uint32_t seed, uint32_t repeat);
/**
 * vgpu_cmd_touch_lanes() - TOUCH launched on at most @lanes lanes
 * @cmd: stream
 * @lanes: the launch width: 0 runs as many lanes as the device has
 *	(%DRM_VGPU_PARAM_LANES), n at most the largest power of two <= n
 *	(1 .. 256); 1 makes one sequential stream of accesses, which faults
 *	one page at a time (hardware.rst, "Lanes")
 *
 * The other arguments are vgpu_cmd_touch()'s.
 */
void vgpu_cmd_touch_lanes(struct vgpu_cmd *cmd, uint32_t lanes, uint32_t pattern,
			  uint32_t access, uint64_t va, uint64_t size, uint32_t stride,
			  uint32_t count, uint32_t seed, uint32_t repeat);
/**
 * vgpu_cmd_gather() - GATHER: @dst[i] = @base[@index[i]] for i < @count
 * @cmd: stream
 * @elem_shift: log2 of the element size, ``VGPU_GATHER_ELEM_SHIFT_MIN`` (4
 *	bytes) .. ``_MAX`` (4 KiB); @base and @dst aligned to it
 * @index: VA of @count little-endian 32-bit indices, 4-byte aligned
 * @count: elements
 * @base: VA of element 0
 * @bound: indices must be below it, else the job fails (-EIO, queue error
 *	INDEX)
 * @dst: VA the elements are packed to; 0: only read them (NODST)
 */
void vgpu_cmd_gather(struct vgpu_cmd *cmd, uint32_t elem_shift, uint64_t index,
		     uint32_t count, uint64_t base, uint32_t bound, uint64_t dst);
/**
 * vgpu_cmd_scatter() - SCATTER: @base[@index[i]] = @src[i] for i < @count
 *
 * As vgpu_cmd_gather(), the packed elements read from @src; of repeated
 * indices the last element wins.
 */
void vgpu_cmd_scatter(struct vgpu_cmd *cmd, uint32_t elem_shift, uint64_t index,
		      uint32_t count, uint64_t base, uint32_t bound, uint64_t src);
/**
 * vgpu_cmd_tile() - TILE: GEMM-like tiles or a stencil over a pitched grid
 * @cmd: stream
 * @flags: ``VGPU_TILE_BLOCK`` or ``_STENCIL`` (with a radius in
 *	``VGPU_TILE_FLAG_RADIUS``), an access kind in ``VGPU_TILE_FLAG_ACCESS``
 *	(``VGPU_TOUCH_READ`` ...), ``VGPU_TILE_FLAG_COLUMNS``
 * @va: the grid's first line, 64-byte aligned
 * @pitch: bytes from one row to the next, a multiple of 64
 * @width: tile width in bytes, a multiple of 64; @across x @width <= @pitch
 * @height: tile height in rows
 * @across: tiles per row of tiles
 * @down: rows of tiles
 * @repeat: passes (0 = 1)
 */
void vgpu_cmd_tile(struct vgpu_cmd *cmd, uint32_t flags, uint64_t va,
		   uint32_t pitch, uint32_t width, uint32_t height,
		   uint32_t across, uint32_t down, uint32_t repeat);
/** vgpu_cmd_checksum() - CHECKSUM: FNV-1a 64 of [@src, +@size) to @dst. */
void vgpu_cmd_checksum(struct vgpu_cmd *cmd, uint64_t src, uint64_t size, uint64_t dst);

/** vgpu_fnv1a64() - the CHECKSUM command's hash, computed by the CPU. */
uint64_t vgpu_fnv1a64(const void *data, size_t size);

/* ------------------------------------------------------------ submission */

/**
 * vgpu_submit() - EXEC an inline command stream
 * @dev: device
 * @queue: exec queue, below @dev->exec_queues
 * @cmd: the stream
 * @in_syncs: syncobjs to wait for, or NULL
 * @num_in_syncs: entries of @in_syncs
 * @out_sync: syncobj to signal, or 0
 *
 * Return: 0 or a negative errno (see &struct drm_vgpu_exec); -ENOMEM if
 * building @cmd ran out of memory.
 */
int vgpu_submit(struct vgpu_dev *dev, uint32_t queue, const struct vgpu_cmd *cmd,
		const uint32_t *in_syncs, uint32_t num_in_syncs, uint32_t out_sync);
/**
 * vgpu_submit_in() - vgpu_submit() in VM @vm_id
 *
 * @queue is a fixed queue index (below @dev->exec_queues) or the id of a
 * queue vgpu_exec_queue_create() made for @vm_id.
 */
int vgpu_submit_in(struct vgpu_dev *dev, uint32_t vm_id, uint32_t queue,
		   const struct vgpu_cmd *cmd, const uint32_t *in_syncs,
		   uint32_t num_in_syncs, uint32_t out_sync);

/** vgpu_exec() - EXEC with every argument. */
int vgpu_exec(struct vgpu_dev *dev, struct drm_vgpu_exec *args);

/**
 * vgpu_exec_inline() - set EXEC arguments up for an inline stream
 * @args: filled in; every other field is zero (no syncs, no flags)
 * @queue: exec queue
 * @cmd: the stream (kept by the caller until the EXEC)
 */
void vgpu_exec_inline(struct drm_vgpu_exec *args, uint32_t queue,
		      const struct vgpu_cmd *cmd);

/**
 * struct vgpu_sync - what vgpu_submit_sync() waits for and signals
 * @in_syncs: syncobjs to wait for, or NULL.
 * @in_points: their timeline points (0: binary), or NULL (all binary).
 * @num_in_syncs: entries of @in_syncs (and @in_points).
 * @out_sync: syncobj to signal, or 0.
 * @out_point: timeline point of @out_sync, or 0 (binary).
 * @in_fence_fd: sync_file to wait for, or -1.
 * @out_fence_fd: receives a new sync_file fd of the job's fence (the
 *	caller closes it), or NULL.
 *
 * Example, job B after point 2 of @timeline, which job A signals::
 *
 *	uint64_t two = 2;
 *	struct vgpu_sync a = { .out_sync = timeline, .out_point = 2,
 *			       .in_fence_fd = -1 };
 *	struct vgpu_sync b = { .in_syncs = &timeline, .in_points = &two,
 *			       .num_in_syncs = 1, .in_fence_fd = -1 };
 *
 *	vgpu_submit_sync(&dev, 0, &cmd_a, &a);
 *	vgpu_submit_sync(&dev, 1, &cmd_b, &b);
 */
struct vgpu_sync {
	const uint32_t *in_syncs;
	const uint64_t *in_points;
	uint32_t num_in_syncs;
	uint32_t out_sync;
	uint64_t out_point;
	int in_fence_fd;
	int *out_fence_fd;
};

/**
 * vgpu_submit_sync() - EXEC an inline command stream with timeline
 * points and sync_files
 * @dev: device
 * @queue: exec queue
 * @cmd: the stream
 * @sync: what to wait for and signal
 *
 * Return: 0 or a negative errno (see &struct drm_vgpu_exec).
 */
int vgpu_submit_sync(struct vgpu_dev *dev, uint32_t queue,
		     const struct vgpu_cmd *cmd, const struct vgpu_sync *sync);

/**
 * vgpu_run() - submit @cmd on @queue and wait for it
 * @dev: device
 * @queue: exec queue
 * @cmd: the stream
 * @timeout_ns: relative; negative waits forever
 *
 * Return: 0 if the job completed, its fence error (-EFAULT after a GPU
 * fault, -ETIMEDOUT after a hang), -ETIME if the wait timed out, or the
 * submission's error.
 */
int vgpu_run(struct vgpu_dev *dev, uint32_t queue, const struct vgpu_cmd *cmd,
	     int64_t timeout_ns);
/** vgpu_run_in() - vgpu_run() in VM @vm_id (@queue as for vgpu_submit_in()). */
int vgpu_run_in(struct vgpu_dev *dev, uint32_t vm_id, uint32_t queue,
		const struct vgpu_cmd *cmd, int64_t timeout_ns);

int vgpu_syncobj_create(struct vgpu_dev *dev, uint32_t *handle);
int vgpu_syncobj_destroy(struct vgpu_dev *dev, uint32_t handle);
/** vgpu_syncobj_wait() - wait up to @timeout_ns (relative, <0: forever). */
int vgpu_syncobj_wait(struct vgpu_dev *dev, uint32_t handle, int64_t timeout_ns);
/**
 * vgpu_syncobj_status() - state of the fence in a syncobj
 * @dev: device
 * @handle: syncobj with a fence
 *
 * Return: 1 signalled without error, 0 still running, the fence's error
 * (negative) if it ended with one.
 */
int vgpu_syncobj_status(struct vgpu_dev *dev, uint32_t handle);
/**
 * vgpu_timeline_wait() - wait for a point of a timeline syncobj
 * @dev: device
 * @handle: syncobj
 * @point: timeline point, waited for to be submitted too
 * @timeout_ns: relative; negative waits forever
 *
 * Return: 0, -ETIME, or a negative errno.
 */
int vgpu_timeline_wait(struct vgpu_dev *dev, uint32_t handle, uint64_t point,
		       int64_t timeout_ns);
/** vgpu_timeline_query() - the last signalled point of a timeline syncobj. */
int vgpu_timeline_query(struct vgpu_dev *dev, uint32_t handle, uint64_t *point);
/**
 * vgpu_sync_file_wait() - poll() a sync_file fd
 * @fd: sync_file
 * @timeout_ns: relative, rounded up to milliseconds; negative waits forever
 *
 * Return: 0 once it signalled, -ETIME, or a negative errno.
 */
int vgpu_sync_file_wait(int fd, int64_t timeout_ns);
/** vgpu_sync_file_status() - like vgpu_syncobj_status(), of a sync_file fd. */
int vgpu_sync_file_status(int fd);
/** vgpu_sync_file_merge() - SYNC_IOC_MERGE: a new fd that waits for both. */
int vgpu_sync_file_merge(int fd1, int fd2, int *merged);

/* --------------------------------------------------------------- queries */

int vgpu_query(struct vgpu_dev *dev, uint32_t type, void *data, uint32_t size);
int vgpu_query_memory(struct vgpu_dev *dev, struct drm_vgpu_query_memory *mem);
int vgpu_query_vm(struct vgpu_dev *dev, struct drm_vgpu_query_vm *vm);
/** vgpu_query_in() - vgpu_query() naming VM @vm_id (VM, PAGING and TIME types). */
int vgpu_query_in(struct vgpu_dev *dev, uint32_t vm_id, uint32_t type,
		  void *data, uint32_t size);
/** vgpu_query_vm_in() - the counters of VM @vm_id. */
int vgpu_query_vm_in(struct vgpu_dev *dev, uint32_t vm_id,
		     struct drm_vgpu_query_vm *vm);
int vgpu_query_counters(struct vgpu_dev *dev, struct drm_vgpu_query_counters *ctr);
/**
 * vgpu_query_time() - the cost model and modeled time (QUERY_TIME) of the
 * default VM, the exec queues and the device; -EOPNOTSUPP without
 * ``VGPU_CAPS_COST_MODEL``.
 */
int vgpu_query_time(struct vgpu_dev *dev, struct drm_vgpu_query_time *t);

/* ---------------------------------------------------------- demand paging */

/**
 * vgpu_prefetch() - PREFETCH: move the memory behind a VA range now
 * @dev: device
 * @va: start, 4 KiB aligned
 * @range: bytes, 4 KiB aligned
 * @placement: ``DRM_VGPU_PLACE_VRAM`` or ``DRM_VGPU_PLACE_SYSTEM``
 * @bytes_moved: out, bytes moved (may be NULL)
 *
 * Return: 0 or a negative errno (see &struct drm_vgpu_prefetch).
 */
int vgpu_prefetch(struct vgpu_dev *dev, uint64_t va, uint64_t range,
		  uint32_t placement, uint64_t *bytes_moved);
/**
 * vgpu_advise() - ADVISE: a hint for a VA range
 * @dev: device
 * @va: start, 4 KiB aligned
 * @range: bytes, 4 KiB aligned
 * @advice: ``DRM_VGPU_ADVICE_*``
 * @value: the hint's value
 *
 * Return: 0 or a negative errno (see &struct drm_vgpu_advise).
 */
int vgpu_advise(struct vgpu_dev *dev, uint64_t va, uint64_t range,
		uint32_t advice, uint64_t value);
/** vgpu_query_paging() - paging policies and counters (QUERY_PAGING). */
int vgpu_query_paging(struct vgpu_dev *dev, struct drm_vgpu_query_paging *pg);

/* ------------------------------------------------------- managed memory */

/**
 * DOC: managed memory
 *
 * vgpu_malloc_managed() returns one pointer that is valid on the CPU and
 * on the GPU at the same address: the CPU dereferences it, and a command
 * stream of the device's default VM (id 0) uses the same value as a GPU
 * VA.  The memory migrates on its own: the GPU's first touch of a chunk
 * faults it into VRAM, a CPU touch brings it back, and VRAM is a cache of
 * it, so managed allocations may together be many times larger than VRAM.
 *
 * Behind the functions is one backend, chosen when the first allocation
 * is made (vgpu_managed_backend()): where the kernel migrates mirrored
 * process memory into VRAM (%DRM_VGPU_SVM_VRAM), ``svm``, anonymous
 * memory the default VM mirrors at its own address; else
 * ``pageable-bo``, pageable BOs (``DRM_VGPU_BO_PAGEABLE``), each mmap()ed
 * at an address reserved for it and bound with VM_BIND at the GPU VA
 * equal to that address (uapi.rst, "Managed memory").
 *
 * The allocations are kept in @dev: vgpu_close() frees those left.  Like
 * the rest of libvgpu the functions are not thread-safe: callers
 * serialise the calls on one &struct vgpu_dev.  GPU VAs at or above
 * 2^47 never collide with a managed pointer (x86-64 user addresses lie
 * below it): bind your own BOs there when mixing both in one VM.
 *
 * Example::
 *
 *	float *x;
 *
 *	vgpu_malloc_managed(&dev, n * sizeof(*x), 0, (void **)&x);
 *	x[0] = 1.0f;				// CPU
 *	vgpu_cmd_fill(&cmd, (uintptr_t)x, n * sizeof(*x), 0);	// GPU
 *	vgpu_run(&dev, 0, &cmd, -1);
 *	vgpu_free(&dev, x);
 */

/**
 * enum vgpu_mem_advice - advice for vgpu_mem_advise(), as cudaMemAdvise's
 * @VGPU_MEM_ADVISE_SET_READ_MOSTLY: the range is mostly read: the GPU
 *	reads a VRAM copy while the CPU keeps its own, until a write (on
 *	the ``svm`` backend there is one copy: the GPU reads it in system
 *	memory until a GPU write moves it into VRAM).
 * @VGPU_MEM_ADVISE_UNSET_READ_MOSTLY: undo it (the copies collapse).
 * @VGPU_MEM_ADVISE_SET_PREFERRED_LOCATION: keep the range in @location
 *	when there is a choice; the memory moves there now, as by
 *	vgpu_mem_prefetch() but without widening the range (on the
 *	``pageable-bo`` backend whole chunks move all the same).
 * @VGPU_MEM_ADVISE_UNSET_PREFERRED_LOCATION: drop the preference.
 * @VGPU_MEM_ADVISE_SET_ACCESSED_BY: @location keeps a mapping of the range
 *	wherever it lives (for %VGPU_MEM_LOC_GPU: no fault after a move).
 * @VGPU_MEM_ADVISE_UNSET_ACCESSED_BY: drop it.
 */
enum vgpu_mem_advice {
	VGPU_MEM_ADVISE_SET_READ_MOSTLY = 1,
	VGPU_MEM_ADVISE_UNSET_READ_MOSTLY = 2,
	VGPU_MEM_ADVISE_SET_PREFERRED_LOCATION = 3,
	VGPU_MEM_ADVISE_UNSET_PREFERRED_LOCATION = 4,
	VGPU_MEM_ADVISE_SET_ACCESSED_BY = 5,
	VGPU_MEM_ADVISE_UNSET_ACCESSED_BY = 6,
};

/* Locations for vgpu_mem_prefetch() and vgpu_mem_advise(). */
/** VGPU_MEM_LOC_GPU - the device (its VRAM), cudaMemPrefetchAsync's device id */
#define VGPU_MEM_LOC_GPU	DRM_VGPU_PLACE_VRAM
/** VGPU_MEM_LOC_CPU - system memory, CUDA's ``cudaCpuDeviceId`` */
#define VGPU_MEM_LOC_CPU	DRM_VGPU_PLACE_SYSTEM

/**
 * vgpu_malloc_managed() - allocate memory at one address on CPU and GPU
 * @dev: device; the GPU side is its default VM (id 0)
 * @size: bytes, not zero; rounded up to the paging chunk (2 MiB)
 * @flags: must be zero
 * @ptr: out, the address, aligned to the chunk size
 *
 * The memory is zeroed.
 *
 * Return: 0; -EINVAL for a zero @size, one that
 * overflows when rounded, or non-zero @flags; -E2BIG above the device's
 * largest BO; -ENOMEM when neither memory nor an address usable on both
 * sides is left; -EEXIST when the VM already has a mapping at the address
 * the CPU gave (a BO bound below 2^47 by hand); another negative errno
 * from BO_CREATE, mmap() or VM_BIND.  Nothing is left behind on failure.
 */
int vgpu_malloc_managed(struct vgpu_dev *dev, size_t size, unsigned int flags,
			void **ptr);

/**
 * vgpu_free() - free what vgpu_malloc_managed() returned
 * @dev: device
 * @ptr: the pointer vgpu_malloc_managed() returned, or NULL (nothing done)
 *
 * Waits for the jobs still using the memory (like cudaFree, which
 * synchronises), then unmaps it on both sides.
 *
 * Return: 0, or -EINVAL for a pointer that is not the start of a live
 * managed allocation of @dev (an interior, foreign or freed pointer);
 * else the first error of waiting or unmapping (from EXEC, VM_BIND or
 * munmap()).  As with close(), the allocation is gone whatever the
 * result: every step is taken, and @ptr is no longer managed memory.
 */
int vgpu_free(struct vgpu_dev *dev, void *ptr);

/**
 * vgpu_mem_prefetch() - move managed memory to @location now
 * @dev: device
 * @ptr: start of the range, inside one managed allocation
 * @size: bytes, not zero; the range is widened to whole chunks (2 MiB),
 *	which never leaves the allocation
 * @location: %VGPU_MEM_LOC_GPU or %VGPU_MEM_LOC_CPU
 * @bytes_moved: out, bytes the kernel moved (may be NULL)
 *
 * Synchronous: the memory has moved when the call returns.
 *
 * Return: 0; -EINVAL for a bad @location, a zero @size, or a range not
 * inside one managed allocation; the kernel's PREFETCH errors.
 */
int vgpu_mem_prefetch(struct vgpu_dev *dev, const void *ptr, size_t size,
		      uint32_t location, uint64_t *bytes_moved);

/**
 * vgpu_mem_advise() - give a hint about managed memory
 * @dev: device
 * @ptr: start of the range, inside one managed allocation
 * @size: bytes, not zero; widened to whole 4 KiB pages
 * @advice: &enum vgpu_mem_advice
 * @location: for SET_PREFERRED_LOCATION, SET_ACCESSED_BY and
 *	UNSET_ACCESSED_BY, %VGPU_MEM_LOC_GPU or %VGPU_MEM_LOC_CPU; 0 for the
 *	others
 *
 * Return: 0; -EINVAL for an unknown @advice, a @location not valid for
 * it, a zero @size or a range not inside one managed allocation; the
 * kernel's ADVISE errors.
 */
int vgpu_mem_advise(struct vgpu_dev *dev, const void *ptr, size_t size,
		    enum vgpu_mem_advice advice, uint32_t location);

/**
 * vgpu_managed_backend() - the name of the managed-memory backend in use
 * @dev: device
 *
 * Return: "svm" or "pageable-bo" (see "managed memory"), or NULL before the first
 * vgpu_malloc_managed().
 */
const char *vgpu_managed_backend(const struct vgpu_dev *dev);

/* ------------------------------------------------------ caching allocator */

/**
 * DOC: caching allocator
 *
 * A &struct vgpu_mempool suballocates device memory in userspace, as
 * PyTorch's caching allocator and TensorFlow's BFC allocator do, so that
 * an allocation costs no round trip into the kernel once the pool is warm.
 * It takes *segments* from the kernel (BOs, 2 MiB aligned, bound at GPU
 * VAs the pool manages) and cuts blocks out of them:
 *
 * - small requests (up to %VGPU_MEMPOOL_SMALL_MAX) are rounded up to a
 *   power-of-two size class and served from slabs of
 *   %VGPU_MEMPOOL_SLAB_SIZE, one class per slab;
 * - larger ones, rounded up to 4 KiB, come from a best-fit arena over the
 *   segments: the smallest free run that fits is split, and a freed block
 *   coalesces with its free neighbours.
 *
 * A block is freed with the fence of the GPU work that used it last (a
 * syncobj, whose fence is taken at the free): it is handed out again only
 * once that fence has signalled, so no job ever sees its memory reused
 * under it.  vgpu_mempool_trim() gives every wholly free segment back to the
 * kernel; the pool does so by itself, and retries, when creating a
 * segment fails with -ENOSPC or -ENOMEM, and then waits for pending
 * fences before giving up.  vgpu_mempool_stats() reports reserved,
 * allocated, peak and fragmentation.
 *
 * The pool logic is separate from the device: vgpu_mempool_create_ops()
 * runs it over any &struct vgpu_mempool_ops (the host unit tests use fakes),
 * vgpu_mempool_create() over vgpu BOs.  A pool is not thread-safe.
 *
 * Example::
 *
 *	struct vgpu_mempool *pool;
 *	uint64_t a;
 *
 *	vgpu_mempool_create(&dev, NULL, &pool);
 *	vgpu_mempool_alloc(pool, 1 << 20, 0, &a);
 *	vgpu_cmd_fill(&cmd, a, 1 << 20, 0);
 *	vgpu_submit(&dev, 0, &cmd, NULL, 0, sync);
 *	vgpu_mempool_free(pool, a, sync);	// reused once the job is done
 *	vgpu_mempool_destroy(pool);
 */

/** VGPU_MEMPOOL_SMALL_MAX - largest request served from a size class */
#define VGPU_MEMPOOL_SMALL_MAX	(64u << 10)
/** VGPU_MEMPOOL_MIN_BLOCK - smallest size class, and the default alignment */
#define VGPU_MEMPOOL_MIN_BLOCK	256u
/** VGPU_MEMPOOL_SLAB_SIZE - the run of the arena one size class's slab takes */
#define VGPU_MEMPOOL_SLAB_SIZE	(256u << 10)
/** VGPU_MEMPOOL_MAX_ALIGN - largest alignment vgpu_mempool_alloc() accepts */
#define VGPU_MEMPOOL_MAX_ALIGN	(2u << 20)

struct vgpu_mempool;
struct vgpu_mempool_fence;

/**
 * struct vgpu_mempool_config - how a pool takes memory; zero fields: defaults
 * @segment_size: bytes of a segment (a multiple of 2 MiB; default 32 MiB);
 *	larger requests get a segment of their own, rounded up to 2 MiB.
 * @va_start: first GPU VA of the pool's segments (default 2^47: above
 *	every CPU address, so never on a managed pointer).
 * @va_size: bytes of GPU VA the pool may use (default 2^46).
 * @placements: ``VGPU_PLACE_*`` of the segments' BOs (default VRAM).
 * @max_reserved: the pool holds at most this many bytes of segments
 *	(0: no limit); above it, it trims and then fails with -ENOMEM.
 * @pad: must be zero.
 */
struct vgpu_mempool_config {
	uint64_t segment_size;
	uint64_t va_start;
	uint64_t va_size;
	uint32_t placements;
	uint32_t pad;
	uint64_t max_reserved;
};

/**
 * struct vgpu_mempool_stats - what vgpu_mempool_stats() reports
 * @reserved: bytes of segments held from the kernel.
 * @allocated: bytes of live blocks (their rounded sizes).
 * @requested: bytes the callers asked for in the live blocks.
 * @pending: bytes of freed blocks whose fence has not signalled yet.
 * @cached: bytes free for reuse: @reserved - @allocated - @pending.
 * @peak_reserved: highest @reserved so far.
 * @peak_allocated: highest @allocated so far.
 * @largest_free: largest free run of the arena.
 * @fragmentation: 1 - @largest_free / free bytes of the arena (0 when
 *	nothing is free): 0 means one run would serve any request that fits.
 * @segments: segments held.
 * @allocs: successful allocations.
 * @frees: successful frees.
 * @segment_allocs: segments taken from the kernel.
 * @segment_frees: segments given back.
 * @fence_waits: blocking waits for a pending fence (pool full).
 * @pressure_trims: trims made because a segment could not be created.
 */
struct vgpu_mempool_stats {
	uint64_t reserved;
	uint64_t allocated;
	uint64_t requested;
	uint64_t pending;
	uint64_t cached;
	uint64_t peak_reserved;
	uint64_t peak_allocated;
	uint64_t largest_free;
	double fragmentation;
	uint64_t segments;
	uint64_t allocs;
	uint64_t frees;
	uint64_t segment_allocs;
	uint64_t segment_frees;
	uint64_t fence_waits;
	uint64_t pressure_trims;
};

/**
 * struct vgpu_mempool_ops - the memory and fences under a pool
 * @seg_alloc: back [@va, @va + @size) with memory usable at that GPU VA;
 *	*@cookie is passed back to the other calls.  0 or a negative errno
 *	(-ENOSPC, -ENOMEM make the pool trim and retry).
 * @seg_free: give a segment back; the pool calls it only when no pending
 *	fence covers any of its blocks.
 * @seg_map: map a segment for the CPU into *@cpu (optional; NULL: none).
 * @fence_get: take a reference to the fence in syncobj @syncobj now, into
 *	*@fence.  0 or a negative errno.
 * @fence_put: drop it.
 * @fence_wait: 0 once @fence signalled (or ended with an error), -ETIME
 *	while it has not within @timeout_ns (0: just look; <0: forever), or
 *	another negative errno.
 * @release: called last by vgpu_mempool_destroy() (optional).
 * @priv: passed to every call.
 */
struct vgpu_mempool_ops {
	int (*seg_alloc)(void *priv, uint64_t va, uint64_t size, void **cookie);
	void (*seg_free)(void *priv, uint64_t va, uint64_t size, void *cookie);
	int (*seg_map)(void *priv, void *cookie, uint64_t size, void **cpu);
	int (*fence_get)(void *priv, uint32_t syncobj, void **fence);
	void (*fence_put)(void *priv, void *fence);
	int (*fence_wait)(void *priv, void *fence, int64_t timeout_ns);
	void (*release)(void *priv);
	void *priv;
};

/**
 * vgpu_mempool_create() - a caching allocator over vgpu BOs
 * @dev: device; segments are BOs of it, bound in its default VM
 * @cfg: configuration, or NULL for the defaults
 * @pool: out
 *
 * Return: 0, -EINVAL for a bad @cfg (a segment size not a multiple of
 * 2 MiB, a VA range not 2 MiB aligned or outside the device's, unknown
 * placements), or -ENOMEM.
 */
int vgpu_mempool_create(struct vgpu_dev *dev, const struct vgpu_mempool_config *cfg,
		     struct vgpu_mempool **pool);

/** vgpu_mempool_create_ops() - a pool over @ops (see vgpu_mempool_create()). */
int vgpu_mempool_create_ops(const struct vgpu_mempool_ops *ops,
			 const struct vgpu_mempool_config *cfg,
			 struct vgpu_mempool **pool);

/**
 * vgpu_mempool_destroy() - wait for every pending fence, free every segment
 * @pool: pool, or NULL (nothing done)
 *
 * Blocks still allocated are freed too.
 */
void vgpu_mempool_destroy(struct vgpu_mempool *pool);

/**
 * vgpu_mempool_alloc() - allocate a block of device memory
 * @pool: pool
 * @size: bytes, not zero
 * @align: power of two up to %VGPU_MEMPOOL_MAX_ALIGN, or 0 for
 *	%VGPU_MEMPOOL_MIN_BLOCK
 * @va: out, the block's GPU VA
 *
 * Return: 0; -EINVAL for a zero @size or a bad @align; -E2BIG for a
 * @size larger than the pool's VA range; -ENOMEM (or the segment
 * allocator's error) when no memory is left even after trimming and
 * waiting for pending fences; the wait's error if that wait fails.
 *
 * When nothing else helps, this waits for the oldest pending fence: a
 * caller must not allocate while a job it alone can release (a WAIT on
 * a value it writes later) holds the memory the pool would need.
 */
int vgpu_mempool_alloc(struct vgpu_mempool *pool, uint64_t size, uint64_t align,
		    uint64_t *va);

/**
 * vgpu_mempool_free() - free a block after the work in a syncobj
 * @pool: pool
 * @va: what vgpu_mempool_alloc() returned
 * @syncobj: syncobj holding the fence of the block's last GPU use, taken
 *	now (later changes to the syncobj do not matter); 0 when no GPU work
 *	is pending on the block
 *
 * Return: 0; -EINVAL for a @va that is not a live block of @pool (a
 * foreign pointer, an interior address or a double free); the fence's
 * error (-ENOENT for an unknown syncobj) with the block still allocated.
 */
int vgpu_mempool_free(struct vgpu_mempool *pool, uint64_t va, uint32_t syncobj);

/**
 * vgpu_mempool_fence() - take the fence of a syncobj once, for many frees
 * @pool: pool
 * @syncobj: syncobj with a fence
 * @fence: out; drop with vgpu_mempool_fence_put()
 *
 * A step that frees many blocks after one job takes its fence once and
 * frees them with vgpu_mempool_free_fenced(): one ioctl for them all.
 *
 * Return: 0 or a negative errno (-EINVAL for syncobj 0).
 */
int vgpu_mempool_fence(struct vgpu_mempool *pool, uint32_t syncobj,
		    struct vgpu_mempool_fence **fence);
/** vgpu_mempool_fence_put() - drop a reference vgpu_mempool_fence() gave. */
void vgpu_mempool_fence_put(struct vgpu_mempool *pool, struct vgpu_mempool_fence *fence);
/**
 * vgpu_mempool_free_fenced() - vgpu_mempool_free() with a fence already taken
 * @pool: pool
 * @va: what vgpu_mempool_alloc() returned
 * @fence: from vgpu_mempool_fence(), or NULL (no pending work); the block
 *	takes its own reference
 *
 * Return: 0, or -EINVAL for a @va that is not a live block.
 */
int vgpu_mempool_free_fenced(struct vgpu_mempool *pool, uint64_t va,
			  struct vgpu_mempool_fence *fence);

/**
 * vgpu_mempool_trim() - give every wholly free segment back to the kernel
 * @pool: pool
 * @released: out, bytes given back (may be NULL)
 *
 * Blocks whose fence has signalled are reclaimed first; empty slabs go
 * back to the arena.
 *
 * Return: 0.
 */
int vgpu_mempool_trim(struct vgpu_mempool *pool, uint64_t *released);

/** vgpu_mempool_get_stats() - fill @st (see &struct vgpu_mempool_stats). */
void vgpu_mempool_get_stats(struct vgpu_mempool *pool, struct vgpu_mempool_stats *st);

/**
 * vgpu_mempool_block_size() - the rounded size of a live block
 * @pool: pool
 * @va: a block vgpu_mempool_alloc() returned
 * @size: out, its size as rounded (size class or 4 KiB)
 *
 * Return: 0, or -EINVAL for a @va that is not a live block.
 */
int vgpu_mempool_block_size(struct vgpu_mempool *pool, uint64_t va, uint64_t *size);

/**
 * vgpu_mempool_cpu() - a CPU pointer to a live block
 * @pool: pool
 * @va: a block vgpu_mempool_alloc() returned
 * @cpu: out; valid until the block's segment is given back
 *
 * Maps the block's segment on first use.
 *
 * Return: 0, -EINVAL for a @va
 * that is not a live block, -EOPNOTSUPP when the pool's ops cannot map,
 * or the mapping's error.
 */
int vgpu_mempool_cpu(struct vgpu_mempool *pool, uint64_t va, void **cpu);

#ifdef __cplusplus
}
#endif

#endif /* LIBVGPU_H */
