/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 *
 * The counter registry: one line per counter.  Plain macros only, so that
 * userspace tests can include it too (tests/kselftest/vgpu/vgpu_stats_test.c
 * checks that every interface shows what a line says it does, and
 * tests/host/docs-counters.sh that the documentation lists it).  See the
 * "counter registry" DOC in vgpu_stats.c.
 */
#ifndef __VGPU_STATS_LIST_H__
#define __VGPU_STATS_LIST_H__

/* Where the device-wide value comes from (column dev) ... */
/*	VGPU_SRC_HW(CTR): the device's global bank, VGPU_CTR_<CTR> */
/*	VGPU_SRC_SW: the driver's device bank (vgpu_stats_add()) */
/*	VGPU_SRC_FN: read from where the driver keeps it (vgpu_stats.c) */
/*	VGPU_SRC_NONE: no device-wide value */
/* ... and the value per client (column client, summed over a file's VMs) */
/*	VGPU_SRC_HW(CTR): the device banks of the contexts the VMs ran on */
/*	VGPU_SRC_SW: the VMs' banks (vgpu_stats_add(), vgpu_stats_vm_add()) */
/*	VGPU_SRC_NONE: no value per client */

/* Units (column unit) */
#define VGPU_STAT_UNIT_COUNT		0
#define VGPU_STAT_UNIT_BYTES		1
#define VGPU_STAT_UNIT_NS		2

/* Groups (column group): the debugfs "counters" section, [device] and so on */
#define VGPU_STAT_GROUP_DEVICE		0	/* the device's own counters */
#define VGPU_STAT_GROUP_DRIVER		1
#define VGPU_STAT_GROUP_PAGING		2
#define VGPU_STAT_GROUP_CLIENT		3	/* per client only */

/* Views (column views) besides fdinfo, which shows every line with a key */
#define VGPU_STAT_SYSFS			(1u << 0)	/* counters/<name> */
#define VGPU_STAT_DEBUGFS		(1u << 1)	/* "counters", in its group */
#define VGPU_STAT_GAUGE			(1u << 2)	/* not a counter: no reset */
#define VGPU_STAT_SD			(VGPU_STAT_SYSFS | VGPU_STAT_DEBUGFS)

/*
 * VGPU_STATS_LIST(X) calls
 *	X(ID, name, fdinfo, unit, group, dev, client, views, doc)
 * for each counter: ID names it in code (VGPU_STAT_<ID>), name in sysfs
 * and debugfs; fdinfo is its key after "drm-vgpu-" (NULL: not in fdinfo).
 * fdinfo prints its keys in the order of the list, debugfs each group
 * in that order but the device's bank in VGPU_CTR_* order; sysfs has no
 * order.  (The first lines keep fdinfo's order from before the registry.)
 */
