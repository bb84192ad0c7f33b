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
 * Nothing orders one queue's accesses against another's.
 *
 * Compute time runs on the device: an access with compute time is
 * preceded by a COMPUTE of that many ns (hardware.rst "Cost model"),
 * which moves the queue's modeled clock and touches no memory, so the
 * modeled time includes it, and a queue that computes holds back its own
 * next access, not the others'.  compute_s reports the busiest queue's
 * compute time.
 *
 * Columns: the trace's file name, footprint (MiB and percent of VRAM),
 * queues used, accesses, TOUCH commands, jobs, wall seconds, the VM's
 * modeled seconds (hardware.rst "Cost model", its fault stalls and its
 * compute included), compute_s, the bytes the VM read and wrote (device
 * counters, VRAM and system memory: 64 per line and access, and the
 * device's fetch of the command streams, 36 bytes per TOUCH and 8 per
 * COMPUTE), and the VM's paging counters:
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
	{ "jobs", REPORT_U64, 0 },
	{ "seconds", REPORT_F64, 3 },
	{ "modeled_s", REPORT_F64, 6 },
	{ "compute_s", REPORT_F64, 6 },
	{ "bytes_read", REPORT_U64, 0 },
	{ "bytes_written", REPORT_U64, 0 },
	BENCH_SPAN_COLS,
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/*
 * A queue's commands, one line-aligned access per TOUCH, and how far its
 * jobs have got.
 */
struct qstream {
	struct trace t;
	uint64_t done;
	uint64_t compute_ns;
	uint32_t sync;
};

static const uint32_t touch_access[] = {
	[TRACE_READ] = VGPU_TOUCH_READ,
	[TRACE_WRITE] = VGPU_TOUCH_WRITE,
	[TRACE_RMW] = VGPU_TOUCH_RMW,
};

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

/* Submit @q's next job; *@jobs counts it.  0 or a negative errno. */
static int stream_submit(struct vgpu_dev *dev, uint32_t queue, struct qstream *q,
			 uint64_t va, struct vgpu_cmd *cmd, uint64_t *jobs)
{
	const struct trace_access *t;
	uint64_t ns, n;

	vgpu_cmd_reset(cmd);
	for (; q->done < q->t.n; q->done++) {
		t = &q->t.acc[q->done];
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
	(*jobs)++;
	return vgpu_submit(dev, queue, cmd, NULL, 0, q->sync);
}

/* Run every queue's stream, a job per queue per round. */
static int replay_run(struct vgpu_dev *dev, struct qstream *qs, uint32_t nq,
		      uint64_t va, uint64_t *jobs)
{
	bool busy[TRACE_MAX_QUEUES], any = true;
	struct vgpu_cmd cmd;
	uint32_t q;
	int ret = 0;

	vgpu_cmd_init(&cmd);
	while (any && !ret) {
		any = false;
		for (q = 0; q < nq && !ret; q++) {
			busy[q] = qs[q].done < qs[q].t.n;
			if (busy[q])
				ret = stream_submit(dev, q, &qs[q], va, &cmd, jobs);
			any |= busy[q];
		}
		for (q = 0; q < nq && !ret; q++) {
			if (!busy[q])
				continue;
			ret = vgpu_syncobj_wait(dev, qs[q].sync, 600ll * 1000000000ll);
			if (!ret && vgpu_syncobj_status(dev, qs[q].sync) != 1)
				ret = -EIO;
		}
	}
	vgpu_cmd_fini(&cmd);
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
	uint64_t i, cmds = 0, jobs = 0, compute = 0, caps = 0;
	uint64_t rd0, wr0, rd1, wr1;
	uint32_t q, nq = 0;
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
		q = tr->acc[i].queue;
		if (q >= dev.exec_queues) {
			fprintf(stderr, "vgpu-bench: %s: access %llu on queue %u, the device has %u\n",
				path, (unsigned long long)i + 1, q, dev.exec_queues);
			ret = -EINVAL;
			break;
		}
		if (q >= nq)
			nq = q + 1;
		ret = stream_add(&qs[q], &tr->acc[i]);
	}
	for (q = 0; q < nq && !ret; q++)
		ret = vgpu_syncobj_create(&dev, &qs[q].sync);
	if (ret)
		goto out;
	ret = bench_pbo_create(&dev, tr->footprint, BENCH_VA, &b);
	if (ret)
		goto out;
	ret = vm_bytes(&dev, &rd0, &wr0);
	if (!ret)
		ret = bench_span_begin(&dev, &sp);
	if (!ret)
		ret = replay_run(&dev, qs, nq, b.va, &jobs);
	if (!ret)
		ret = bench_span_end(&dev, &sp);
	if (!ret)
		ret = vm_bytes(&dev, &rd1, &wr1);
	for (q = 0; q < nq && !ret; q++) {
		cmds += qs[q].t.n;
		if (qs[q].compute_ns > compute)
			compute = qs[q].compute_ns;
	}
	if (!ret)
		ret = report_row(r, base_name(path), b.size >> 20,
				 o->vram_size ? b.size * 100 / o->vram_size : 0,
				 (uint64_t)nq, tr->n, cmds, jobs, sp.seconds,
				 bench_modeled_s(sp.m0.vm_modeled_ns, sp.m1.vm_modeled_ns),
				 compute / 1e9, rd1 - rd0, wr1 - wr0,
				 BENCH_SPAN_ROW(&sp));
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
