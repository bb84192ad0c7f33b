// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz - a structure-aware fuzzer of the vgpu uapi, run in the guest.
 *
 * Usage: vgpu-fuzz [--seconds N] [--seed S] [--procs P] [--threads T]
 *                  [--calls N] [--user UID[:GID]] [--trace]
 *                  [--huge-syncobj-counts | --no-huge-syncobj-counts]
 *                  [--no-shared] [--hang-seconds N]
 *                  [--bo-budget MIB] [--shadow-budget MIB]
 *
 * Started as root, it drops to UID:GID (default 65534:65534) with
 * setgroups(), setgid() and setuid() before it opens the render node.
 * It prints its seed first; the same seed with --procs 1 --threads 1
 * makes the same sequence of calls.  Every finding is printed with the
 * seed, the process, the thread and the call number, and the exit status
 * is 1 when there was any (0: none, 2: could not start).
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "fuzz.h"

const struct fz_opts *fz_opts;
struct fz_shared *fz_sh;
struct fz_devinfo fz_dev;
__thread struct fz_thread *fz_self;

static struct fz_opts opts = {
	.seconds = 60,
	.procs = 2,
	.threads = 2,
	.uid = 65534,
	.gid = 65534,
	.hang_seconds = 120,
	.bo_budget = 64ull << 20,
	.shadow_budget = 32ull << 20,
};
static uint64_t deadline_ns;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vgpu-fuzz [--seconds N] [--seed S] [--procs P] [--threads T]\n"
		"                 [--calls N] [--user UID[:GID]] [--trace]\n"
		"                 [--huge-syncobj-counts | --no-huge-syncobj-counts]\n"
		"                 [--no-shared] [--hang-seconds N]\n"
		"                 [--bo-budget MIB] [--shadow-budget MIB]\n");
}

/* A fault outside a guarded access is the fuzzer's own: say so, die. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	struct fz_thread *t = fz_self;
	char buf[160];
	int n;

	(void)uc;
	if (t && t->guarded) {
		t->fault_addr = si->si_addr;
		t->fault_sig = sig;
		siglongjmp(t->jmp, 1);
	}
	n = snprintf(buf, sizeof(buf),
		     "vgpu-fuzz: crashed: signal %d at %p (seed 0x%llx, thread %d)\n",
		     sig, si->si_addr, (unsigned long long)opts.seed,
		     t ? t->id : -1);
	if (write(2, buf, n) < 0)
		n = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void *thread_main(void *arg)
{
	struct fz_thread *t = arg;
	int ret;

	fz_self = t;
	t->slot->running = 1;
	fz_ctx_init(t->priv, true);
	ret = fz_ctx_open(t, t->priv);
	if (ret)
		fz_finding(t, "opening the render node failed: %s", strerror(-ret));
	while (!ret && !fz_sh->stop && fz_now_ns() < deadline_ns &&
	       (!opts.max_calls || t->ncalls < opts.max_calls)) {
		fz_run_one(t);
	}
	fz_ctx_close(t, t->priv);
	t->slot->running = 0;
	return NULL;
}

/* One process: its shared context and its threads. */
static int proc_main(int p)
{
	struct fz_thread *threads = calloc(opts.threads, sizeof(*threads));
	struct fz_ctx *ctxs = calloc(opts.threads + 1, sizeof(*ctxs));
	pthread_t *tids = calloc(opts.threads, sizeof(*tids));
	struct fz_ctx *shared = &ctxs[opts.threads];
	int i, ret;

	if (!threads || !ctxs || !tids)
		return 2;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (i = 0; i < opts.threads; i++) {
		struct fz_thread *t = &threads[i];

		t->id = p * opts.threads + i;
		t->proc = p;
		t->slot = &fz_sh->slot[t->id];
		t->priv = &ctxs[i];
		t->shared = opts.no_shared ? NULL : shared;
		fz_rng_seed(&t->rng, opts.seed, t->id);
	}
	fz_self = &threads[0];
	fz_ctx_init(shared, false);
	ret = opts.no_shared ? 0 : fz_ctx_open(&threads[0], shared);
	if (ret)
		fz_finding(&threads[0], "opening the render node failed: %s",
			   strerror(-ret));
	for (i = 0; i < opts.threads; i++)
		if (pthread_create(&tids[i], NULL, thread_main, &threads[i]))
			return 2;
	for (i = 0; i < opts.threads; i++)
		pthread_join(tids[i], NULL);
	fz_self = &threads[0];
	fz_ctx_close(&threads[0], shared);
	return 0;
}

