/* SPDX-License-Identifier: MIT */
/*
 * vgpu-fuzz: what the fuzzer's parts share.
 *
 * A run is P processes of T threads.  Every thread owns a *private*
 * context (its own open file of the render node, hence its own GPU VM)
 * in which it keeps a shadow of what it wrote into its BOs, and every
 * process has one *shared* context that all its threads hammer at once,
 * without shadows.  An operation (ops.c) is one structured call, or a
 * short sequence of them, with arguments that are valid, at a boundary
 * or invalid; findings (report.c) are what must not happen whatever the
 * arguments: a read-back that differs from what was written (by the CPU,
 * or by a GPU job the fuzzer checked), a signal on a valid mapping, an
 * invalid argument accepted or refused with the wrong errno, a call that
 * never returns, a stale TLB use the fuzzer did not ask for (strict
 * mode), BO memory left when every file is closed.  The kernel log is
 * the launcher's to check.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_FUZZ_H
#define VGPU_FUZZ_H

#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "libvgpu.h"
#include "rng.h"

#define FZ_MAX_THREADS		64
#define FZ_BOS			24	/* BO slots per context */
#define FZ_SYNCS		12	/* syncobj slots per context */
#define FZ_MAPS			48	/* GPU mappings remembered per context */
#define FZ_FDS			8	/* dma-buf, syncobj and sync_file fds */
#define FZ_ORPHANS		4	/* closed BOs still alive through an mmap */
#define FZ_TRACE		24	/* calls kept for a finding's report */
#define FZ_NR_STATS		64	/* call kinds counted (call.c) */
#define FZ_KEPT_FINDINGS	16

/* BOs the fuzzer keeps a full shadow of, and the CPU touches at all. */
#define FZ_SHADOW_MAX_BO	(8ull << 20)
#define FZ_TOUCH_MAX_BO		(64ull << 20)

/**
 * struct fz_opts - the command line
 * @seed: the run's seed; every thread's stream derives from it
 * @seconds: how long to run
 * @max_calls: stop each thread after this many calls (0: no limit)
 * @procs: processes
 * @threads: threads per process
 * @uid: user to run as (with @gid) when started as root
 * @gid: group to run as
 * @trace: print every call
 * @huge_syncobj_counts: also pass syncobj arrays so large that Linux 6.12's
 *	drm_syncobj_array_find() WARNs in the page allocator (a kernel with
 *	the fix only)
 * @no_shared: no shared contexts: every call in a private one
 * @hang_seconds: a call that has not returned after this long is a hang
 * @bo_budget: bytes of BOs a context keeps alive
 * @shadow_budget: bytes of shadow a private context keeps
 */
struct fz_opts {
	uint64_t seed;
	double seconds;
	uint64_t max_calls;
	int procs;
	int threads;
	uid_t uid;
	gid_t gid;
	bool trace;
	bool huge_syncobj_counts;
	bool no_shared;
	unsigned int hang_seconds;
	uint64_t bo_budget;
	uint64_t shadow_budget;
};

/**
 * struct fz_slot - one thread's progress and statistics, in memory shared
 * with the parent (written by the thread alone)
 */
struct fz_slot {
	uint64_t calls;
	uint64_t kind_calls[FZ_NR_STATS];	/* per call kind (call.c) */
	uint64_t kind_ok[FZ_NR_STATS];
	uint64_t verified_bytes;	/* compared with a shadow */
	uint64_t gpu_verified;		/* GPU writes checked */
	uint64_t stale_excused;		/* strict hits the fuzzer caused */
	/* when the current call began (CLOCK_MONOTONIC), 0 between calls */
	_Atomic uint64_t call_start_ns;
	volatile int running;
	char op[32];			/* current operation */
};

/**
 * struct fz_shared - the run's shared memory (MAP_SHARED, before fork())
 */
struct fz_shared {
	pthread_mutex_t lock;		/* findings and output */
	volatile int stop;
	unsigned int findings;
	char finding[FZ_KEPT_FINDINGS][256];
	struct fz_slot slot[FZ_MAX_THREADS];
};

/**
 * struct fz_devinfo - what the device reported before the run
 */
