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
/** vgpu_cmd_timestamp() - TIMESTAMP: the device clock (ns) to @dst. */
void vgpu_cmd_timestamp(struct vgpu_cmd *cmd, uint64_t dst);
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
 */
void vgpu_cmd_touch(struct vgpu_cmd *cmd, uint32_t pattern, uint32_t access,
		    uint64_t va, uint64_t size, uint32_t stride, uint32_t count,
		    uint32_t seed, uint32_t repeat);
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
/** vgpu_query_in() - vgpu_query() naming VM @vm_id (VM and PAGING types). */
int vgpu_query_in(struct vgpu_dev *dev, uint32_t vm_id, uint32_t type,
		  void *data, uint32_t size);
/** vgpu_query_vm_in() - the counters of VM @vm_id. */
int vgpu_query_vm_in(struct vgpu_dev *dev, uint32_t vm_id,
		     struct drm_vgpu_query_vm *vm);
int vgpu_query_counters(struct vgpu_dev *dev, struct drm_vgpu_query_counters *ctr);

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

#ifdef __cplusplus
}
#endif

#endif /* LIBVGPU_H */