static int drop_privileges(void)
{
	gid_t g = opts.gid;

	if (getuid() != 0)
		return 0;	/* already unprivileged */
	if (setgroups(1, &g) || setgid(opts.gid) || setuid(opts.uid)) {
		fprintf(stderr, "vgpu-fuzz: dropping to %u:%u: %s\n",
			opts.uid, opts.gid, strerror(errno));
		return -1;
	}
	if (!setuid(0) || !geteuid()) {
		fprintf(stderr, "vgpu-fuzz: still root after setuid()\n");
		return -1;
	}
	return 0;
}

/* Find the vgpu render node; read what the device says about itself. */
static int probe(void)
{
	struct drm_vgpu_query_paging pg;
	drmDevicePtr devs[16];
	int n, i, fd, ret = -ENODEV;

	n = drmGetDevices2(0, devs, 16);
	for (i = 0; i < n && ret; i++) {
		const char *node = devs[i]->nodes[DRM_NODE_RENDER];

		if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			fprintf(stderr, "vgpu-fuzz: %s: %s\n", node, strerror(errno));
			continue;
		}
		ret = vgpu_open_fd(&fz_dev.dev, fd);
		if (!ret) {
			snprintf(fz_dev.node, sizeof(fz_dev.node), "%s", node);
			snprintf(fz_dev.sysfs, sizeof(fz_dev.sysfs),
				 "/sys/class/drm/%s/device", basename(fz_dev.node));
			snprintf(fz_dev.node, sizeof(fz_dev.node), "%s", node);
			if (!vgpu_query_paging(&fz_dev.dev, &pg))
				fz_dev.chunk_size = pg.chunk_size;
			fz_dev.strict = fz_dev.dev.caps & VGPU_CAPS_STRICT;
		}
		vgpu_close(&fz_dev.dev);
	}
	if (n > 0)
		drmFreeDevices(devs, n);
	fz_dev.dev.fd = -1;
	return ret;
}

/* Device-wide numbers compared before and after the run. */
struct totals {
	uint64_t strict_stale;
	uint64_t strict_bad_context;
	uint64_t user_bytes;	/* VRAM not held by the kernel, and system */
};

static int read_totals(struct totals *tot)
{
	struct drm_vgpu_query_counters ctr;
	struct drm_vgpu_query_memory mem;
	struct vgpu_dev dev;
	int fd, ret;

	fd = open(fz_dev.node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = vgpu_open_fd(&dev, fd);
	if (!ret)
		ret = vgpu_query_counters(&dev, &ctr);
	if (!ret)
		ret = vgpu_query_memory(&dev, &mem);
	vgpu_close(&dev);
	if (ret)
		return ret;
	tot->strict_stale = ctr.counters[VGPU_CTR_STRICT_STALE];
	tot->strict_bad_context = ctr.counters[VGPU_CTR_STRICT_BAD_CONTEXT];
	/* bo_count also counts the kernel's page-table chunks: not that. */
	tot->user_bytes = mem.vram_used - mem.vram_kernel_used + mem.system_used;
	return 0;
}

/* A finding of the parent itself, outside any thread. */
static void parent_finding(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void parent_finding(const char *fmt, ...)
{
	static struct fz_thread t = { .id = -1, .proc = -1 };
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fz_finding(&t, "%s", what);
}

static uint64_t total_calls(void)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < opts.procs * opts.threads; i++)
		n += fz_sh->slot[i].calls;
	return n;
}

