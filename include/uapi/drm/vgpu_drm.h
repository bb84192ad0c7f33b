/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef _UAPI_VGPU_DRM_H_
#define _UAPI_VGPU_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: vgpu uapi overview
 *
 * vgpu is a virtual PCIe GPU whose purpose is GPU memory management: VRAM
 * allocation, GPU page tables, a TLB, page faults, eviction and migration.
 * Its render node (``/dev/dri/renderD*``, driver name ``"vgpu"``) accepts the
 * ioctls below.
 *
 * Conventions shared by every ioctl:
 *
 * - Every struct has explicit padding; padding and reserved fields must be
 *   zero, and ``flags`` fields accept only the documented bits.  Anything
 *   else is refused with -EINVAL before the ioctl has any effect.
 * - Pointers to user memory are carried in ``__u64`` fields; a pointer the
 *   kernel cannot read or write gives -EFAULT.
 * - An unknown object handle (GEM handle, syncobj, VM id, exec queue id)
 *   gives -ENOENT, as does a VM id or queue id that was destroyed.
 * - Ioctl numbers are allocated densely from %DRM_COMMAND_BASE.
 *
 * The objects:
 *
 * - **Buffer objects** (BO_CREATE, BO_MMAP_OFFSET, the core's GEM_CLOSE and
 *   PRIME ioctls): memory in VRAM or in system memory, moved between them by
 *   the kernel under memory pressure.  Contents are always zeroed at
 *   creation and survive every move.
 * - **GPU VMs**: every open file of the render node owns a default GPU
 *   virtual address space, VM id 0, and may create more (VM_CREATE,
 *   VM_DESTROY); the ioctls that act on a VM name it by ``vm_id``.  VM_BIND
 *   maps BO ranges into a VM with read, write and execute permissions and
 *   unmaps them again.  VMs are isolated from each other like the VMs of
 *   different files: a job sees only its own VM's mappings, and a GPU fault
 *   bans only the VM it happened in.
 * - **Jobs** (EXEC): device command streams (``vgpu_hw.h``: COPY, FILL,
 *   WRITE, FENCE, WAIT, TIMESTAMP, TOUCH, CHECKSUM, GATHER, SCATTER, TILE)
 *   run on an exec queue against a VM, ordered by syncobjs and by the BOs'
 *   reservation objects (implicit sync).  Each VM has one implicit queue of normal priority per
 *   ring (the fixed queue indices below %DRM_VGPU_PARAM_EXEC_QUEUES);
 *   EXEC_QUEUE_CREATE makes further queues bound to one VM, with a
 *   priority.  WAIT_BO waits for a BO to go idle.
 * - **QUERY**: memory statistics, device counters, per-VM counters and
 *   modeled GPU time.
 */

/**
 * DOC: vgpu ioctl numbers
 *
 * Ioctl numbers, relative to %DRM_COMMAND_BASE.  Dense; new ioctls are
 * appended.  Each has a request code ``DRM_IOCTL_VGPU_*`` below.
 *
 * - %DRM_VGPU_GET_PARAM (0x00): &struct drm_vgpu_get_param
 * - %DRM_VGPU_BO_CREATE (0x01): &struct drm_vgpu_bo_create
 * - %DRM_VGPU_BO_MMAP_OFFSET (0x02): &struct drm_vgpu_bo_mmap_offset
 * - %DRM_VGPU_VM_BIND (0x03): &struct drm_vgpu_vm_bind
 * - %DRM_VGPU_EXEC (0x04): &struct drm_vgpu_exec
 * - %DRM_VGPU_WAIT_BO (0x05): &struct drm_vgpu_wait_bo
 * - %DRM_VGPU_QUERY (0x06): &struct drm_vgpu_query
 * - %DRM_VGPU_PREFETCH (0x07): &struct drm_vgpu_prefetch
 * - %DRM_VGPU_ADVISE (0x08): &struct drm_vgpu_advise
 * - %DRM_VGPU_VM_CREATE (0x09): &struct drm_vgpu_vm_create
 * - %DRM_VGPU_VM_DESTROY (0x0a): &struct drm_vgpu_vm_destroy
 * - %DRM_VGPU_EXEC_QUEUE_CREATE (0x0b): &struct drm_vgpu_exec_queue_create
 * - %DRM_VGPU_EXEC_QUEUE_DESTROY (0x0c): &struct drm_vgpu_exec_queue_destroy
 */
#define DRM_VGPU_GET_PARAM		0x00
#define DRM_VGPU_BO_CREATE		0x01
#define DRM_VGPU_BO_MMAP_OFFSET		0x02
#define DRM_VGPU_VM_BIND		0x03
#define DRM_VGPU_EXEC			0x04
#define DRM_VGPU_WAIT_BO		0x05
#define DRM_VGPU_QUERY			0x06
#define DRM_VGPU_PREFETCH		0x07
#define DRM_VGPU_ADVISE			0x08
#define DRM_VGPU_VM_CREATE		0x09
#define DRM_VGPU_VM_DESTROY		0x0a
#define DRM_VGPU_EXEC_QUEUE_CREATE	0x0b
#define DRM_VGPU_EXEC_QUEUE_DESTROY	0x0c

/** DRM_IOCTL_VGPU_GET_PARAM - read one device parameter, &struct drm_vgpu_get_param */
#define DRM_IOCTL_VGPU_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_GET_PARAM, struct drm_vgpu_get_param)
/** DRM_IOCTL_VGPU_BO_CREATE - create a buffer object, &struct drm_vgpu_bo_create */
#define DRM_IOCTL_VGPU_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_BO_CREATE, struct drm_vgpu_bo_create)
/** DRM_IOCTL_VGPU_BO_MMAP_OFFSET - get a BO's mmap() offset, &struct drm_vgpu_bo_mmap_offset */
#define DRM_IOCTL_VGPU_BO_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_BO_MMAP_OFFSET, \
		 struct drm_vgpu_bo_mmap_offset)
/** DRM_IOCTL_VGPU_VM_BIND - map and unmap GPU VA ranges, &struct drm_vgpu_vm_bind */
#define DRM_IOCTL_VGPU_VM_BIND \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VGPU_VM_BIND, struct drm_vgpu_vm_bind)
/*
 * DRM_IOCTL_VGPU_EXEC - submit a job, &struct drm_vgpu_exec.  It was
 * DRM_IOW before &drm_vgpu_exec.out_fence_fd: drm_ioctl() matches the
 * number, so the old request code still works (and copies nothing back).
 */
#define DRM_IOCTL_VGPU_EXEC \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_EXEC, struct drm_vgpu_exec)
/** DRM_IOCTL_VGPU_WAIT_BO - wait for a BO to go idle, &struct drm_vgpu_wait_bo */
#define DRM_IOCTL_VGPU_WAIT_BO \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VGPU_WAIT_BO, struct drm_vgpu_wait_bo)
/** DRM_IOCTL_VGPU_QUERY - read statistics and counters, &struct drm_vgpu_query */
#define DRM_IOCTL_VGPU_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_QUERY, struct drm_vgpu_query)
/** DRM_IOCTL_VGPU_PREFETCH - move the memory behind a VA range, &struct drm_vgpu_prefetch */
#define DRM_IOCTL_VGPU_PREFETCH \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_PREFETCH, struct drm_vgpu_prefetch)
/** DRM_IOCTL_VGPU_ADVISE - record a placement hint for a VA range, &struct drm_vgpu_advise */
#define DRM_IOCTL_VGPU_ADVISE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VGPU_ADVISE, struct drm_vgpu_advise)
/** DRM_IOCTL_VGPU_VM_CREATE - create a GPU VM, &struct drm_vgpu_vm_create */
#define DRM_IOCTL_VGPU_VM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_VM_CREATE, struct drm_vgpu_vm_create)
/** DRM_IOCTL_VGPU_VM_DESTROY - destroy a GPU VM, &struct drm_vgpu_vm_destroy */
#define DRM_IOCTL_VGPU_VM_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VGPU_VM_DESTROY, struct drm_vgpu_vm_destroy)
/** DRM_IOCTL_VGPU_EXEC_QUEUE_CREATE - create an exec queue, &struct drm_vgpu_exec_queue_create */
#define DRM_IOCTL_VGPU_EXEC_QUEUE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_EXEC_QUEUE_CREATE, \
		 struct drm_vgpu_exec_queue_create)
/** DRM_IOCTL_VGPU_EXEC_QUEUE_DESTROY - destroy a created exec queue */
#define DRM_IOCTL_VGPU_EXEC_QUEUE_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VGPU_EXEC_QUEUE_DESTROY, \
		 struct drm_vgpu_exec_queue_destroy)