#define VGPU_STATS_LIST(X)						\
	X(FAULTS_HANDLED, faults_handled, "faults", COUNT, PAGING,	\
	  VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,			\
	  "fault records the driver read and handled")			\
	X(BYTES_TO_VRAM, bytes_to_vram, "migrated-to-vram", BYTES, DRIVER, \
	  VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,			\
	  "moved into VRAM by the kernel (BOs, chunks, SVM memory)")		\
	X(BYTES_TO_SYSTEM, bytes_to_system, "migrated-to-system", BYTES, \
	  DRIVER, VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,		\
	  "moved out of VRAM by the kernel (BOs, chunks, SVM memory)")		\
	X(EVICTIONS, evictions, "evictions", COUNT, DRIVER,		\
	  VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,			\
	  "BOs, chunks and SVM blocks moved out of VRAM to make room")		\
	X(THRASH_EVENTS, thrash_events, "thrash-events", COUNT, PAGING,	\
	  VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,			\
	  "chunks found thrashing and kept in system memory")		\
	X(THRASH_UNPINS, thrash_unpins, NULL, COUNT, PAGING,		\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "pinned chunks whose pin ran out, let come back")		\
	X(FAULT_BATCHES, fault_batches, "fault-batches", COUNT, PAGING,	\
	  VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,			\
	  "batches the fault records were handled in")			\
	X(FAULT_DUPLICATES, fault_duplicates, "fault-duplicates", COUNT, \
	  PAGING, VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,		\
	  "records merged into another of the same VM and page")	\
	X(FAULTS_RESOLVED, faults_resolved, "faults-resolved", COUNT,	\
	  PAGING, VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,		\
	  "faulting pages resolved and replayed")			\
	X(FAULTS_CANCELLED, faults_cancelled, "faults-cancelled", COUNT, \
	  PAGING, VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,		\
	  "faulting pages that could not be resolved")			\
	X(REMOTE_MAPS, remote_maps, "remote-maps", COUNT, PAGING,	\
	  VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,			\
	  "chunks mapped in system memory instead of migrated")		\
	X(PREFETCH_BYTES, prefetch_bytes, "prefetch-bytes", BYTES, PAGING, \
	  VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,			\
	  "moved into VRAM ahead of use")				\
	X(PREFETCH_USED_BYTES, prefetch_used_bytes, "prefetch-used-bytes", \
	  BYTES, PAGING, VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,	\
	  "prefetched bytes the GPU then used")				\
	X(PREFETCH_WASTED_BYTES, prefetch_wasted_bytes,			\
	  "prefetch-wasted-bytes", BYTES, PAGING,			\
	  VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,			\
	  "prefetched bytes evicted unused")				\
	X(FAULT_NS, fault_ns, "fault-time", NS, PAGING,			\
	  VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,			\
	  "time spent handling fault batches, copies not waited for")	\
	X(FAULT_COPY_WAIT_NS, fault_copy_wait_ns, NULL, NS, PAGING,	\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "time waiting for the batches' chunk copies")		\
	X(READ_MOSTLY_DUPS, read_mostly_dups, NULL, COUNT, PAGING,	\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "READ_MOSTLY chunks duplicated in VRAM")			\
	X(READ_MOSTLY_COLLAPSES, read_mostly_collapses, NULL, COUNT,	\
	  PAGING, VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,		\
	  "duplicated chunks collapsed to one copy")			\
	X(TLB_L1_HITS, tlb_l1_hits, "tlb-l1-hits", COUNT, DEVICE,	\
	  VGPU_SRC_HW(L1_HIT), VGPU_SRC_HW(L1_HIT), VGPU_STAT_SD,	\
	  "L1 TLB lookups that hit")					\
	X(TLB_L1_MISSES, tlb_l1_misses, "tlb-l1-misses", COUNT, DEVICE,	\
	  VGPU_SRC_HW(L1_MISS), VGPU_SRC_HW(L1_MISS), VGPU_STAT_SD,	\
	  "L1 TLB lookups that missed")					\
	X(TLB_L2_HITS, tlb_l2_hits, "tlb-l2-hits", COUNT, DEVICE,	\
	  VGPU_SRC_HW(L2_HIT), VGPU_SRC_HW(L2_HIT), VGPU_STAT_SD,	\
	  "L2 TLB lookups that hit")					\
	X(TLB_L2_MISSES, tlb_l2_misses, "tlb-l2-misses", COUNT, DEVICE,	\
	  VGPU_SRC_HW(L2_MISS), VGPU_SRC_HW(L2_MISS), VGPU_STAT_SD,	\
	  "L2 TLB lookups that missed")					\
	X(PT_WALKS, pt_walks, "pt-walks", COUNT, DEVICE,		\
	  VGPU_SRC_HW(WALKS), VGPU_SRC_HW(WALKS), VGPU_STAT_SD,		\
	  "page-table walks started")					\
	X(MODELED_NS, modeled_ns, "modeled-time", NS, DEVICE,		\
	  VGPU_SRC_HW(MODELED_NS), VGPU_SRC_HW(MODELED_NS), VGPU_STAT_SD, \
	  "modeled GPU time the queues ran and stalled (cost model)")	\
	X(STALL_NS, stall_ns, "stall-time", NS, DEVICE,		\
	  VGPU_SRC_HW(STALL_NS), VGPU_SRC_HW(STALL_NS), VGPU_STAT_SD,	\
	  "of the modeled time, stalled on faults")			\
	X(TLB_INVALIDATIONS, tlb_invalidations, "tlb-invalidations",	\
	  COUNT, DEVICE, VGPU_SRC_HW(INVALIDATIONS), VGPU_SRC_SW,	\
	  VGPU_STAT_SD, "invalidations the device completed; "		\
	  "per client: requests the driver issued for its VMs")		\
	X(JOBS_SUBMITTED, jobs_submitted, "jobs-submitted", COUNT, CLIENT, \
	  VGPU_SRC_NONE, VGPU_SRC_SW, 0, "EXEC calls accepted")		\
	X(JOBS_COMPLETED, jobs_completed, "jobs-completed", COUNT, CLIENT, \
	  VGPU_SRC_NONE, VGPU_SRC_SW, 0, "jobs finished without error")	\
	X(JOBS_FAILED, jobs_failed, "jobs-failed", COUNT, CLIENT,	\
	  VGPU_SRC_NONE, VGPU_SRC_SW, 0, "jobs finished with an error")	\
	X(PT_READS, pt_reads, NULL, COUNT, DEVICE,			\
	  VGPU_SRC_HW(PT_READS), VGPU_SRC_NONE, VGPU_STAT_SD,		\
	  "page-table entries the walks read")				\
	X(GPU_FAULTS, gpu_faults, NULL, COUNT, DEVICE,			\
	  VGPU_SRC_HW(FAULTS), VGPU_SRC_NONE, VGPU_STAT_SD,		\
	  "faults the device raised (recorded or dropped)")		\
	X(VRAM_READ_BYTES, vram_read_bytes, NULL, BYTES, DEVICE,	\
	  VGPU_SRC_HW(VRAM_READ_BYTES), VGPU_SRC_NONE, VGPU_STAT_SD,	\
	  "data read from VRAM by commands")				\
	X(VRAM_WRITE_BYTES, vram_write_bytes, NULL, BYTES, DEVICE,	\
	  VGPU_SRC_HW(VRAM_WRITE_BYTES), VGPU_SRC_NONE, VGPU_STAT_SD,	\
	  "data written to VRAM")					\
	X(SYS_READ_BYTES, sys_read_bytes, NULL, BYTES, DEVICE,		\
	  VGPU_SRC_HW(SYS_READ_BYTES), VGPU_SRC_NONE, VGPU_STAT_SD,	\
	  "data read from system memory")				\
	X(SYS_WRITE_BYTES, sys_write_bytes, NULL, BYTES, DEVICE,	\
	  VGPU_SRC_HW(SYS_WRITE_BYTES), VGPU_SRC_NONE, VGPU_STAT_SD,	\
	  "data written to system memory")				\
	X(COMMANDS, commands, NULL, COUNT, DEVICE,			\
	  VGPU_SRC_HW(COMMANDS), VGPU_SRC_NONE, VGPU_STAT_SD,		\
	  "commands completed")						\
	X(STRICT_STALE, strict_stale, NULL, COUNT, DEVICE,		\
	  VGPU_SRC_HW(STRICT_STALE), VGPU_SRC_NONE, VGPU_STAT_SD,	\
	  "strict mode: TLB hits that no longer match the page tables")	\
	X(STRICT_BAD_CONTEXT, strict_bad_context, NULL, COUNT, DEVICE,	\
	  VGPU_SRC_HW(STRICT_BAD_CONTEXT), VGPU_SRC_NONE, VGPU_STAT_SD,	\
	  "strict mode: work on a context without a valid root")	\
	X(FAULT_OVERFLOWS, fault_overflows, NULL, COUNT, DEVICE,	\
	  VGPU_SRC_HW(FAULT_OVERFLOWS), VGPU_SRC_NONE, VGPU_STAT_SD,	\
	  "fault records dropped, fault buffer full")			\
	X(POOL_EVICTIONS_BO, pool_evictions_bo, NULL, COUNT, DRIVER,	\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "ordinary BOs the VRAM pool evicted to make room")		\
	X(POOL_EVICTIONS_CHUNK, pool_evictions_chunk, NULL, COUNT,	\
	  DRIVER, VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,		\
	  "chunks the VRAM pool evicted to make room")			\
	X(POOL_EVICTIONS_SVM, pool_evictions_svm, NULL, COUNT,		\
	  DRIVER, VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,		\
	  "blocks of SVM memory the VRAM pool evicted to make room")	\
	X(POOL_BYTES_BO, pool_bytes_bo, NULL, BYTES, DRIVER,		\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "VRAM of the BOs the pool evicted")				\
	X(POOL_BYTES_CHUNK, pool_bytes_chunk, NULL, BYTES, DRIVER,	\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "VRAM of the chunks the pool evicted")			\
	X(POOL_BYTES_SVM, pool_bytes_svm, NULL, BYTES, DRIVER,		\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "VRAM of the SVM blocks the pool evicted")			\
	X(POOL_MAKE_ROOM, pool_make_room, NULL, COUNT, DRIVER,		\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "searches of the VRAM pool for a victim")			\
	X(POOL_NO_VICTIM, pool_no_victim, NULL, COUNT, DRIVER,		\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "searches that found no unit to evict")			\
	X(COPY_JOBS, copy_jobs, NULL, COUNT, DRIVER,			\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "copy-engine jobs the kernel submitted (moves, chunk copies)") \
	X(ACCESS_BITS_SAMPLED, access_bits_sampled, NULL, COUNT, DRIVER, \
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "pool units the sampler found used by their ACCESSED bits")	\
	X(CPU_FAULT_MOVES, cpu_fault_moves, NULL, COUNT, DRIVER,	\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "VRAM BOs moved into the CPU window by a CPU page fault")	\
	X(BO_COUNT, bo_count, NULL, COUNT, DRIVER,			\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_DEBUGFS | VGPU_STAT_GAUGE, \
	  "live BOs, all clients")					\
	X(VRAM_ALLOCS, vram_allocs, NULL, COUNT, DRIVER,		\
	  VGPU_SRC_FN, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "successful VRAM allocations")				\
	X(VRAM_ALLOC_FAILURES, vram_alloc_failures, NULL, COUNT, DRIVER, \
	  VGPU_SRC_FN, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "VRAM allocations refused for lack of space")			\
	X(VRAM_CONTIGUOUS, vram_contiguous, NULL, COUNT, DRIVER,	\
	  VGPU_SRC_FN, VGPU_SRC_NONE, VGPU_STAT_DEBUGFS,		\
	  "VRAM allocations that got one contiguous block")		\
	X(VRAM_PEAK_USED, vram_peak_used, NULL, BYTES, DRIVER,		\
	  VGPU_SRC_FN, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "highest vram_used seen")					\
	X(CONTEXT_STEALS, context_steals, NULL, COUNT, DRIVER,		\
	  VGPU_SRC_FN, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "hardware contexts taken over from an idle VM")		\
	X(ADMIT_REFUSALS, admit_refusals, NULL, COUNT, DRIVER,		\
	  VGPU_SRC_SW, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "BOs refused with ENOMEM by the memory admission")		\
	X(DEVICE_RESETS, device_resets, NULL, COUNT, DRIVER,		\
	  VGPU_SRC_FN, VGPU_SRC_NONE, VGPU_STAT_SD,			\
	  "whole-device resets since probe (kept by reset_counters)")	\
	X(FAULT_RECORDS_READ, fault_records_read, NULL, COUNT, DRIVER,	\
	  VGPU_SRC_FN, VGPU_SRC_NONE, VGPU_STAT_DEBUGFS,		\
	  "fault records read from the fault buffer since probe")	\
	X(CONTEXT_SWITCHES, context_switches, NULL, COUNT, CLIENT,	\
	  VGPU_SRC_NONE, VGPU_SRC_SW, 0,				\
	  "hardware contexts a VM acquired (QUERY only)")		\
	X(SVM_FAULTS, svm_faults, "svm-faults", COUNT, PAGING,		\
	  VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,			\
	  "GPU faults resolved in CPU-address mirrors")			\
	X(SVM_PAGES_MAPPED, svm_pages_mapped, "svm-pages-mapped", COUNT, \
	  PAGING, VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,		\
	  "process pages mapped into GPU page tables by mirrors")	\
	X(SVM_INVALIDATIONS, svm_invalidations, "svm-invalidations",	\
	  COUNT, PAGING, VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,	\
	  "CPU address-space changes that took mirrored pages away")	\
	X(SVM_PAGES_UNMAPPED, svm_pages_unmapped, "svm-pages-unmapped",	\
	  COUNT, PAGING, VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,	\
	  "mirrored pages taken out of GPU page tables again")		\
	X(SVM_REMAPS, svm_remaps, "svm-remaps", COUNT, PAGING,		\
	  VGPU_SRC_SW, VGPU_SRC_SW, VGPU_STAT_SD,			\
	  "mirrored ranges advised ACCESSED_BY mapped again after a move")

#endif /* __VGPU_STATS_LIST_H__ */