/* Every second: progress; a call that has not returned for long: a hang. */
static void watch(pid_t *pids, uint64_t start_ns)
{
	uint64_t last_report = start_ns, now;
	bool reported[FZ_MAX_THREADS] = { false };
	int i, alive;

	do {
		sleep(1);
		now = fz_now_ns();
		for (i = 0; i < opts.procs * opts.threads; i++) {
			struct fz_slot *s = &fz_sh->slot[i];
			uint64_t began = atomic_load(&s->call_start_ns);

			/*
			 * A call may have begun after @now was read: only a
			 * start before it can be overdue.
			 */
			if (began && began < now && !reported[i] &&
			    now - began > opts.hang_seconds * 1000000000ull) {
				reported[i] = true;
				parent_finding("thread %d has been in %s for %u s",
					       i, s->op, opts.hang_seconds);
			}
		}
		if (now - last_report >= 10000000000ull) {
			last_report = now;
			fz_msg("%.0f s: %llu calls, %.0f calls/s, %u findings",
			       (now - start_ns) / 1e9,
			       (unsigned long long)total_calls(),
			       total_calls() / ((now - start_ns) / 1e9),
			       fz_sh->findings);
		}
		if (now >= deadline_ns)
			fz_sh->stop = 1;
		for (alive = 0, i = 0; i < opts.procs; i++)
			if (pids[i] > 0 && waitpid(pids[i], NULL, WNOHANG) == 0)
				alive++;
	} while (alive && now < deadline_ns + opts.hang_seconds * 1000000000ull);
}

