// SPDX-License-Identifier: MIT
/*
 * vgpu-bench replay FILE: run a trace (trace.h, user-guide.rst "Traces")
 * on the device over demand-paged memory.
 *
 * The trace's footprint becomes one pageable BO at BENCH_VA (rounded up
 * as the driver rounds it), so the trace puts VRAM under pressure when
 * its footprint exceeds VRAM; the placement policy is migrate for the
 * run.  Every access becomes a TOUCH over the 64-byte lines it covers
 * (READ, WRITE or RMW as its op), and accesses of one queue that follow
 * each other with the same op and no compute time between them, each
 * starting at the line where the previous one ended, merge into one
 * TOUCH.  Each queue's commands run in its own order on that exec queue,
 * in jobs of at most an inline EXEC's 64 KiB of commands; the queues run side by
 * side, one job each per round, and a round ends when all its jobs have.
 * Nothing orders one queue's accesses against another's but the trace's
 * waits: "P wait Q" becomes a FENCE in Q's stream after Q's access before
 * the wait (writing the next value of Q's semaphore, a qword of a small
 * system-memory BO mapped after the footprint) and a WAIT for that value
 * in P's stream, so that the device moves P's modeled clock up to Q's
 * (hardware.rst "Cost model"); P's job that holds the WAIT is submitted
 * only once Q's job with the FENCE has been, and after it (an in-sync on
 * Q's syncobj), so that no job waits on the device for a job not yet
 * queued, nor spends its job timeout waiting.  A wait for a queue that
 * has not accessed anything yet is dropped.
 *
 * Compute time runs on the device: an access with compute time is
 * preceded by a COMPUTE of that many ns (hardware.rst "Cost model"),
 * which moves the queue's modeled clock and touches no memory, so the
 * modeled time includes it, and a queue that computes holds back its own
 * next access, not the others'.  compute_s reports the busiest queue's
 * compute time.
 *
 * Columns: the trace's file name, footprint (MiB and percent of VRAM),
 * queues used, accesses, TOUCH commands, WAITs, jobs, wall seconds, the VM's
 * modeled seconds (hardware.rst "Cost model", its fault stalls and its
 * compute included, summed over its queues), longest_queue_s (the modeled
 * seconds of the VM's jobs on its busiest exec queue, its stalls and a
 * WAIT's catching up included: the run's length with its queues
 * overlapping),
 * compute_s, the bytes the VM read and wrote (device
 * counters, VRAM and system memory: 64 per line and access, and the
 * device's fetch of the command streams, 36 bytes per TOUCH and 8 per
 * COMPUTE; a WAIT's and a FENCE's 20 bytes, a FENCE's 8 written to its
 * semaphore and 8 read by each poll of a WAIT), and the VM's paging counters:
 * faults, bytes migrated into VRAM, evictions, thrashing events, chunks
 * mapped remote.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_paging.h"
#include "trace.h"

/* Dwords per job: its TOUCHes and COMPUTEs within an inline EXEC. */
#define REPLAY_JOB_DW	(DRM_VGPU_EXEC_MAX_CMDS_SIZE / 4 - 8 * VGPU_TOUCH_LEN)
#define LINE		64ull

