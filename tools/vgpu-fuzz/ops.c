// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: picking the next operation.
 *
 * Three calls in four go to the thread's private context, the others to
 * the process's shared one; the operation is drawn by weight from every
 * table, skipping those that need a private context (shadows) or a shared
 * one (calls that confuse the tables).  A context whose VM was banned
 * after a GPU fault is reopened now and then, so that its jobs run again.
 * On a device in strict mode, the counters of stale TLB uses and of work
 * on an invalid context are read every few calls: they must not move.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <string.h>

#include "fuzz.h"
#include "ops.h"

static const struct fz_op *const tables[] = {
	fz_bo_ops, fz_vm_ops, fz_exec_ops, fz_sync_ops, fz_prime_ops,
	fz_core_ops,
};

#define NR_TABLES	(sizeof(tables) / sizeof(tables[0]))

static const struct fz_op *pick(struct fz_rng *r, bool private)
{
	unsigned int total = 0, x, i;
	const struct fz_op *op;

	for (i = 0; i < NR_TABLES; i++)
		for (op = tables[i]; op->name; op++)
			total += op->weight;
	for (;;) {
		x = fz_below(r, total);
		for (i = 0; i < NR_TABLES; i++) {
			for (op = tables[i]; op->name; op++) {
				if (x < op->weight)
					goto found;
				x -= op->weight;
			}
		}
		continue;
found:
		if (!((op->flags & FZ_OP_PRIVATE) && !private) &&
		    !((op->flags & FZ_OP_SHARED) && private))
			return op;
	}
}

static int read_strict(struct fz_ctx *c, uint64_t *now)
{
	struct drm_vgpu_query_vm q;
	int ret = vgpu_query_vm(&c->dev, &q);

	now[0] = q.device[VGPU_CTR_STRICT_STALE];
	now[1] = q.device[VGPU_CTR_STRICT_BAD_CONTEXT];
	return ret;
}

/*
 * Every 16 calls (after every operation with one thread): the strict-mode
 * counters of the context's VM (stale TLB uses, work on an invalid
 * context root) must not move.  Except where the fuzzer asked for it: an
 * unmap of memory its own jobs may still use lets them hit the TLB until
 * the invalidation, and a BO mapped while a job runs is not fenced by it
 * and may move under it; those hits are excused until the jobs are over.
 * In a shared context every thread binds under the others' jobs: its hits
 * are only counted.
 */
static void strict_check(struct fz_thread *t, struct fz_ctx *c)
{
	unsigned int every = fz_opts->procs * fz_opts->threads == 1 ? 1 : 16;
	uint64_t now[2], was[2];

	if (!fz_dev.strict || t->ncalls - t->strict_checked < every ||
	    c->dev.fd < 0)
		return;
	t->strict_checked = t->ncalls;
	if (read_strict(c, now))
		return;
	fz_lock(c);
	memcpy(was, c->strict, sizeof(was));
	memcpy(c->strict, now, sizeof(now));
	fz_unlock(c);
	if (now[0] > was[0] || now[1] > was[1]) {
		if (c->private && !c->changed_busy)
			fz_finding(t, "strict-mode counters of a VM moved: %llu stale TLB uses, %llu uses of an invalid context",
				   (unsigned long long)(now[0] - was[0]),
				   (unsigned long long)(now[1] - was[1]));
		else
			t->slot->stale_excused += now[0] - was[0] + now[1] - was[1];
	}
	if (c->private && c->changed_busy && fz_drained(t, c) &&
	    !read_strict(c, now)) {
		t->slot->stale_excused += now[0] - c->strict[0] +
					  now[1] - c->strict[1];
		memcpy(c->strict, now, sizeof(now));
		c->changed_busy = false;
	}
}

/*
 * A new file for the context.  A shared one is reopened with no operation
 * of another thread in flight: one that had read the old fd number could
 * otherwise reach whatever file got the number next, a private one.
 */
static void reopen(struct fz_thread *t, struct fz_ctx *c)
{
	int ret = 0;

	if (!c->private)
		pthread_rwlock_wrlock(&c->gate);
	if (c->private || c->dev.fd < 0 || c->want_reopen || c->banned) {
		fz_ctx_close(t, c);
		ret = fz_ctx_open(t, c);
	}
	if (!c->private)
		pthread_rwlock_unlock(&c->gate);
	if (ret)
		fz_finding(t, "opening the render node failed: %s", strerror(-ret));
}

void fz_run_one(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	struct fz_ctx *c = t->shared && fz_chance(r, 25) ? t->shared : t->priv;
	const struct fz_op *op;

	if (c->dev.fd < 0 || c->want_reopen ||
	    (c->banned && fz_chance(r, c->private ? 20 : 2))) {
		reopen(t, c);
		return;
	}
	op = pick(r, c->private);
	snprintf(t->slot->op, sizeof(t->slot->op), "%s", op->name);
	fz_gate_enter(c);
	op->run(t, c);
	strict_check(t, c);
	fz_gate_exit(c);
}