static void summary(double secs)
{
	uint64_t calls[FZ_NR_STATS] = { 0 }, ok[FZ_NR_STATS] = { 0 };
	uint64_t verified = 0, gpu = 0, excused = 0, total = total_calls();
	const char *name;
	unsigned int k;
	int i;

	for (i = 0; i < opts.procs * opts.threads; i++) {
		for (k = 0; k < FZ_NR_STATS; k++) {
			calls[k] += fz_sh->slot[i].kind_calls[k];
			ok[k] += fz_sh->slot[i].kind_ok[k];
		}
		verified += fz_sh->slot[i].verified_bytes;
		gpu += fz_sh->slot[i].gpu_verified;
		excused += fz_sh->slot[i].stale_excused;
	}
	fz_msg("%-26s %10s %8s", "call", "count", "ok");
	for (k = 0; (name = fz_kind_name(k)); k++)
		if (calls[k])
			fz_msg("%-26s %10llu %7.1f%%", name,
			       (unsigned long long)calls[k], 100.0 * ok[k] / calls[k]);
	fz_msg("read back %llu bytes against shadows; %llu GPU writes verified",
	       (unsigned long long)verified, (unsigned long long)gpu);
	if (fz_dev.strict)
		fz_msg("%llu stale TLB hits after VM_BINDs under the fuzzer's own jobs (not findings)",
		       (unsigned long long)excused);
	fz_msg("%llu calls in %.1f s: %.0f calls/s", (unsigned long long)total,
	       secs, total / secs);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "calls", required_argument, NULL, 'n' },
		{ "user", required_argument, NULL, 'u' },
		{ "trace", no_argument, NULL, 'T' },
		{ "huge-syncobj-counts", no_argument, NULL, 'H' },
		{ "no-huge-syncobj-counts", no_argument, NULL, 'N' },
		{ "no-shared", no_argument, NULL, 'X' },
		{ "hang-seconds", required_argument, NULL, 'h' },
		{ "bo-budget", required_argument, NULL, 'b' },
		{ "shadow-budget", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'x' },
		{ NULL },
	};
	const char *kernel = getenv("VGPU_KERNEL");
	pthread_mutexattr_t ma;
	struct totals before, after;
	bool have_seed = false, have_totals;
	struct sigaction sa;
	uint64_t start_ns;
	pid_t *pids;
	char *end;
	int c, i, st, status = 0;

	/* A kernel that carries the drm_syncobj fix: the debug kernel. */
	opts.huge_syncobj_counts = kernel && !strcmp(kernel, "debug");
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			opts.seconds = strtod(optarg, NULL);
			break;
		case 'S':
			opts.seed = strtoull(optarg, NULL, 0);
			have_seed = true;
			break;
		case 'p':
			opts.procs = atoi(optarg);
			break;
		case 't':
			opts.threads = atoi(optarg);
			break;
		case 'n':
			opts.max_calls = strtoull(optarg, NULL, 0);
			break;
		case 'u':
			opts.uid = strtoul(optarg, &end, 0);
			opts.gid = *end == ':' ? strtoul(end + 1, NULL, 0) : opts.uid;
			break;
		case 'T':
			opts.trace = true;
			break;
		case 'H':
			opts.huge_syncobj_counts = true;
			break;
		case 'N':
			opts.huge_syncobj_counts = false;
			break;
		case 'X':
			opts.no_shared = true;
			break;
		case 'h':
			opts.hang_seconds = atoi(optarg);
			break;
		case 'b':
			opts.bo_budget = strtoull(optarg, NULL, 0) << 20;
			break;
		case 'B':
			opts.shadow_budget = strtoull(optarg, NULL, 0) << 20;
			break;
		case 'x':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || opts.procs < 1 || opts.threads < 1 ||
	    opts.procs * opts.threads > FZ_MAX_THREADS || opts.seconds <= 0) {
		usage(stderr);
		return 2;
	}
	if (!have_seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		opts.seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
			    ((uint64_t)getpid() << 40);
	}
	fz_opts = &opts;

	if (drop_privileges())
		return 2;
	if (probe()) {
		fprintf(stderr, "vgpu-fuzz: no vgpu render node I can open\n");
		return 2;
	}
	fz_msg("seed 0x%llx, %d process(es) x %d thread(s), %.0f s, as uid %u gid %u, %s kernel",
	       (unsigned long long)opts.seed, opts.procs, opts.threads,
	       opts.seconds, getuid(), getgid(), kernel ? kernel : "unknown");
	fz_msg("device %s: %llu MiB VRAM (%llu MiB CPU-visible), %u exec queues, caps 0x%x%s",
	       fz_dev.node, (unsigned long long)(fz_dev.dev.vram_size >> 20),
	       (unsigned long long)(fz_dev.dev.visible_size >> 20),
	       fz_dev.dev.exec_queues, fz_dev.dev.caps,
	       fz_dev.strict ? " (strict)" : "");
	if (!opts.huge_syncobj_counts)
		fz_msg("left out: SYNCOBJ_WAIT, _RESET, _SIGNAL and the timeline ioctls "
		       "with count_handles above 2^19 "
		       "(Linux 6.12 bug: drm_syncobj_array_find() WARNs in the page allocator; "
		       "the debug kernel carries the fix, --huge-syncobj-counts includes them)");

	fz_sh = mmap(NULL, sizeof(*fz_sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fz_sh == MAP_FAILED)
		return 2;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&fz_sh->lock, &ma);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	have_totals = !read_totals(&before);
	start_ns = fz_now_ns();
	deadline_ns = start_ns + (uint64_t)(opts.seconds * 1e9);
	pids = calloc(opts.procs, sizeof(*pids));
	for (i = 0; i < opts.procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(proc_main(i));
	}
	watch(pids, start_ns);
	for (i = 0; i < opts.procs; i++) {
		if (pids[i] <= 0)
			continue;
		if (waitpid(pids[i], &st, WNOHANG) == 0) {
			parent_finding("process %d did not stop %u s after the end of the run",
				       i, opts.hang_seconds);
			kill(pids[i], SIGKILL);
			waitpid(pids[i], &st, 0);
		} else if (WIFSIGNALED(st) || WEXITSTATUS(st)) {
			parent_finding("process %d ended with %s %d", i,
				       WIFSIGNALED(st) ? "signal" : "status",
				       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		}
	}
	summary((fz_now_ns() - start_ns) / 1e9);

	/* Everything is closed: no BO may be left, nor a stale TLB use. */
	if (have_totals) {
		for (i = 0; i < 100; i++) {
			if (read_totals(&after) || after.user_bytes <= before.user_bytes)
				break;
			usleep(100000);
		}
		if (!read_totals(&after)) {
			if (after.user_bytes > before.user_bytes)
				parent_finding("%llu bytes of BOs left on the device after every file was closed",
					       (unsigned long long)(after.user_bytes - before.user_bytes));
			if (fz_dev.strict)
				fz_msg("device strict-mode counters: %llu stale TLB uses, %llu uses of an invalid context over the run",
				       (unsigned long long)(after.strict_stale - before.strict_stale),
				       (unsigned long long)(after.strict_bad_context - before.strict_bad_context));
		}
	}
	for (i = 0; i < (int)fz_sh->findings && i < FZ_KEPT_FINDINGS; i++)
		fz_msg("finding %d: %s", i + 1, fz_sh->finding[i]);
	if (fz_sh->findings > FZ_KEPT_FINDINGS)
		fz_msg("(%u more findings)", fz_sh->findings - FZ_KEPT_FINDINGS);
	fz_msg("%u findings, seed 0x%llx", fz_sh->findings,
	       (unsigned long long)opts.seed);
	status = fz_sh->findings ? 1 : 0;
	return status;
}