/**
 * enum drm_vgpu_param - device parameters reported by GET_PARAM
 *
 * @DRM_VGPU_PARAM_HW_VERSION: device version register: major in bits 31:16,
 *	minor in bits 15:0.
 * @DRM_VGPU_PARAM_VRAM_SIZE: VRAM size in bytes.
 * @DRM_VGPU_PARAM_VISIBLE_VRAM_SIZE: size in bytes of the CPU-visible VRAM
 *	window (BAR 2); smaller than @DRM_VGPU_PARAM_VRAM_SIZE on a
 *	"small BAR" device.
 * @DRM_VGPU_PARAM_NUM_QUEUES: number of hardware queues (rings).
 * @DRM_VGPU_PARAM_NUM_CONTEXTS: number of hardware address-space contexts.
 * @DRM_VGPU_PARAM_VA_BITS: width of a GPU virtual address.
 * @DRM_VGPU_PARAM_PAGE_SIZES: bitmask of the GPU page sizes the MMU maps
 *	(bit n set: pages of 2^n bytes).
 * @DRM_VGPU_PARAM_PCI_ID: PCI vendor id in bits 31:16, device id in 15:0.
 * @DRM_VGPU_PARAM_VA_START: first GPU virtual address VM_BIND accepts.
 * @DRM_VGPU_PARAM_VA_END: first GPU virtual address past the range VM_BIND
 *	accepts; the addresses above it are reserved for the kernel.
 * @DRM_VGPU_PARAM_EXEC_QUEUES: number of rings, that is of fixed exec
 *	queues every VM has (&drm_vgpu_exec.queue below this) and of values
 *	&drm_vgpu_exec_queue_create.ring accepts.
 * @DRM_VGPU_PARAM_CAPS: the device's capability register (``VGPU_CAPS_*`` in
 *	``vgpu_hw.h``; bit 5 says the device runs in strict checking mode,
 *	bit 13 in deterministic mode, bit 14 that it runs COMPUTE).
 * @DRM_VGPU_PARAM_MAX_BO_SIZE: largest size BO_CREATE accepts, in bytes.
 * @DRM_VGPU_PARAM_SVM: shared virtual memory: 0 if the driver cannot mirror
 *	process memory, else a mask of ``DRM_VGPU_SVM_*``: %DRM_VGPU_SVM_MIRROR
 *	(VM_BIND with %DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR works, the memory is
 *	accessed where the CPU has it, in system memory) and, only where the
 *	kernel is built with DEVICE_PRIVATE and the device's VRAM got
 *	device-private pages, %DRM_VGPU_SVM_VRAM.
 * @DRM_VGPU_PARAM_LANES: lanes an access kernel (TOUCH, GATHER, SCATTER,
 *	TILE) runs as: up to this many of its accesses can fault at once,
 *	each lane waiting for its own fault while the others go on (1 on a
 *	device without ``VGPU_CAPS_LANES``; hardware.rst, "Lanes").
 */
enum drm_vgpu_param {
	DRM_VGPU_PARAM_HW_VERSION = 0,
	DRM_VGPU_PARAM_VRAM_SIZE = 1,
	DRM_VGPU_PARAM_VISIBLE_VRAM_SIZE = 2,
	DRM_VGPU_PARAM_NUM_QUEUES = 3,
	DRM_VGPU_PARAM_NUM_CONTEXTS = 4,
	DRM_VGPU_PARAM_VA_BITS = 5,
	DRM_VGPU_PARAM_PAGE_SIZES = 6,
	DRM_VGPU_PARAM_PCI_ID = 7,
	DRM_VGPU_PARAM_VA_START = 8,
	DRM_VGPU_PARAM_VA_END = 9,
	DRM_VGPU_PARAM_EXEC_QUEUES = 10,
	DRM_VGPU_PARAM_CAPS = 11,
	DRM_VGPU_PARAM_MAX_BO_SIZE = 12,
	DRM_VGPU_PARAM_SVM = 13,
	DRM_VGPU_PARAM_LANES = 14,
};

/* Modes of shared virtual memory, for %DRM_VGPU_PARAM_SVM. */
/** DRM_VGPU_SVM_MIRROR - CPU-address mirrors can be bound, in system memory */
#define DRM_VGPU_SVM_MIRROR		(1ull << 0)
/**
 * DRM_VGPU_SVM_VRAM - mirrored memory migrates into VRAM
 *
 * Set only on a kernel with DEVICE_PRIVATE.  The device pages are made
 * when the first mirror is bound; if that fails (the kernel log says
 * why), the mirror still works in system memory and the bit is clear from
 * then on.  Under the placement policy
 * ``migrate``, a GPU fault in a mirror moves the anonymous private
 * memory of the faulting chunk (``vgpu.chunk_size_kb``, cut to the mirror
 * and the CPU mapping) into VRAM, unless ADVISE keeps it in system
 * memory; file mappings stay in system memory.  A CPU access moves the
 * chunk back; the VRAM pool evicts it (back to system memory) when it
 * needs room; munmap and process exit free it.  The bytes count in
 * QUERY_PAGING's ``bytes_to_vram`` / ``bytes_to_system`` and fdinfo's
 * ``drm-vgpu-migrated-to-*``.
 */
#define DRM_VGPU_SVM_VRAM		(1ull << 1)

/**
 * struct drm_vgpu_get_param - read one device parameter
 *
 * Usage::
 *
 *	struct drm_vgpu_get_param gp = { .param = DRM_VGPU_PARAM_VRAM_SIZE };
 *
 *	if (drmIoctl(fd, DRM_IOCTL_VGPU_GET_PARAM, &gp) == 0)
 *		printf("VRAM: %llu bytes\n", (unsigned long long)gp.value);
 *
 * Errors: -EINVAL for an unknown @param, non-zero @flags or @pad.
 */
struct drm_vgpu_get_param {
	/** @param: one of &enum drm_vgpu_param. */
	__u32 param;

	/** @flags: must be zero. */
	__u32 flags;

	/** @value: out, the parameter's value. */
	__u64 value;

	/** @pad: must be zero. */
	__u64 pad;
};

/* Placements, for &drm_vgpu_bo_create.placements and .preferred. */
/** DRM_VGPU_PLACE_VRAM - device memory */
#define DRM_VGPU_PLACE_VRAM		(1u << 0)
/** DRM_VGPU_PLACE_SYSTEM - system memory, reached by the device through DMA */
#define DRM_VGPU_PLACE_SYSTEM		(1u << 1)
/** DRM_VGPU_PLACE_ALL - every placement bit BO_CREATE accepts */
#define DRM_VGPU_PLACE_ALL		(DRM_VGPU_PLACE_VRAM | DRM_VGPU_PLACE_SYSTEM)

/* Flags, for &drm_vgpu_bo_create.flags. */
/**
 * DRM_VGPU_BO_CPU_ACCESS - the CPU will map this BO often: keep its VRAM
 * copy inside the CPU-visible window.  Without it a VRAM BO may live
 * anywhere in VRAM and is moved into the window when the CPU touches it.
 */
#define DRM_VGPU_BO_CPU_ACCESS		(1u << 0)
/** DRM_VGPU_BO_CONTIGUOUS - VRAM placement in one physically contiguous run */
#define DRM_VGPU_BO_CONTIGUOUS		(1u << 1)
/**
 * DRM_VGPU_BO_PAGEABLE - demand-paged BO: VRAM is a cache of it
 *
 * The BO's home is system memory (which may be swapped out under memory
 * pressure); the GPU brings it into VRAM one chunk at a time (see
 * %DRM_VGPU_QUERY_PAGING's chunk_size, 2 MiB by default) when it first
 * touches the chunk, and the kernel evicts colder chunks back to system
 * memory as VRAM fills.  VM_BIND of such a BO writes no page-table
 * entries: the GPU's first access of each chunk faults, and the fault is
 * resolved (migrated into VRAM, or mapped in system memory, as the
 * device's placement policy says) and the access replayed, invisibly to
 * the job.  PREFETCH and ADVISE act chunk by chunk.  CPU mappings see the
 * data coherently: a CPU access to the BO first moves its VRAM chunks
 * back to system memory.
 *
 * @placements must include %DRM_VGPU_PLACE_SYSTEM; @preferred,
 * @alignment and the other flags are not allowed with it.  @size is
 * rounded up to a multiple of the chunk size.  Together, pageable BOs may
 * be many times larger than VRAM, up to what system memory and swap can
 * hold (-ENOMEM beyond, as for every BO).
 */
#define DRM_VGPU_BO_PAGEABLE		(1u << 2)
/** DRM_VGPU_BO_FLAGS_ALL - every &drm_vgpu_bo_create.flags bit */
#define DRM_VGPU_BO_FLAGS_ALL		(DRM_VGPU_BO_CPU_ACCESS | DRM_VGPU_BO_CONTIGUOUS | \
					 DRM_VGPU_BO_PAGEABLE)