struct fz_devinfo {
	struct vgpu_dev dev;	/* parameters only; its fd is closed */
	char node[64];		/* /dev/dri/renderD* */
	char sysfs[96];		/* its device's sysfs directory */
	uint64_t chunk_size;	/* demand-paging chunk */
	bool strict;
};

/**
 * struct fz_bo - a BO the fuzzer created or imported in a context
 * @handle: GEM handle, 0 for an empty slot
 * @serial: unique over the run, to tell a reused handle number apart
 * @size: bytes
 * @placements: DRM_VGPU_PLACE_* it was created with (0: imported)
 * @flags: DRM_VGPU_BO_*
 * @map: CPU mapping of the whole BO, or NULL
 * @shadow: its expected contents (private contexts, small BOs), or NULL
 * @tainted: the GPU may have written it: @shadow is not known
 * @foreign: others may write it (imported, or exported and imported
 *	elsewhere): never untainted again
 * @gpu_ro: random-zone mappings of it are never writable
 * @history: ``FZ_HIST_*``: what happened to it, for the reports
 */
struct fz_bo {
	uint32_t handle;
	uint64_t serial;
	uint64_t size;
	uint32_t placements;
	uint32_t flags;
	uint8_t *map;
	uint8_t *shadow;
	bool tainted;
	bool foreign;
	bool gpu_ro;
	unsigned int history;
};

#define FZ_HIST_GPU_MAPPED	(1u << 0)	/* a VM_BIND map named it */
#define FZ_HIST_EXPORTED	(1u << 1)	/* PRIME export */
#define FZ_HIST_STREAM		(1u << 2)	/* held a command stream */
#define FZ_HIST_GPU_WRITTEN	(1u << 3)	/* a verified GPU write */
#define FZ_HIST_RESYNCED	(1u << 4)	/* shadow read back by fz_resync() */
#define FZ_HIST_MADVISED	(1u << 5)	/* MADV_DONTNEED/COLD on its mapping */

/* A BO whose handle is closed but whose mapping keeps it alive. */
struct fz_orphan {
	uint8_t *map;
	uint8_t *shadow;	/* NULL: not checked */
	uint64_t size;
	uint32_t placements;
	uint32_t flags;
	unsigned int history;
};

/* A GPU mapping the context believes exists. */
struct fz_mapping {
	bool used;
	uint32_t handle;
	uint32_t perms;
	uint64_t va;
	uint64_t range;
	uint64_t bo_offset;
};

enum fz_fd_kind {
	FZ_FD_NONE,
	FZ_FD_DMABUF,
	FZ_FD_SYNCOBJ,
	FZ_FD_SYNC_FILE,
};

/* An fd the context made: where a dma-buf came from, for PRIME checks. */
struct fz_fd {
	int fd;
	enum fz_fd_kind kind;
	struct fz_ctx *origin;
	uint64_t serial;	/* the exported BO's */
	uint32_t handle;
};

/**
 * struct fz_ctx - one open file of the render node and what lives in it
 * @dev: the open device (libvgpu)
 * @private: used by one thread only; shadows are kept
 * @lock: shared contexts: guards the tables (never held across a
 *	blocking call, except CPU access to a mapping, which must not race
 *	with its munmap())
 * @gate: shared contexts: held for reading by every operation, for
 *	writing to reopen the file
 * @banned: an EXEC or VM_BIND said -ECANCELED
 * @want_reopen: the next operation closes and reopens the file
 * @qsync: private contexts: the out-syncobj of every job on each exec
 *	queue (not in @sync), so that the context can tell when its jobs
 *	are done
 * @qsync_used: bit q: a job went to exec queue q since the last drain
 * @changed_busy: a VM_BIND changed the VM while jobs may have been
 *	running: an unmap under a job, or a map the job uses but is not
 *	fenced on (so that its BO may move under it): stale TLB hits are
 *	the fuzzer's doing until the jobs end
 * @vva_next: next VA of the verified zone
 * @strict: the VM's strict-mode counters when last read (ops.c)
 */