static const struct report_col cols[] = {
	{ "trace", REPORT_STR, 0 },
	{ "footprint_mib", REPORT_U64, 0 },
	{ "footprint_pct", REPORT_U64, 0 },
	{ "queues", REPORT_U64, 0 },
	{ "accesses", REPORT_U64, 0 },
	{ "commands", REPORT_U64, 0 },
	{ "waits", REPORT_U64, 0 },
	{ "jobs", REPORT_U64, 0 },
	{ "seconds", REPORT_F64, 3 },
	{ "modeled_s", REPORT_F64, 6 },
	{ "longest_queue_s", REPORT_F64, 6 },
	{ "compute_s", REPORT_F64, 6 },
	{ "bytes_read", REPORT_U64, 0 },
	{ "bytes_written", REPORT_U64, 0 },
	BENCH_SPAN_COLS,
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/*
 * A queue's commands, one line-aligned access per TOUCH (or a wait, or a
 * REPLAY_SIGNAL: a FENCE of the queue's semaphore, the value in @offset,
 * as a wait's in @offset), and how far its jobs have got: @done items
 * submitted, of which the signals up to @signalled; @signals values
 * handed out, @accesses accesses added.
 */
struct qstream {
	struct trace t;
	uint64_t done;
	uint64_t compute_ns;
	uint64_t signals;
	uint64_t signalled;
	uint64_t accesses;
	uint32_t sync;
};

/* Modeled seconds of the VM's jobs on its busiest exec queue during @sp. */
static double longest_queue_s(const struct bench_span *sp)
{
	uint64_t ns, max = 0;
	uint32_t i;

	for (i = 0; i < sp->m1.num_queues; i++) {
		ns = sp->m1.vm_queue_ns[i] - sp->m0.vm_queue_ns[i];
		if (ns > max)
			max = ns;
	}
	return max / 1e9;
}

/* A stream item that is not in the trace format: signal a wait. */
#define REPLAY_SIGNAL	(TRACE_WAIT + 1)

static const uint32_t touch_access[] = {
	[TRACE_READ] = VGPU_TOUCH_READ,
	[TRACE_WRITE] = VGPU_TOUCH_WRITE,
	[TRACE_RMW] = VGPU_TOUCH_RMW,
};

/*
 * "P wait Q" (@a): a signal at the end of Q's stream (unless one ends it
 * already) and a wait for it in P's.
 */
static int stream_add_wait(struct qstream *qs, const struct trace_access *a)
{
	struct qstream *p = &qs[a->queue], *q = &qs[a->after];
	struct trace_access *last = q->t.n ? &q->t.acc[q->t.n - 1] : NULL;
	struct trace_access item = { .queue = a->after, .op = REPLAY_SIGNAL };
	int ret;

	if (!q->accesses)
		return 0;
	if (!last || last->op != REPLAY_SIGNAL) {
		item.offset = ++q->signals;
		ret = trace_add(&q->t, &item);
		if (ret)
			return ret;
	}
	item = (struct trace_access){ .queue = a->queue, .op = TRACE_WAIT,
				      .after = a->after, .offset = q->signals };
	return trace_add(&p->t, &item);
}

/* Add access @a to its queue's stream, merged into the last TOUCH if it can. */
static int stream_add(struct qstream *q, const struct trace_access *a)
{
	struct trace_access line = {
		.offset = a->offset & ~(LINE - 1), .queue = a->queue, .op = a->op,
		.compute_ns = a->compute_ns,
	};
	struct trace_access *last = q->t.n ? &q->t.acc[q->t.n - 1] : NULL;

	line.size = ((a->offset + a->size + LINE - 1) & ~(LINE - 1)) - line.offset;
	q->compute_ns += a->compute_ns;
	q->accesses++;
	if (last && !a->compute_ns && last->op == a->op &&
	    last->offset + last->size == line.offset) {
		last->size += line.size;
		return 0;
	}
	return trace_add(&q->t, &line);
}

/* COMPUTEs of at most 2^32 - 1 ns each: the dwords @ns takes. */
static uint64_t compute_dw(uint64_t ns)
{
	return (ns + UINT32_MAX - 1) / UINT32_MAX * VGPU_COMPUTE_LEN;
}

/*
 * Submit the next job of queue @queue (of @qs) over the footprint at @va,
 * with the semaphores at @sem; *@jobs counts it.  It ends before a wait
 * for a signal not submitted yet.  0, 1 if that leaves it empty (nothing
 * submitted), or a negative errno.
 */
static int stream_submit(struct vgpu_dev *dev, uint32_t queue, struct qstream *qs,
			 uint64_t va, uint64_t sem, struct vgpu_cmd *cmd, uint64_t *jobs)
{
	uint32_t in[TRACE_MAX_QUEUES], nin = 0, i;
	struct qstream *q = &qs[queue];
	const struct trace_access *t;
	uint64_t ns, n, signalled = q->signalled;
	int ret;

	vgpu_cmd_reset(cmd);
	for (; q->done < q->t.n; q->done++) {
		t = &q->t.acc[q->done];
		if (t->op == REPLAY_SIGNAL) {
			if (cmd->len + VGPU_FENCE_LEN > REPLAY_JOB_DW)
				break;
			vgpu_cmd_fence(cmd, sem + 8 * queue, t->offset);
			signalled = t->offset;
			continue;
		}
		if (t->op == TRACE_WAIT) {
			if (cmd->len + VGPU_WAIT_LEN > REPLAY_JOB_DW ||
			    qs[t->after].signalled < t->offset)
				break;
			for (i = 0; i < nin && in[i] != qs[t->after].sync; i++)
				;
			if (i == nin)
				in[nin++] = qs[t->after].sync;
			vgpu_cmd_wait(cmd, sem + 8 * t->after, t->offset);
			continue;
		}
		/* At least one access per job, however long its compute. */
		if (cmd->len && cmd->len + compute_dw(t->compute_ns) +
				VGPU_TOUCH_LEN > REPLAY_JOB_DW)
			break;
		for (ns = t->compute_ns; ns; ns -= n) {
			n = ns < UINT32_MAX ? ns : UINT32_MAX;
			vgpu_cmd_compute(cmd, (uint32_t)n);
		}
		vgpu_cmd_touch(cmd, VGPU_TOUCH_SEQUENTIAL, touch_access[t->op],
			       va + t->offset, t->size, 0, 0, 0, 1);
	}
	if (!cmd->len)
		return 1;
	ret = vgpu_submit(dev, queue, cmd, nin ? in : NULL, nin, q->sync);
	if (ret)
		return ret;
	(*jobs)++;
	q->signalled = signalled;
	return 0;
}

/*
 * Run every queue's stream, a job per queue per round; a queue whose next
 * job waits for another's signal goes after it in the round, or in the
 * next round.  A wait only names accesses before it in the trace, so some
 * queue can always go.
 */
static int replay_run(struct vgpu_dev *dev, struct qstream *qs, uint32_t nq,
		      uint64_t va, uint64_t sem, uint64_t *jobs)
{
	bool busy[TRACE_MAX_QUEUES], any = true, went;
	struct vgpu_cmd cmd;
	uint32_t q;
	int ret = 0;

	vgpu_cmd_init(&cmd);
	while (any && !ret) {
		memset(busy, 0, sizeof(busy));
		any = false;
		do {
			went = false;
			for (q = 0; q < nq && !ret; q++) {
				if (busy[q] || qs[q].done == qs[q].t.n)
					continue;
				ret = stream_submit(dev, q, qs, va, sem, &cmd, jobs);
				busy[q] = !ret;
				went |= !ret;
				ret = ret > 0 ? 0 : ret;
			}
			any |= went;
		} while (went && !ret);
		for (q = 0; q < nq && !ret; q++) {
			if (!busy[q])
				continue;
			ret = vgpu_syncobj_wait(dev, qs[q].sync, 600ll * 1000000000ll);
			if (!ret && vgpu_syncobj_status(dev, qs[q].sync) != 1)
				ret = -EIO;
		}
	}
	vgpu_cmd_fini(&cmd);
	/* Nothing could go, yet something is left: cannot happen. */
	for (q = 0; q < nq && !ret; q++)
		if (qs[q].done < qs[q].t.n)
			ret = -EDEADLK;
	return ret;
}

/* The bytes the VM read and wrote (VRAM and system memory). */
static int vm_bytes(struct vgpu_dev *dev, uint64_t *rd, uint64_t *wr)
{
	struct drm_vgpu_query_vm vm;
	int ret = vgpu_query_vm(dev, &vm);

	if (ret)
		return ret;
	*rd = vm.device[VGPU_CTR_VRAM_READ_BYTES] + vm.device[VGPU_CTR_SYS_READ_BYTES];
	*wr = vm.device[VGPU_CTR_VRAM_WRITE_BYTES] + vm.device[VGPU_CTR_SYS_WRITE_BYTES];
	return 0;
}

/* The file name of @path. */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int replay(struct report *r, const struct bench_opts *o, const char *path,
		  const struct trace *tr)
{
	struct qstream qs[TRACE_MAX_QUEUES] = { 0 };
	uint64_t i, cmds = 0, waits = 0, accesses = 0, jobs = 0, compute = 0, caps = 0;
	uint64_t rd0 = 0, wr0 = 0, rd1 = 0, wr1 = 0, sem_va = 0;
	uint32_t q, nq = 0, sem = 0;
	struct bench_span sp;
	struct vgpu_dev dev;
	struct bench_pbo b;
	int ret;

	ret = vgpu_open(&dev);
	if (ret)
		return ret;
	ret = vgpu_get_param(&dev, DRM_VGPU_PARAM_CAPS, &caps);
	if (!ret && !(caps & VGPU_CAPS_COMPUTE)) {
		fprintf(stderr, "vgpu-bench: %s: the device has no COMPUTE for the compute time\n",
			path);
		ret = -EOPNOTSUPP;
	}
	for (i = 0; i < tr->n && !ret; i++) {
		const struct trace_access *a = &tr->acc[i];

		q = a->op == TRACE_WAIT && a->after > a->queue ? a->after : a->queue;
		if (q >= dev.exec_queues) {
			fprintf(stderr, "vgpu-bench: %s: line %llu names queue %u, the device has %u\n",
				path, (unsigned long long)i + 1, q, dev.exec_queues);
			ret = -EINVAL;
			break;
		}
		if (q >= nq)
			nq = q + 1;
		if (a->op == TRACE_WAIT)
			ret = stream_add_wait(qs, a);
		else
			ret = stream_add(&qs[a->queue], a);
	}
	for (q = 0; q < nq && !ret; q++)
		ret = vgpu_syncobj_create(&dev, &qs[q].sync);
	if (ret)
		goto out;
	ret = bench_pbo_create(&dev, tr->footprint, BENCH_VA, &b);
	if (ret)
		goto out;
	/* The semaphores, in system memory after the footprint. */
	sem_va = b.va + b.size;
	ret = vgpu_bo_create(&dev, 4096, VGPU_PLACE_SYSTEM, 0, &sem);
	if (!ret)
		ret = vgpu_vm_map(&dev, sem, 0, sem_va, 4096, VGPU_MAP_RW);
	if (ret)
		goto out_pbo;
	ret = vm_bytes(&dev, &rd0, &wr0);
	if (!ret)
		ret = bench_span_begin(&dev, &sp);
	if (!ret)
		ret = replay_run(&dev, qs, nq, b.va, sem_va, &jobs);
	if (!ret)
		ret = bench_span_end(&dev, &sp);
	if (!ret)
		ret = vm_bytes(&dev, &rd1, &wr1);
	for (q = 0; q < nq && !ret; q++) {
		for (i = 0; i < qs[q].t.n; i++) {
			cmds += qs[q].t.acc[i].op <= TRACE_RMW;
			waits += qs[q].t.acc[i].op == TRACE_WAIT;
		}
		accesses += qs[q].accesses;
		if (qs[q].compute_ns > compute)
			compute = qs[q].compute_ns;
	}
	if (!ret)
		ret = report_row(r, base_name(path), b.size >> 20,
				 o->vram_size ? b.size * 100 / o->vram_size : 0,
				 (uint64_t)nq, accesses, cmds, waits, jobs, sp.seconds,
				 bench_modeled_s(sp.m0.vm_modeled_ns, sp.m1.vm_modeled_ns),
				 longest_queue_s(&sp), compute / 1e9, rd1 - rd0, wr1 - wr0,
				 BENCH_SPAN_ROW(&sp));
	if (sem_va)
		vgpu_vm_unmap(&dev, sem_va, 4096);
out_pbo:
	if (sem)
		vgpu_bo_close(&dev, sem);
	bench_pbo_destroy(&dev, &b);
out:
	for (q = 0; q < nq; q++) {
		if (qs[q].sync)
			vgpu_syncobj_destroy(&dev, qs[q].sync);
		trace_free(&qs[q].t);
	}
	vgpu_close(&dev);
	return ret;
}

struct report *bench_replay(const struct bench_opts *o, const char *path)
{
	struct report *r = report_new("replay of a trace", cols, NCOLS);
	struct bench_settings saved;
	struct trace tr;
	char err[256];
	FILE *f;
	int ret;

	if (!r)
		return NULL;
	f = fopen(path, "r");
	if (!f)
		return bench_result(r, -errno);
	ret = trace_parse(f, &tr, err, sizeof(err));
	fclose(f);
	if (ret == -EINVAL)
		fprintf(stderr, "vgpu-bench: %s:%s\n", path, err);
	if (!ret) {
		bench_settings_save(o->fd, &saved);
		ret = bench_set_policy(o->fd, "placement_policy", "migrate") ? -EACCES : 0;
		if (!ret)
			ret = replay(r, o, path, &tr);
		bench_settings_restore(o->fd, &saved);
	}
	trace_free(&tr);
	return bench_result(r, ret);
}