/**
 * struct drm_vgpu_bo_create - create a buffer object
 *
 * The BO's memory is zeroed.  @size is rounded up to a multiple of 4 KiB,
 * and to a multiple of @alignment when @placements includes VRAM; a BO
 * that may only live in system memory ignores @alignment.  When
 * @placements holds both VRAM and
 * system memory, the kernel tries @preferred first and falls back to the
 * other; under VRAM pressure it may also move a VRAM BO to system memory
 * and back at any time (contents are kept).  A BO with only
 * %DRM_VGPU_PLACE_VRAM may still be evicted to system memory when VRAM is
 * full; it returns to VRAM the next time a job uses it.
 *
 * Usage::
 *
 *	struct drm_vgpu_bo_create bc = {
 *		.size = 2 << 20,
 *		.placements = DRM_VGPU_PLACE_VRAM | DRM_VGPU_PLACE_SYSTEM,
 *		.preferred = DRM_VGPU_PLACE_VRAM,
 *		.alignment = 2 << 20,
 *	};
 *
 *	if (drmIoctl(fd, DRM_IOCTL_VGPU_BO_CREATE, &bc) == 0)
 *		use(bc.handle);	// free with DRM_IOCTL_GEM_CLOSE
 *
 * Errors: -EINVAL for a zero @size or one that overflows when rounded,
 * empty or unknown @placements, @preferred not one of @placements, unknown
 * @flags, %DRM_VGPU_BO_CONTIGUOUS without VRAM, %DRM_VGPU_BO_PAGEABLE
 * without system memory or with another flag, @preferred or @alignment,
 * an @alignment that is not
 * a power of two between 4 KiB and 1 GiB, or non-zero @pad / @reserved;
 * -E2BIG for a size above %DRM_VGPU_PARAM_MAX_BO_SIZE or (VRAM only) above
 * the VRAM size; -ENOSPC when VRAM is full of BOs that cannot be evicted.
 *
 * -ENOMEM when nothing could back the BO.  Memory is given to a BO only
 * when it is first used, and the kernel cannot fail that gracefully, so
 * every BO is admitted at creation against what may back it at worst
 * ("memory admission" in the driver documentation): system and pageable
 * BOs need system memory (RAM and swap), and so may VRAM BOs, which TTM
 * evicts to system memory when VRAM is full and brings back only when a
 * job needs them there.  The device's BOs together may have what they
 * hold now plus what the kernel reports available and free swap, less a
 * reserve for the rest of the system.  The sysfs files ``admit_used`` and
 * ``admit_limit`` of the device show both sides: a BO_CREATE that would
 * take ``admit_used`` above ``admit_limit`` fails with -ENOMEM, rather
 * than leave the kernel to find the memory later by OOM-killing some
 * process.  -ENOMEM also when a kernel allocation fails.
 */
struct drm_vgpu_bo_create {
	/** @size: in, bytes; out, the rounded size. */
	__u64 size;

	/** @placements: in, mask of ``DRM_VGPU_PLACE_*``, not empty. */
	__u32 placements;

	/**
	 * @preferred: in, the placement tried first: 0 (VRAM if allowed) or
	 * one bit of @placements.
	 */
	__u32 preferred;

	/** @flags: in, mask of ``DRM_VGPU_BO_*``. */
	__u32 flags;

	/** @handle: out, GEM handle of the new BO. */
	__u32 handle;

	/**
	 * @alignment: in, 0 or a power of two from 4 KiB to 1 GiB: physical
	 * alignment of every VRAM chunk of the BO (2 MiB lets the GPU map it
	 * with 2 MiB pages).
	 */
	__u64 alignment;

	/** @reserved: must be zero. */
	__u64 reserved;
};

/**
 * struct drm_vgpu_bo_mmap_offset - get the fake offset to mmap() a BO with
 *
 * Map the BO with ``mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
 * fd, offset)`` on the same file.  Caching: BOs in system memory are mapped
 * cached (the device snoops); BOs in VRAM are mapped write-combined
 * through the CPU-visible window (BAR 2).  A VRAM BO outside that window is
 * moved into it on the first CPU fault (to system memory if the window is
 * full); mapping never fails because of the window.
 *
 * Usage::
 *
 *	struct drm_vgpu_bo_mmap_offset mo = { .handle = handle };
 *
 *	drmIoctl(fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo);
 *	ptr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mo.offset);
 *
 * Errors: -ENOENT for an unknown @handle, -EINVAL for non-zero @flags.
 */
struct drm_vgpu_bo_mmap_offset {
	/** @handle: in, GEM handle. */
	__u32 handle;

	/** @flags: must be zero. */
	__u32 flags;

	/** @offset: out, offset to pass to mmap(). */
	__u64 offset;
};

/* Operations, for &drm_vgpu_vm_bind_op.op. */
/** DRM_VGPU_VM_BIND_OP_MAP - map [va, va + range) to the BO at bo_offset */
#define DRM_VGPU_VM_BIND_OP_MAP		0
/** DRM_VGPU_VM_BIND_OP_UNMAP - unmap whatever is mapped in [va, va + range) */
#define DRM_VGPU_VM_BIND_OP_UNMAP	1

/* Permissions, for &drm_vgpu_vm_bind_op.flags of a MAP. */
/** DRM_VGPU_VM_BIND_READ - the GPU may read the range (PTE READ) */
#define DRM_VGPU_VM_BIND_READ		(1u << 0)
/** DRM_VGPU_VM_BIND_WRITE - the GPU may write the range (PTE WRITE) */
#define DRM_VGPU_VM_BIND_WRITE		(1u << 1)
/** DRM_VGPU_VM_BIND_EXEC - the GPU may execute from the range (PTE EXEC) */
#define DRM_VGPU_VM_BIND_EXEC		(1u << 2)
/** DRM_VGPU_VM_BIND_PERMS - every permission bit of a MAP */
#define DRM_VGPU_VM_BIND_PERMS		(DRM_VGPU_VM_BIND_READ | \
					 DRM_VGPU_VM_BIND_WRITE | \
					 DRM_VGPU_VM_BIND_EXEC)
/**
 * DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR - a MAP with no BO: the GPU sees the
 * calling process's own memory at [va, va + range), GPU VA equal to CPU VA
 * (see "CPU-address mirrors" at &struct drm_vgpu_vm_bind_op)
 */
#define DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR	(1u << 3)

/**
 * struct drm_vgpu_vm_bind_op - one map or unmap of a VM_BIND call
 *
 * Addresses and sizes are multiples of 4 KiB.  A MAP needs its range to be
 * free in the VM (-EEXIST otherwise: unmap first, in the same call if you
 * like).  An UNMAP may cover any part of any mappings; mappings that
 * straddle its ends are split and keep their other part.
 *
 * CPU-address mirrors (shared virtual memory, as xe's
 * ``DRM_XE_VM_BIND_FLAG_CPU_ADDR_MIRROR``): a MAP with
 * %DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR, @handle and @bo_offset zero, mirrors
 * [@va, @va + @range) of the address space of the process that created
 * the VM (the one that opened the file, or called VM_CREATE), whatever
 * backs it: malloc, anonymous or file mmap, the stack.  Nothing is mapped
 * at bind time; a GPU access faults and the driver maps the pages the
 * CPU has there (faulting them in as a CPU access would), in system
 * memory or, with %DRM_VGPU_SVM_VRAM, first migrated into VRAM, writable
 * only if the access was a write and the CPU mapping is writable.
 * Every change to the CPU's view (munmap, mprotect, fork's copy-on-write,
 * madvise(MADV_DONTNEED), page migration, reclaim, process exit) takes
 * the GPU's mapping away before it completes, so the GPU always sees what
 * the CPU sees.  A GPU access to an address the CPU has
 * no mapping for, or a write the CPU mapping does not allow, is a bad
 * access like any other: the VM is banned and the job fails.  The
 * permission flags limit what the GPU may do further: %DRM_VGPU_VM_BIND_READ
 * is required, %DRM_VGPU_VM_BIND_WRITE allows writes, %DRM_VGPU_VM_BIND_EXEC
 * is refused.  A mirror is removed by an UNMAP like any mapping (an UNMAP
 * cutting it leaves mirrors of the parts outside the range).  Only the
 * VM's process may bind a mirror (-EPERM for any other, for example one
 * the file was passed to); the range must lie in that process's address
 * space (below TASK_SIZE).  %DRM_VGPU_PARAM_SVM says whether mirrors work.
 */
struct drm_vgpu_vm_bind_op {
	/** @op: ``DRM_VGPU_VM_BIND_OP_*``. */
	__u32 op;

	/**
	 * @flags: MAP: non-empty mask of ``DRM_VGPU_VM_BIND_*`` permissions,
	 * and %DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR for a mirror; UNMAP: 0.
	 */
	__u32 flags;

	/** @handle: MAP: GEM handle of the BO (0 for a mirror); UNMAP: 0. */
	__u32 handle;

	/** @pad: must be zero. */
	__u32 pad;

	/** @bo_offset: MAP: offset in the BO of the first byte; mirror, UNMAP: 0. */
	__u64 bo_offset;

	/** @va: GPU virtual address of the range. */
	__u64 va;

	/** @range: length of the range in bytes. */
	__u64 range;

	/** @reserved: must be zero. */
	__u64 reserved;
};

/**
 * struct drm_vgpu_vm_bind - change the GPU mappings of a VM
 *
 * The operations run in array order, each seeing the result of the ones
 * before it.  Every operation's arguments are checked before any runs; if
 * one then fails (-EEXIST, -ENOMEM), the ones before it stay done and the
 * error is returned.  When the ioctl returns, the page tables and the TLB
 * already reflect the change: a GPU access to an unmapped range faults.
 * Unmapping memory a running job still uses makes that job fault.
 *
 * Usage::
 *
 *	struct drm_vgpu_vm_bind_op ops[2] = {
 *		{ .op = DRM_VGPU_VM_BIND_OP_UNMAP, .va = va, .range = 4096 },
 *		{ .op = DRM_VGPU_VM_BIND_OP_MAP, .handle = bo, .va = va,
 *		  .range = 4096, .flags = DRM_VGPU_VM_BIND_READ },
 *	};
 *	struct drm_vgpu_vm_bind vb = {
 *		.num_ops = 2, .ops = (uintptr_t)ops,
 *		.op_size = sizeof(ops[0]),
 *	};
 *
 *	drmIoctl(fd, DRM_IOCTL_VGPU_VM_BIND, &vb);
 *
 * Errors: -EINVAL for non-zero @flags, @pad or reserved fields, a
 * bad op or permission, @num_ops zero or above 1024, @op_size other than
 * sizeof(struct drm_vgpu_vm_bind_op), an unaligned or empty range, a range
 * outside [%DRM_VGPU_PARAM_VA_START, %DRM_VGPU_PARAM_VA_END), or a BO range
 * past the BO's end, a mirror with a BO, an offset, without READ, with
 * EXEC or past TASK_SIZE; -EOPNOTSUPP for a mirror when
 * %DRM_VGPU_PARAM_SVM is 0; -EPERM for a mirror bound by a process other
 * than the VM's; -EFAULT for an unreadable @ops; -ENOENT for an unknown
 * BO handle or @vm_id; -EEXIST when a MAP's range is not free; -ENOSPC when a MAP
 * would take the VM's page tables past the module parameter
 * ``vm_max_pt_kib`` (an UNMAP is never refused for it) or VRAM has no room
 * for the page tables it needs (they are pinned in VRAM); -ENOMEM when a
 * kernel allocation fails; -ECANCELED when the VM was banned after a GPU
 * fault.  The VM's page tables are charged to the file in fdinfo
 * (``drm-vgpu-pt-bytes``); a file that maps nothing has none.
 */