struct fz_ctx {
	struct vgpu_dev dev;
	bool private;
	pthread_mutex_t lock;
	struct fz_bo bo[FZ_BOS];
	uint32_t sync[FZ_SYNCS];
	struct fz_mapping map[FZ_MAPS];
	struct fz_fd fds[FZ_FDS];
	struct fz_orphan orphan[FZ_ORPHANS];
	uint64_t bo_bytes;
	uint64_t shadow_bytes;
	pthread_rwlock_t gate;
	bool banned;
	bool want_reopen;
	uint32_t qsync[VGPU_NUM_QUEUES];
	uint32_t qsync_used;
	bool changed_busy;
	uint64_t vva_next;
	uint64_t strict[2];
};

/**
 * struct fz_thread - one fuzzing thread
 * @id: global thread number (process * threads + thread)
 * @proc: process number
 * @rng: its random stream
 * @priv: its private context
 * @shared: its process's shared context
 * @slot: its statistics in shared memory
 * @ncalls: calls made (the number a finding names)
 * @trace: the last calls, as text, newest at @trace_pos - 1
 * @jmp: where a SIGBUS or SIGSEGV in a guarded CPU access lands
 * @guarded: a guarded CPU access is running
 * @fault_addr: the address of the caught fault
 * @fault_sig: its signal
 * @safe: the stream being built keeps to read-write mappings (cmdgen.c)
 */
struct fz_thread {
	int id;
	int proc;
	struct fz_rng rng;
	struct fz_ctx *priv;
	struct fz_ctx *shared;
	struct fz_slot *slot;
	uint64_t ncalls;
	uint64_t strict_checked;	/* @ncalls at the last strict check */
	char trace[FZ_TRACE][160];
	unsigned int trace_pos;
	sigjmp_buf jmp;
	volatile int guarded;
	void *volatile fault_addr;
	volatile int fault_sig;
	bool safe;
};

/* Random zone (random mappings and commands) and verified zone, per VM. */
#define FZ_ZONE_SIZE		(4ull << 30)
#define FZ_VZONE_OFFSET		(64ull << 30)

extern const struct fz_opts *fz_opts;
extern struct fz_shared *fz_sh;
extern struct fz_devinfo fz_dev;
extern __thread struct fz_thread *fz_self;