struct drm_vgpu_vm_bind {
	/** @vm_id: the VM: 0 for the file's default VM, or an id from VM_CREATE. */
	__u32 vm_id;

	/** @num_ops: number of entries at @ops, 1 to 1024. */
	__u32 num_ops;

	/** @ops: user pointer to an array of &struct drm_vgpu_vm_bind_op. */
	__u64 ops;

	/** @op_size: sizeof(struct drm_vgpu_vm_bind_op), for future growth. */
	__u32 op_size;

	/** @flags: must be zero. */
	__u32 flags;
};

/* Flags, for &drm_vgpu_exec.flags. */
/** DRM_VGPU_EXEC_CMDS_BO - the command stream is in a BO (cmds_handle) */
#define DRM_VGPU_EXEC_CMDS_BO		(1u << 0)
/** DRM_VGPU_EXEC_IN_FENCE_FD - wait for the sync_file &drm_vgpu_exec.in_fence_fd */
#define DRM_VGPU_EXEC_IN_FENCE_FD	(1u << 1)
/**
 * DRM_VGPU_EXEC_OUT_FENCE_FD - return the job's fence as a new sync_file
 * in &drm_vgpu_exec.out_fence_fd
 */
#define DRM_VGPU_EXEC_OUT_FENCE_FD	(1u << 2)
/** DRM_VGPU_EXEC_FLAGS_ALL - every &drm_vgpu_exec.flags bit */
#define DRM_VGPU_EXEC_FLAGS_ALL		(DRM_VGPU_EXEC_CMDS_BO | \
					 DRM_VGPU_EXEC_IN_FENCE_FD | \
					 DRM_VGPU_EXEC_OUT_FENCE_FD)

/**
 * DRM_VGPU_EXEC_MAX_CMDS_SIZE - largest inline command stream EXEC accepts
 * (bytes at &drm_vgpu_exec.cmds, copied into the VM's stream buffer)
 */
#define DRM_VGPU_EXEC_MAX_CMDS_SIZE	(64u << 10)
/**
 * DRM_VGPU_EXEC_MAX_BO_CMDS_SIZE - largest command stream in a BO EXEC
 * accepts (%DRM_VGPU_EXEC_CMDS_BO; bytes, the device's CALL limit)
 */
#define DRM_VGPU_EXEC_MAX_BO_CMDS_SIZE	(64u << 20)
/** DRM_VGPU_EXEC_MAX_SYNCS - largest number of in-syncobjs */
#define DRM_VGPU_EXEC_MAX_SYNCS		64

/**
 * struct drm_vgpu_exec - run a command stream on an exec queue
 *
 * The command stream is a sequence of device commands (``vgpu_hw.h``)
 * whose addresses are GPU virtual addresses of the VM @vm_id.  It comes
 * from one of two places:
 *
 * - **inline**, from user memory at @cmds: read at submission and copied
 *   into the VM's stream buffer (kernel memory, mapped read-only in the
 *   top GiB of the VM, allocated on the first inline EXEC and charged in
 *   fdinfo as ``drm-vgpu-stream-bytes``); at most
 *   %DRM_VGPU_EXEC_MAX_CMDS_SIZE bytes.  When jobs in flight fill the
 *   buffer, EXEC waits (interruptibly) for the oldest to finish.
 * - **in a BO**, with %DRM_VGPU_EXEC_CMDS_BO: bytes @cmds_offset ..
 *   @cmds_offset + @cmds_size of the BO @cmds_handle, which the VM
 *   must map, readable (VM_BIND with %DRM_VGPU_VM_BIND_READ), with one
 *   mapping covering the whole range.  The CPU does not read it: the
 *   device runs it in place, through the VM (a ``CALL`` command), so the
 *   BO may be in VRAM outside the CPU-visible window or in system memory,
 *   and the stream may be up to %DRM_VGPU_EXEC_MAX_BO_CMDS_SIZE bytes.
 *   The stream must not contain ``VGPU_OP_CALL`` (the job fails with
 *   -EIO), and its contents are read when the job runs, not at
 *   submission: userspace must not change them before the job's fence
 *   signals.
 *
 * Either way the stream runs **unprivileged** (hardware.rst, "Privilege
 * levels"): it may touch memory only through the VM, and its FENCE
 * commands only write their value to their address.  A FENCE with
 * ``VGPU_FENCE_FLAG_IRQ`` or ``VGPU_FENCE_FLAG_NOWRITE`` (which would move
 * the queue's completed seqno) stops the job: its fence ends with -EPERM,
 * the VM is not banned and the queue carries on.  The job completes only
 * when the FENCE the kernel appends, in the ring, has run.
 *
 * The job starts when every in-fence has signalled and every BO mapped in
 * the VM is idle for writes by others (implicit sync through the BOs'
 * reservation objects).  The in-fences are:
 *
 * - for each syncobj handle in @in_syncs, its fence (binary syncobj), or,
 *   when @in_points is given and the syncobj's entry there is not 0, the
 *   fence of that timeline point (``DRM_CAP_SYNCOBJ_TIMELINE`` is 1);
 * - with %DRM_VGPU_EXEC_IN_FENCE_FD, the fence of the sync_file
 *   @in_fence_fd (the fd stays the caller's).
 *
 * Every in-fence must exist when EXEC is called: a syncobj without a
 * fence, or a timeline point not yet submitted, is refused with -EINVAL,
 * as xe and msm do (there is no wait-for-submit; userspace that needs it
 * waits first with ``DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE``).  A point
 * above 0 on a syncobj whose fence is not a timeline (a binary syncobj)
 * is such a point.  A point already signalled and dropped from the
 * timeline is satisfied at once.
 *
 * The job's completion fence is added to every mapped BO's reservation
 * object and goes out:
 *
 * - to the syncobj @out_sync (if not 0): it replaces the syncobj's fence
 *   (binary), or, with @out_point not 0, is added as that timeline point
 *   (like ``DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL``; a point below the
 *   timeline's last one is added all the same, as the core does);
 * - with %DRM_VGPU_EXEC_OUT_FENCE_FD, as a new sync_file whose fd
 *   (close-on-exec) EXEC returns in @out_fence_fd.  This needs the
 *   DRM_IOWR request code %DRM_IOCTL_VGPU_EXEC; the caller closes the fd.
 *
 * Nothing goes out when EXEC fails: no syncobj changes, no fd is left.
 *
 * A job that faults (unmapped or forbidden address)
 * or runs longer than the job timeout ends with an error on its fence
 * (-EFAULT, -ETIMEDOUT); a fault also bans the VM: every later EXEC and
 * VM_BIND on that VM gets -ECANCELED.  Other VMs, of the same file or
 * others, are not affected: the jobs of other VMs on the same queue run on
 * after the queue's reset.  A reset of the whole device (a PCI
 * function-level reset, debugfs ``reset``) fails no job: the jobs it
 * interrupted run again from their start.  Jobs on the rings when the
 * device is unplugged end with -ENODEV.
 *
 * @queue names the exec queue: an index below %DRM_VGPU_PARAM_EXEC_QUEUES
 * is one of the VM's fixed queues (normal priority; the only kind before
 * EXEC_QUEUE_CREATE existed, so existing programs keep working), an id at
 * or above %DRM_VGPU_EXEC_QUEUE_ID_BASE is a queue EXEC_QUEUE_CREATE
 * returned, which must be bound to @vm_id.
 *
 * Usage::
 *
 *	uint32_t cmds[] = { VGPU_CMD_HEADER(VGPU_OP_FILL, 0, VGPU_FILL_LEN),
 *			    va, va >> 32, size, size >> 32, 0xdeadbeef };
 *	struct drm_vgpu_exec ex = {
 *		.queue = 0, .cmds = (uintptr_t)cmds, .cmds_size = sizeof(cmds),
 *		.out_sync = syncobj,
 *	};
 *
 *	drmIoctl(fd, DRM_IOCTL_VGPU_EXEC, &ex);
 *	drmSyncobjWait(fd, &syncobj, 1, INT64_MAX, 0, NULL);
 *
 * With the stream in a BO::
 *
 *	vgpu_vm_map(dev, cmd_bo, 0, cmd_va, cmd_bo_size, VGPU_MAP_R);
 *	// ... write the commands into cmd_bo, at offset 0 ...
 *	struct drm_vgpu_exec ex = {
 *		.queue = 0, .flags = DRM_VGPU_EXEC_CMDS_BO,
 *		.cmds_handle = cmd_bo, .cmds_offset = 0, .cmds_size = bytes,
 *		.out_sync = syncobj,
 *	};
 *
 * Two jobs ordered by timeline point 2, the second one's fence handed on
 * as a sync_file::
 *
 *	uint64_t point = 2;
 *	struct drm_vgpu_exec a = {
 *		... .out_sync = timeline, .out_point = 2,
 *	};
 *	struct drm_vgpu_exec b = {
 *		... .in_syncs = (uintptr_t)&timeline, .num_in_syncs = 1,
 *		.in_points = (uintptr_t)&point,
 *		.flags = DRM_VGPU_EXEC_OUT_FENCE_FD,
 *	};
 *
 *	drmIoctl(fd, DRM_IOCTL_VGPU_EXEC, &a);
 *	drmIoctl(fd, DRM_IOCTL_VGPU_EXEC, &b);	// b starts once a is done
 *	poll(&(struct pollfd){ .fd = b.out_fence_fd, .events = POLLIN }, 1, -1);
 *	close(b.out_fence_fd);
 *
 * Errors: -EINVAL for unknown @flags, non-zero @pad / @reserved,
 * @queue neither a fixed queue index nor in the range of created queue
 * ids, a created @queue bound to another VM than @vm_id, @cmds_size
 * zero, not a multiple of 4 or above
 * %DRM_VGPU_EXEC_MAX_CMDS_SIZE (inline) or %DRM_VGPU_EXEC_MAX_BO_CMDS_SIZE
 * (in a BO), @num_in_syncs above %DRM_VGPU_EXEC_MAX_SYNCS, a BO range past
 * the BO's end or a @cmds_offset not a multiple of 4, @cmds_handle /
 * @cmds_offset set without %DRM_VGPU_EXEC_CMDS_BO, a syncobj in
 * @in_syncs that holds no fence yet, a point of @in_points not yet
 * submitted (or above 0 on a binary syncobj), @out_point without
 * @out_sync, @in_fence_fd not 0 without %DRM_VGPU_EXEC_IN_FENCE_FD,
 * @out_fence_fd not 0 without %DRM_VGPU_EXEC_OUT_FENCE_FD, or an
 * @in_fence_fd that is not an open sync_file (as msm, not -EBADF);
 * -EFAULT for an unreadable @cmds, @in_syncs or @in_points; -ENOENT for
 * an unknown BO, syncobj, @vm_id or created @queue; -EMFILE when no fd is
 * free for @out_fence_fd;
 * -ENXIO when no mapping of the VM covers the BO range, -EACCES when only
 * mappings without read permission do; -ENOMEM, or -ENOSPC (the VM's
 * page-table limit) when the stream buffer cannot be set up; -EINTR /
 * -ERESTARTSYS when a signal interrupts the wait for room in it;
 * -ECANCELED when the VM is banned.  A job whose stream faults while it
 * runs (an address, or the stream itself, not mapped or not permitted)
 * fails with -EFAULT and bans the VM, like any GPU fault.
 */
struct drm_vgpu_exec {
	/** @vm_id: the VM: 0 for the file's default VM, or an id from VM_CREATE. */
	__u32 vm_id;

	/**
	 * @queue: a fixed exec queue, below %DRM_VGPU_PARAM_EXEC_QUEUES, or
	 * an id from EXEC_QUEUE_CREATE.
	 */
	__u32 queue;

	/** @flags: mask of ``DRM_VGPU_EXEC_*``. */
	__u32 flags;

	/** @cmds_size: length of the command stream in bytes. */
	__u32 cmds_size;

	/** @cmds: user pointer to the command stream (without %DRM_VGPU_EXEC_CMDS_BO). */
	__u64 cmds;

	/** @cmds_handle: BO holding the command stream (with %DRM_VGPU_EXEC_CMDS_BO). */
	__u32 cmds_handle;

	/** @num_in_syncs: number of syncobj handles at @in_syncs. */
	__u32 num_in_syncs;

	/** @cmds_offset: offset of the command stream in @cmds_handle, 4-byte aligned. */
	__u64 cmds_offset;

	/** @in_syncs: user pointer to an array of __u32 syncobj handles to wait for. */
	__u64 in_syncs;

	/** @out_sync: syncobj that receives the job's fence, or 0. */
	__u32 out_sync;

	/** @pad: must be zero. */
	__u32 pad;

	/** @reserved: must be zero. */
	__u64 reserved;

	/*
	 * Appended fields: a caller built with an older header passes a
	 * shorter struct, which drm_ioctl() fills up with zeros.
	 */

	/**
	 * @in_points: user pointer to @num_in_syncs __u64 timeline points,
	 * one per handle of @in_syncs (0: wait for the syncobj's fence, as a
	 * binary syncobj), or 0 when every in-syncobj is binary.
	 */
	__u64 in_points;

	/**
	 * @out_point: timeline point of @out_sync that the job's fence
	 * becomes, or 0 to replace @out_sync's fence (binary syncobj).
	 */
	__u64 out_point;

	/** @in_fence_fd: sync_file to wait for, with %DRM_VGPU_EXEC_IN_FENCE_FD; else 0. */
	__s32 in_fence_fd;

	/**
	 * @out_fence_fd: with %DRM_VGPU_EXEC_OUT_FENCE_FD, returns a new
	 * sync_file fd of the job's fence (the value passed in is ignored);
	 * else must be 0.
	 */
	__s32 out_fence_fd;
};

/**
 * struct drm_vgpu_wait_bo - wait until a BO is idle
 *
 * Waits for every job and every kernel move that uses the BO.
 *
 * Usage::
 *
 *	struct timespec ts;
 *	struct drm_vgpu_wait_bo wb = { .handle = bo };
 *
 *	clock_gettime(CLOCK_MONOTONIC, &ts);
 *	wb.timeout_ns = ts.tv_sec * 1000000000ll + ts.tv_nsec + 1000000000;
 *	drmIoctl(fd, DRM_IOCTL_VGPU_WAIT_BO, &wb);	// up to one second
 *
 * Errors: -ETIMEDOUT when @timeout_ns passes first (0 polls); -ENOENT for
 * an unknown @handle; -EINVAL for non-zero @flags; -EINTR / -ERESTARTSYS
 * on a signal.
 */
struct drm_vgpu_wait_bo {
	/** @handle: GEM handle. */
	__u32 handle;

	/** @flags: must be zero. */
	__u32 flags;

	/** @timeout_ns: absolute CLOCK_MONOTONIC deadline in ns (0: just poll). */
	__s64 timeout_ns;
};

/**
 * enum drm_vgpu_query_type - what QUERY reports
 *
 * @DRM_VGPU_QUERY_MEMORY: &struct drm_vgpu_query_memory.
 * @DRM_VGPU_QUERY_VM: &struct drm_vgpu_query_vm, for the VM
 *	&drm_vgpu_query.vm_id.
 * @DRM_VGPU_QUERY_DEVICE_COUNTERS: &struct drm_vgpu_query_counters, the
 *	device's global counter bank.
 * @DRM_VGPU_QUERY_PAGING: &struct drm_vgpu_query_paging: demand-paging
 *	policies and counters, of the VM &drm_vgpu_query.vm_id and of the
 *	device.
 * @DRM_VGPU_QUERY_TIME: &struct drm_vgpu_query_time: the device's cost
 *	model and modeled time, of the VM &drm_vgpu_query.vm_id, of each
 *	hardware queue and of the device.  -EOPNOTSUPP on a device without
 *	the cost model (``VGPU_CAPS_COST_MODEL`` clear in
 *	%DRM_VGPU_PARAM_CAPS).
 */
enum drm_vgpu_query_type {
	DRM_VGPU_QUERY_MEMORY = 0,
	DRM_VGPU_QUERY_VM = 1,
	DRM_VGPU_QUERY_DEVICE_COUNTERS = 2,
	DRM_VGPU_QUERY_PAGING = 3,
	DRM_VGPU_QUERY_TIME = 4,
};

/**
 * DRM_VGPU_NUM_COUNTERS - number of device counters in a counter bank;
 * indices are the ``VGPU_CTR_*`` numbers of ``vgpu_hw.h`` (L1/L2 hits and
 * misses, walks, page-table reads, faults, bytes per aperture,
 * invalidations, commands, strict-mode violations, fault overflows).
 */
#define DRM_VGPU_NUM_COUNTERS		16

/**
 * struct drm_vgpu_query_memory - memory statistics of the device
 *
 * All sizes in bytes.  "User" memory is memory of BOs created through
 * BO_CREATE or PRIME import; "kernel" memory holds page tables and other
 * internal objects.
 */
struct drm_vgpu_query_memory {
	/** @vram_size: VRAM managed by the allocator. */
	__u64 vram_size;
	/** @vram_used: VRAM allocated, user and kernel (allocator's own count). */
	__u64 vram_used;
	/** @vram_kernel_used: part of @vram_used held by kernel objects. */
	__u64 vram_kernel_used;
	/** @visible_size: CPU-visible part of VRAM. */
	__u64 visible_size;
	/** @visible_used: allocated CPU-visible VRAM. */
	__u64 visible_used;
	/** @system_used: system memory held by BOs in the system placement. */
	__u64 system_used;
	/** @bo_count: live BOs on the device (all files). */
	__u64 bo_count;
	/** @pt_pages: page-table pages in use (all VMs). */
	__u64 pt_pages;
	/** @evictions: BOs moved out of VRAM to make room. */
	__u64 evictions;
	/** @bytes_to_vram: bytes moved into VRAM by the kernel. */
	__u64 bytes_to_vram;
	/** @bytes_to_system: bytes moved out of VRAM by the kernel. */
	__u64 bytes_to_system;
	/** @vram_alloc_failures: VRAM allocations the allocator refused. */
	__u64 vram_alloc_failures;
};