/* report.c */
void fz_trace(struct fz_thread *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fz_finding(struct fz_thread *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fz_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *fz_ioctl_name(unsigned long req);
uint64_t fz_now_ns(void);

/* call.c */
int fz_ioctl(struct fz_thread *t, int fd, unsigned long req, void *arg);
void fz_expect(struct fz_thread *t, struct fz_ctx *c, int ret, int err,
	       const char *what);
int fz_ioctl_check(struct fz_thread *t, struct fz_ctx *c, unsigned long req,
		   void *arg, bool broken, int err, const char *what);
void *fz_mmap(struct fz_thread *t, size_t len, int prot, int flags, int fd,
	      uint64_t off);
void fz_munmap(struct fz_thread *t, void *p, size_t len);
void fz_call_begin(struct fz_thread *t, const char *what);
void fz_call_end(struct fz_thread *t);
void fz_count_read(struct fz_thread *t, bool ok);
void fz_count_open(struct fz_thread *t, bool ok);
const char *fz_kind_name(unsigned int kind);

/* badarg.c */

/**
 * struct fz_bad_field - a field of an ioctl struct the kernel checks
 * @offset: of the field.
 * @size: 4 or 8 bytes.
 * @valid: the bits the field may hold; 0: it must be zero.
 * @what: how it is broken, for findings ("pad set").
 */
struct fz_bad_field {
	uint16_t offset;
	uint8_t size;
	uint32_t valid;
	const char *what;
};

/* Field @field of struct @type may hold only the bits @valid (0: none). */
#define FZ_BAD_FIELD(type, field, valid, what)				\
	{ offsetof(type, field), sizeof(((type *)0)->field), (valid), (what) }
#define FZ_ZERO_FIELD(type, field, what) FZ_BAD_FIELD(type, field, 0, what)

/* Sets one of @fields of @arg to a refused value; returns its @what. */
const char *fz_break_field(struct fz_rng *r, void *arg,
			   const struct fz_bad_field *fields, unsigned int n);
/*
 * With @pct percent chance, breaks one of @fields of @arg and checks that
 * @req refuses it with EINVAL ("@name with <what>"); true if it did.
 */
bool fz_bad_arg(struct fz_thread *t, struct fz_ctx *c, unsigned long req,
		void *arg, const char *name, const struct fz_bad_field *fields,
		unsigned int n, unsigned int pct);
#define FZ_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define FZ_BAD_ARG(t, c, req, arg, name, fields, pct)			\
	fz_bad_arg(t, c, req, arg, name, fields, FZ_ARRAY_SIZE(fields), pct)

/* values.c */
uint64_t fz_interesting64(struct fz_rng *r);
uint32_t fz_interesting32(struct fz_rng *r);
uint64_t fz_size(struct fz_rng *r, uint64_t max);
uint32_t fz_bad_bits(struct fz_rng *r, uint32_t valid);
uint64_t fz_timeout_abs(struct fz_rng *r, bool may_block);
uint64_t fz_user_ptr(struct fz_rng *r, void *valid);

/* ctx.c */
void fz_ctx_init(struct fz_ctx *c, bool private);
int fz_ctx_open(struct fz_thread *t, struct fz_ctx *c);
void fz_ctx_close(struct fz_thread *t, struct fz_ctx *c);
void fz_lock(struct fz_ctx *c);
void fz_unlock(struct fz_ctx *c);
void fz_gate_enter(struct fz_ctx *c);
void fz_gate_exit(struct fz_ctx *c);
struct fz_bo *fz_pick_bo(struct fz_thread *t, struct fz_ctx *c);
struct fz_bo *fz_find_bo(struct fz_ctx *c, uint32_t handle);
struct fz_bo *fz_bo_add(struct fz_ctx *c, uint32_t handle, uint64_t size,
			uint32_t placements, uint32_t flags);
void fz_bo_forget(struct fz_thread *t, struct fz_ctx *c, struct fz_bo *bo,
		  bool keep_mapping);
void fz_orphan_drop(struct fz_thread *t, struct fz_ctx *c, struct fz_orphan *o);
uint32_t fz_bogus_handle(struct fz_thread *t, struct fz_ctx *c);
uint32_t fz_handle_arg(struct fz_thread *t, struct fz_ctx *c, bool *bogus);
uint32_t fz_sync_arg(struct fz_thread *t, struct fz_ctx *c);
uint32_t fz_bogus_sync(struct fz_thread *t, struct fz_ctx *c);
int fz_fd_add(struct fz_thread *t, struct fz_ctx *c, int fd,
	      enum fz_fd_kind kind, struct fz_bo *bo);
struct fz_fd *fz_pick_fd(struct fz_thread *t, struct fz_ctx *c,
			 enum fz_fd_kind kind);
void fz_map_add(struct fz_ctx *c, uint32_t handle, uint64_t bo_offset,
		uint64_t va, uint64_t range, uint32_t perms);
void fz_map_forget(struct fz_ctx *c, uint64_t va, uint64_t range);
void fz_vm_changed(struct fz_ctx *c);
bool fz_drained(struct fz_thread *t, struct fz_ctx *c);
struct fz_mapping *fz_pick_map(struct fz_thread *t, struct fz_ctx *c,
			       uint32_t perms);
uint64_t fz_zone_start(void);
uint64_t fz_vzone_start(void);
uint64_t fz_gpu_addr(struct fz_thread *t, struct fz_ctx *c, uint64_t len,
		     uint64_t align);

/* shadow.c */
void fz_shadow_attach(struct fz_thread *t, struct fz_ctx *c, struct fz_bo *bo);
void fz_shadow_release(struct fz_ctx *c, uint8_t **shadow, uint64_t size);
void fz_taint(struct fz_bo *bo);
int fz_bo_map(struct fz_thread *t, struct fz_ctx *c, struct fz_bo *bo);
void fz_cpu_write(struct fz_thread *t, struct fz_ctx *c, uint8_t *map,
		  uint8_t *shadow, uint64_t size, uint64_t off, uint64_t len);
bool fz_verify(struct fz_thread *t, const uint8_t *map, const uint8_t *shadow,
	       uint64_t size, uint64_t off, uint64_t len, const char *what);
void fz_resync(struct fz_thread *t, struct fz_ctx *c);

/* cmdgen.c */
void fz_gen_stream(struct fz_thread *t, struct fz_ctx *c, struct vgpu_cmd *cmd,
		   bool in_bo);

/* ops.c */
void fz_run_one(struct fz_thread *t);

#endif /* VGPU_FUZZ_H */