/* Bits of &drm_vgpu_query_vm.state. */
/** DRM_VGPU_VM_STATE_BANNED - a GPU fault banned the VM */
#define DRM_VGPU_VM_STATE_BANNED	(1u << 0)
/** DRM_VGPU_VM_STATE_HAS_CONTEXT - the VM currently owns a hardware context */
#define DRM_VGPU_VM_STATE_HAS_CONTEXT	(1u << 1)

/**
 * struct drm_vgpu_query_vm - counters of one VM
 *
 * The device counters are those of the hardware contexts the VM ran on,
 * counted only while it owned them.
 */
struct drm_vgpu_query_vm {
	/** @state: ``DRM_VGPU_VM_STATE_*``. */
	__u32 state;
	/** @context: hardware context currently owned, or ~0. */
	__u32 context;
	/** @device: device counters, indexed by ``VGPU_CTR_*``. */
	__u64 device[DRM_VGPU_NUM_COUNTERS];
	/** @mappings: live GPU mappings. */
	__u64 mappings;
	/** @mapped_bytes: bytes of VA mapped. */
	__u64 mapped_bytes;
	/** @pt_pages: page-table pages of this VM. */
	__u64 pt_pages;
	/** @leaves_4k: 4 KiB PTEs written since the VM was created. */
	__u64 leaves_4k;
	/** @leaves_64k: 64 KiB fragments written. */
	__u64 leaves_64k;
	/** @leaves_2m: 2 MiB leaves written. */
	__u64 leaves_2m;
	/** @tlb_invalidations: TLB invalidation requests issued for the VM. */
	__u64 tlb_invalidations;
	/** @context_switches: times the VM got a hardware context. */
	__u64 context_switches;
	/** @jobs_submitted: EXEC calls accepted. */
	__u64 jobs_submitted;
	/** @jobs_completed: jobs whose fence signalled without error. */
	__u64 jobs_completed;
	/** @jobs_failed: jobs that ended with an error (fault, timeout). */
	__u64 jobs_failed;
	/** @gpu_faults: fault records received for the VM. */
	__u64 gpu_faults;
};

/**
 * struct drm_vgpu_query_counters - a bank of device counters
 */
struct drm_vgpu_query_counters {
	/** @counters: indexed by ``VGPU_CTR_*``. */
	__u64 counters[DRM_VGPU_NUM_COUNTERS];
};

/** DRM_VGPU_QUERY_TIME_QUEUES - exec queues &struct drm_vgpu_query_time has room for */
#define DRM_VGPU_QUERY_TIME_QUEUES	8

/**
 * struct drm_vgpu_query_time - modeled GPU time, QUERY type
 * %DRM_VGPU_QUERY_TIME
 *
 * The device charges every command a modeled cost from the bytes it moved
 * through VRAM and the link, its TLB misses and page-walk reads, and a
 * per-command overhead, and a queue stalled on a fault the fault service
 * plus the commands the device ran meanwhile (hardware.rst, "Cost
 * model").  Modeled time does not depend on how fast the host ran the
 * device.  Bandwidths in MB/s (10^6 bytes per second), times in ns.
 */
struct drm_vgpu_query_time {
	/** @link: the preset, ``VGPU_LINK_*`` (0 PCIe 3.0, 1 PCIe 4.0, 2 PCIe 5.0, 3 C2C). */
	__u32 link;
	/** @dilation: pacing factor, 0: off. */
	__u32 dilation;
	/** @vram_bw: VRAM bandwidth, MB/s. */
	__u32 vram_bw;
	/** @link_bw: link bandwidth per direction, MB/s. */
	__u32 link_bw;
	/** @link_lat_ns: latency of a link transaction. */
	__u32 link_lat_ns;
	/** @tlb_miss_ns: cost of an L1 TLB miss. */
	__u32 tlb_miss_ns;
	/** @walk_level_ns: cost of a page-table entry read in VRAM. */
	__u32 walk_level_ns;
	/** @fault_ns: fault service per stall, besides the copies. */
	__u32 fault_ns;
	/** @cmd_ns: overhead of each command. */
	__u32 cmd_ns;
	/**
	 * @num_queues: entries of @queue_ns and @queue_stall_ns in use: the
	 * fixed exec queues (%DRM_VGPU_PARAM_EXEC_QUEUES).
	 */
	__u32 num_queues;
	/**
	 * @vm_modeled_ns: modeled time of the VM &drm_vgpu_query.vm_id:
	 * ``CTR_MODELED_NS`` of the hardware contexts it ran on, counted
	 * while it held them (fdinfo ``drm-vgpu-modeled-time`` sums a
	 * file's VMs).
	 */
	__u64 vm_modeled_ns;
	/** @vm_stall_ns: the part of @vm_modeled_ns stalled on faults. */
	__u64 vm_stall_ns;
	/** @modeled_ns: the device's global ``CTR_MODELED_NS``. */
	__u64 modeled_ns;
	/** @stall_ns: the device's global ``CTR_STALL_NS``. */
	__u64 stall_ns;
	/**
	 * @kernel_ns: the clock of the kernel's own ring (migrations,
	 * clears, page-table copies): modeled ns of all it ran since device
	 * reset.
	 */
	__u64 kernel_ns;
	/**
	 * @queue_ns: the clock of the ring behind each fixed exec queue, what
	 * a TIMESTAMP on it writes: modeled ns of all the work of every
	 * client it ran and stalled since device reset.
	 */
	__u64 queue_ns[DRM_VGPU_QUERY_TIME_QUEUES];
	/** @queue_stall_ns: the part of @queue_ns stalled on faults. */
	__u64 queue_stall_ns[DRM_VGPU_QUERY_TIME_QUEUES];
	/**
	 * @vm_queue_ns: modeled time of the jobs of the VM
	 * &drm_vgpu_query.vm_id on each fixed exec queue's ring (its own
	 * and those of queues EXEC_QUEUE_CREATE made on that ring): each
	 * job is charged the ring's clock as it ended less the clock as the
	 * job before it ended, so the VMs' figures on a ring add up to its
	 * @queue_ns since they started; a job the ring stopped in (timeout,
	 * bad command, cancelled fault) is charged its time until then.  All
	 * zero on a device without ``CAPS_FENCE_CLOCK`` (fdinfo
	 * ``drm-vgpu-modeled-time-q<N>`` shows the sum over a file's VMs).
	 */
	__u64 vm_queue_ns[DRM_VGPU_QUERY_TIME_QUEUES];
};

/**
 * struct drm_vgpu_query - read statistics and counters
 *
 * With @size 0, only sets @size to the size of the report.  Otherwise
 * copies min(@size, report size) bytes of the report to @data and sets
 * @size to the number copied; older userspace with a shorter struct keeps
 * working.
 *
 * Usage::
 *
 *	struct drm_vgpu_query_memory mem;
 *	struct drm_vgpu_query q = {
 *		.type = DRM_VGPU_QUERY_MEMORY,
 *		.size = sizeof(mem), .data = (uintptr_t)&mem,
 *	};
 *
 *	drmIoctl(fd, DRM_IOCTL_VGPU_QUERY, &q);
 *
 * Errors: -EINVAL for an unknown @type, non-zero @flags, or a non-zero
 * @vm_id with a type that reports no VM; -ENOENT for an unknown @vm_id;
 * -EFAULT for an unwritable @data.
 */
struct drm_vgpu_query {
	/** @type: &enum drm_vgpu_query_type. */
	__u32 type;

	/** @size: in, bytes available at @data; out, bytes written (or needed). */
	__u32 size;

	/** @data: user pointer to the report buffer. */
	__u64 data;

	/** @flags: must be zero. */
	__u32 flags;

	/**
	 * @vm_id: the VM reported by %DRM_VGPU_QUERY_VM,
	 * %DRM_VGPU_QUERY_PAGING and %DRM_VGPU_QUERY_TIME (0: the file's
	 * default VM); must be zero for
	 * the other types.  Was a must-be-zero pad before VM_CREATE existed.
	 */
	__u32 vm_id;
};

/**
 * DOC: vgpu demand paging uapi
 *
 * VRAM is a cache over system memory.  Besides the whole-BO moves TTM
 * makes under pressure, userspace can steer placement per GPU VA range:
 *
 * - PREFETCH moves the memory behind a range of a VM to VRAM or
 *   to system memory now, instead of at the next fault or job.
 * - ADVISE records hints for a range: the preferred placement, that the
 *   range is mostly read, or that the GPU should always keep a mapping.
 * - QUERY with %DRM_VGPU_QUERY_PAGING reports the paging policies and
 *   counters (faults, fault batches, duplicates, bytes migrated each way,
 *   evictions, thrash events, prefetched bytes used and wasted).
 *
 * The eviction policy (``lru``, ``lru2``) and placement policy
 * (``migrate``, ``remote``) are device-wide; they are set by module
 * parameters and the device's sysfs files, not by these ioctls.
 */

/**
 * struct drm_vgpu_prefetch - move the memory behind a VA range now
 *
 * Every byte of [@va, @va + @range) must be mapped in the VM @vm_id.  The
 * memory behind it is moved to @placement: whole buffer objects for
 * ordinary BOs (a BO partly inside the range moves entirely), chunk by
 * chunk for pageable memory.  A BO that may not live in @placement is
 * left where it is and counted in @bytes_skipped.  The GPU mappings are
 * updated before the ioctl returns or at the next job at the latest.
 * An ordinary BO moved out of the placement BO_CREATE made it prefer
 * goes back there when a job next needs it: PREFETCH into the preferred
 * placement (typically VRAM, after an eviction) is what lasts.
 *
 * CPU-address mirrors in the range: with %DRM_VGPU_PLACE_VRAM and
 * %DRM_VGPU_SVM_VRAM, each chunk of anonymous private memory not advised
 * to stay in system memory migrates into VRAM; with
 * %DRM_VGPU_PLACE_SYSTEM the mirror's pages in VRAM come back.  Without
 * %DRM_VGPU_SVM_VRAM nothing moves (@bytes_moved 0).  In every case the
 * GPU mapping of what the CPU has there is then populated, read-only as a
 * read fault maps it, so that the GPU's reads do not fault (a write still
 * faults once to take the pages writable).  Parts of a mirror the CPU has
 * no mapping for are left alone.  Bytes a PREFETCH moved into VRAM also
 * count as prefetched bytes.
 *
 * Usage::
 *
 *	struct drm_vgpu_prefetch pf = {
 *		.va = va, .range = 64 << 20,
 *		.placement = DRM_VGPU_PLACE_VRAM,
 *	};
 *
 *	if (drmIoctl(fd, DRM_IOCTL_VGPU_PREFETCH, &pf) == 0)
 *		printf("%llu bytes moved\n", (unsigned long long)pf.bytes_moved);
 *
 * Errors: -EINVAL for non-zero @flags / @pad, a @placement
 * other than exactly one of %DRM_VGPU_PLACE_VRAM and
 * %DRM_VGPU_PLACE_SYSTEM, an unaligned or empty range, or one outside
 * [%DRM_VGPU_PARAM_VA_START, %DRM_VGPU_PARAM_VA_END); -ENOENT when part of
 * the range is not mapped, or for an unknown @vm_id; -ECANCELED when the
 * VM is banned; -ENOMEM / -ENOSPC when the memory cannot be found even by evicting; -EIO
 * when the copy engine failed a copy (the data stays where it was);
 * -EINTR / -ERESTARTSYS on a signal (what moved stays moved).
 */
struct drm_vgpu_prefetch {
	/** @va: start of the range, 4 KiB aligned. */
	__u64 va;

	/** @range: length of the range in bytes, 4 KiB aligned, not zero. */
	__u64 range;

	/** @placement: %DRM_VGPU_PLACE_VRAM or %DRM_VGPU_PLACE_SYSTEM. */
	__u32 placement;

	/** @flags: must be zero. */
	__u32 flags;

	/** @bytes_moved: out, bytes the kernel moved. */
	__u64 bytes_moved;

	/** @bytes_skipped: out, bytes of BOs @placement is not allowed for. */
	__u64 bytes_skipped;

	/**
	 * @vm_id: the VM (0: the file's default VM).  With @pad, was a
	 * must-be-zero reserved field before VM_CREATE existed.
	 */
	__u32 vm_id;

	/** @pad: must be zero. */
	__u32 pad;
};

/**
 * enum drm_vgpu_advice - hints ADVISE records for a VA range
 *
 * @DRM_VGPU_ADVICE_PREFERRED_PLACEMENT: @value is %DRM_VGPU_PLACE_VRAM or
 *	%DRM_VGPU_PLACE_SYSTEM: where the memory should live when there is
 *	a choice.  The BOs behind the range that may live there are moved
 *	there at once, as by PREFETCH.  @value 0 clears the hint.
 * @DRM_VGPU_ADVICE_READ_MOSTLY: @value 1 or 0: the range is rarely
 *	written.  Pageable memory the GPU reads is then duplicated: a VRAM
 *	copy beside the system pages, both valid, the GPU mapping the one
 *	and the CPU the other read-only, and evicted without a copy back.
 *	A write collapses the copies (a GPU write keeps the VRAM copy, a CPU
 *	write the system pages), as does @value 0; no write is lost.
 * @DRM_VGPU_ADVICE_ACCESSED_BY: @value is a mask of
 *	``DRM_VGPU_ACCESSOR_*``: with %DRM_VGPU_ACCESSOR_GPU the GPU should
 *	keep a mapping of the range wherever it lives, rather than fault on
 *	the next access after a move.  @value 0 clears the hint.
 *
 * The memory of ordinary BOs moves whole, only while no job uses it, and
 * is mapped again before the next job: for it, READ_MOSTLY and
 * ACCESSED_BY are accepted and checked but change nothing.
 *
 * On CPU-address mirrors, PREFERRED_PLACEMENT %DRM_VGPU_PLACE_SYSTEM
 * keeps the pages of the range in system memory (GPU faults map them
 * there and, with %DRM_VGPU_SVM_VRAM, the pages already in VRAM come back
 * at once); %DRM_VGPU_PLACE_VRAM lifts it and, with %DRM_VGPU_SVM_VRAM,
 * moves the range into VRAM at once, as PREFETCH does; 0 lifts it (the
 * next fault migrates again).  With %DRM_VGPU_SVM_VRAM, a GPU fault in a mirror leaves the
 * pages where they are (system memory or VRAM) and maps them there where
 * the range is advised ACCESSED_BY %DRM_VGPU_ACCESSOR_GPU, and for a read
 * where it is advised READ_MOSTLY: a mirror's pages cannot have two valid
 * copies, so the GPU reads read-mostly memory in system memory, and a GPU
 * write migrates it into VRAM as without the advice.  After the kernel
 * moved pages advised ACCESSED_BY (a CPU touch, an eviction, PREFETCH),
 * it maps them again where they are, read-only, shortly after the move,
 * and at the latest before an EXEC that follows the move queues its job.
 * PREFETCH moves mirrors whatever these two say.
 */
enum drm_vgpu_advice {
	DRM_VGPU_ADVICE_PREFERRED_PLACEMENT = 0,
	DRM_VGPU_ADVICE_READ_MOSTLY = 1,
	DRM_VGPU_ADVICE_ACCESSED_BY = 2,
};

/** DRM_VGPU_ACCESSOR_GPU - &drm_vgpu_advise.value bit: the GPU, through the VM */
#define DRM_VGPU_ACCESSOR_GPU		(1u << 0)

/**
 * struct drm_vgpu_advise - give the kernel a hint about a VA range
 *
 * Hints belong to the VA range of the VM @vm_id, not to the BOs: they
 * apply to whatever is mapped there now, and go away with the range when
 * it is unmapped.  A later ADVISE of the same kind on an overlapping range
 * replaces the hint there.  Hints never change what the GPU may access,
 * only where the memory lives and when it moves.
 *
 * Usage::
 *
 *	struct drm_vgpu_advise ad = {
 *		.va = va, .range = 16 << 20,
 *		.advice = DRM_VGPU_ADVICE_PREFERRED_PLACEMENT,
 *		.value = DRM_VGPU_PLACE_SYSTEM,
 *	};
 *
 *	drmIoctl(fd, DRM_IOCTL_VGPU_ADVISE, &ad);
 *
 * Errors: -EINVAL for an unknown @advice, a @value not valid for it,
 * non-zero @flags / @pad, an unaligned or empty range, or one
 * outside [%DRM_VGPU_PARAM_VA_START, %DRM_VGPU_PARAM_VA_END); -ENOENT when
 * part of the range is not mapped, or for an unknown @vm_id; -ECANCELED when the VM is banned;
 * -ENOMEM; a placement preference that moves memory fails as PREFETCH
 * does (-ENOMEM / -ENOSPC, -EIO when a copy failed, -EINTR /
 * -ERESTARTSYS), the hint recorded and what moved staying moved.
 */
struct drm_vgpu_advise {
	/** @va: start of the range, 4 KiB aligned. */
	__u64 va;

	/** @range: length of the range in bytes, 4 KiB aligned, not zero. */
	__u64 range;

	/** @advice: &enum drm_vgpu_advice. */
	__u32 advice;

	/** @flags: must be zero. */
	__u32 flags;

	/** @value: the hint's value, see &enum drm_vgpu_advice. */
	__u64 value;

	/**
	 * @vm_id: the VM (0: the file's default VM).  With @pad, was a
	 * must-be-zero reserved field before VM_CREATE existed.
	 */
	__u32 vm_id;

	/** @pad: must be zero. */
	__u32 pad;
};

/**
 * struct drm_vgpu_paging_counters - demand-paging counters
 *
 * Counted by the kernel since the VM was created (per-VM bank) or the
 * driver was loaded (device bank).  Bytes are whole chunks.
 */
struct drm_vgpu_paging_counters {
	/** @faults: fault records handled by the paging code. */
	__u64 faults;
	/** @fault_batches: batches the fault handler processed. */
	__u64 fault_batches;
	/** @fault_duplicates: records merged into another of the same page. */
	__u64 fault_duplicates;
	/** @faults_resolved: unique faulting pages resolved (replayed). */
	__u64 faults_resolved;
	/** @faults_cancelled: unique faulting pages that could not be resolved. */
	__u64 faults_cancelled;
	/** @bytes_to_vram: bytes migrated from system memory into VRAM. */
	__u64 bytes_to_vram;
	/** @bytes_to_system: bytes migrated from VRAM to system memory. */
	__u64 bytes_to_system;
	/** @evictions: chunks, BOs or SVM blocks evicted from VRAM for room. */
	__u64 evictions;
	/**
	 * @remote_maps: chunks mapped in system memory instead of migrated
	 * (for CPU-address mirrors with %DRM_VGPU_SVM_VRAM: faults served
	 * from system memory).
	 */
	__u64 remote_maps;
	/** @thrash_events: chunks found thrashing and pinned to system memory. */
	__u64 thrash_events;
	/** @prefetch_bytes: bytes moved ahead of use (PREFETCH or detectors). */
	__u64 prefetch_bytes;
	/** @prefetch_used_bytes: prefetched bytes the GPU then accessed. */
	__u64 prefetch_used_bytes;
	/** @prefetch_wasted_bytes: prefetched bytes evicted before any access. */
	__u64 prefetch_wasted_bytes;
	/** @fault_ns: time spent resolving fault batches, in ns. */
	__u64 fault_ns;
};

/**
 * struct drm_vgpu_query_paging - demand-paging state, QUERY type
 * %DRM_VGPU_QUERY_PAGING
 *
 * The policy names are those of the sysfs files ``eviction_policy`` and
 * ``placement_policy``, NUL-terminated.
 */
struct drm_vgpu_query_paging {
	/** @eviction_policy: active eviction policy (``lru``, ``lru2``). */
	char eviction_policy[16];
	/** @placement_policy: active placement policy (``migrate``, ``remote``). */
	char placement_policy[16];
	/** @chunk_size: migration granule in bytes. */
	__u64 chunk_size;
	/** @fault_batch_limit: fault records handled per batch at most. */
	__u32 fault_batch_limit;
	/** @prefetch: automatic prefetch on fault streams is on (1) or off (0). */
	__u32 prefetch;
	/** @vm: counters of the VM &drm_vgpu_query.vm_id. */
	struct drm_vgpu_paging_counters vm;
	/** @device: counters of the whole device. */
	struct drm_vgpu_paging_counters device;
};

/**
 * DOC: vgpu VMs and exec queues uapi
 *
 * A file starts with one GPU VM, its default VM, whose id is 0: it exists
 * as long as the file and cannot be destroyed.  VM_CREATE makes another
 * one, empty, with the same VA layout, and returns its id (1 to
 * %DRM_VGPU_MAX_VMS); VM_DESTROY ends it.  A VM's id is freed for reuse
 * once destroyed; an ioctl racing VM_DESTROY either completes on the VM
 * before it goes or gets -ENOENT.  Destroying a VM is what closing the
 * file does to the default VM: VM_DESTROY waits, killably, until the VM's
 * queued jobs have reached the device (a job waiting for a syncobj waits
 * with it; at process exit, or on SIGKILL, what is left is killed), bans
 * the VM, so that a job not yet started fails with -ECANCELED, and waits
 * at most one second, killably, for the jobs on the device; if they still
 * run, the VM's mappings, page tables and hardware context are freed when
 * they end, which is at the latest one job timeout later (a banned VM's
 * jobs get no extension).
 *
 * Every VM, the default one included, has one fixed exec queue of normal
 * priority per ring: EXEC @queue values below %DRM_VGPU_PARAM_EXEC_QUEUES.
 * EXEC_QUEUE_CREATE makes an exec queue bound to one VM, on one ring, with
 * a priority (&enum drm_vgpu_queue_priority); its id is at or above
 * %DRM_VGPU_EXEC_QUEUE_ID_BASE, so it never collides with a fixed index.
 * On a ring the scheduler picks the next job from the highest-priority
 * queue that has one ready; a job already handed to the ring is never
 * preempted.  A VM with created queues cannot be destroyed (-EBUSY): its
 * queues go first.
 *
 * Hardware contexts (the device has a few, the module parameter
 * ``max_contexts`` lends fewer) are not tied to VMs: a VM takes one when
 * its job runs, from an idle VM if none is free, so a file may have more
 * VMs than the device has contexts.
 */

/** DRM_VGPU_MAX_VMS - VMs a file may create besides its default VM */
#define DRM_VGPU_MAX_VMS		64

/**
 * struct drm_vgpu_vm_create - create a GPU VM
 *
 * Usage::
 *
 *	struct drm_vgpu_vm_create vc = {};
 *
 *	drmIoctl(fd, DRM_IOCTL_VGPU_VM_CREATE, &vc);
 *	// vc.vm_id names the VM in VM_BIND, EXEC, PREFETCH, ADVISE, QUERY
 *
 * Errors: -EINVAL for non-zero @flags or @reserved; -EBUSY when the file
 * already has %DRM_VGPU_MAX_VMS VMs besides its default one; -ENOMEM.
 */
struct drm_vgpu_vm_create {
	/** @flags: must be zero. */
	__u32 flags;

	/** @vm_id: out, the new VM's id (never 0). */
	__u32 vm_id;

	/** @reserved: must be zero. */
	__u64 reserved;
};

/**
 * struct drm_vgpu_vm_destroy - destroy a GPU VM made by VM_CREATE
 *
 * Usage::
 *
 *	struct drm_vgpu_vm_destroy vd = { .vm_id = id };
 *
 *	drmIoctl(fd, DRM_IOCTL_VGPU_VM_DESTROY, &vd);
 *
 * Errors: -EINVAL for @vm_id 0 (the default VM lives as long as the file)
 * or non-zero @pad; -ENOENT for an unknown @vm_id; -EBUSY while exec
 * queues created for the VM exist.
 */
struct drm_vgpu_vm_destroy {
	/** @vm_id: the VM. */
	__u32 vm_id;

	/** @pad: must be zero. */
	__u32 pad;
};

/**
 * enum drm_vgpu_queue_priority - priority of a created exec queue
 *
 * @DRM_VGPU_QUEUE_PRIORITY_LOW: after every other queue of the ring.
 * @DRM_VGPU_QUEUE_PRIORITY_NORMAL: the priority of the fixed queues.
 * @DRM_VGPU_QUEUE_PRIORITY_HIGH: before normal and low queues; needs
 *	``CAP_SYS_NICE``, as in xe.
 *
 * They map onto the DRM scheduler's priorities of the ring (high, normal,
 * low; the kernel's own work stays above them all).
 */
enum drm_vgpu_queue_priority {
	DRM_VGPU_QUEUE_PRIORITY_LOW = 0,
	DRM_VGPU_QUEUE_PRIORITY_NORMAL = 1,
	DRM_VGPU_QUEUE_PRIORITY_HIGH = 2,
};

/** DRM_VGPU_EXEC_QUEUE_ID_BASE - first id EXEC_QUEUE_CREATE hands out */
#define DRM_VGPU_EXEC_QUEUE_ID_BASE	256
/** DRM_VGPU_MAX_EXEC_QUEUES - exec queues a file may create */
#define DRM_VGPU_MAX_EXEC_QUEUES	64

/**
 * struct drm_vgpu_exec_queue_create - create an exec queue bound to a VM
 *
 * Usage::
 *
 *	struct drm_vgpu_exec_queue_create qc = {
 *		.vm_id = vm, .ring = 0,
 *		.priority = DRM_VGPU_QUEUE_PRIORITY_HIGH,
 *	};
 *
 *	drmIoctl(fd, DRM_IOCTL_VGPU_EXEC_QUEUE_CREATE, &qc);
 *	// EXEC with .vm_id = vm, .queue = qc.queue_id
 *
 * Errors: -EINVAL for a @ring not below %DRM_VGPU_PARAM_EXEC_QUEUES, an
 * unknown @priority, non-zero @flags or @reserved; -ENOENT for an unknown
 * @vm_id; -EPERM for %DRM_VGPU_QUEUE_PRIORITY_HIGH without
 * ``CAP_SYS_NICE``; -EBUSY when the file already has
 * %DRM_VGPU_MAX_EXEC_QUEUES created queues; -ENOMEM.
 */
struct drm_vgpu_exec_queue_create {
	/** @vm_id: the VM the queue's jobs run in. */
	__u32 vm_id;

	/** @ring: the ring the queue feeds, below %DRM_VGPU_PARAM_EXEC_QUEUES. */
	__u32 ring;

	/** @priority: &enum drm_vgpu_queue_priority. */
	__u32 priority;

	/** @flags: must be zero. */
	__u32 flags;

	/** @queue_id: out, the queue's id for &drm_vgpu_exec.queue. */
	__u32 queue_id;

	/** @pad: must be zero. */
	__u32 pad;

	/** @reserved: must be zero. */
	__u64 reserved;
};

/**
 * struct drm_vgpu_exec_queue_destroy - destroy a created exec queue
 *
 * Like closing the file for its jobs: EXEC_QUEUE_DESTROY waits, killably,
 * until the queue's jobs have been handed to the ring (at process exit, or
 * on SIGKILL, those left are killed and their fences end with an error);
 * jobs on the ring run to completion.
 *
 * Errors: -EINVAL for non-zero @pad; -ENOENT for an unknown @queue_id.
 */
struct drm_vgpu_exec_queue_destroy {
	/** @queue_id: the queue. */
	__u32 queue_id;

	/** @pad: must be zero. */
	__u32 pad;
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VGPU_DRM_H_ */
