// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/bitfield.h>
#include <linux/iopoll.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "vgpu_drv.h"
#include "vgpu_reset.h"
#include "vgpu_tlb.h"

/**
 * DOC: TLB invalidation
 *
 * The device's TLBs cache leaves per context until told otherwise.  An
 * invalidation is a request (all, one context, or a VA range of one
 * context) written to INVAL_VA / INVAL_SIZE / INVAL_CMD; the device
 * accepts it by bumping INVAL_REQ_SEQNO and completes it asynchronously,
 * bumping INVAL_DONE_SEQNO.  The driver issues one request per batch of
 * page-table changes and waits for its seqno with a polled timeout
 * (%VGPU_TLB_INVAL_TIMEOUT_US).  A timeout means the device is broken: the
 * driver says so and schedules a device reset, which empties every TLB.
 *
 * Requests are serialised by &vgpu_tlb.lock, so at most one is in flight
 * and the device's request queue never fills.
 */

/**
 * vgpu_tlb_init() - set up invalidation state
 * @vdev: vgpu device
 */
void vgpu_tlb_init(struct vgpu_device *vdev)
{
	mutex_init(&vdev->tlb.lock);
}

static int vgpu_tlb_inval(struct vgpu_device *vdev, u32 op, u32 ctx, u64 va,
			  u64 size)
{
	struct drm_device *drm = &vdev->drm;
	u32 req, done;
	int idx, ret;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;

	mutex_lock(&vdev->tlb.lock);
	/* Page-table writes go through a WC mapping: drain them first. */
	wmb();
	req = vgpu_rd32(vdev, VGPU_REG_INVAL_REQ_SEQNO);
	vgpu_wr64(vdev, VGPU_REG_INVAL_VA_LO, va);
	vgpu_wr64(vdev, VGPU_REG_INVAL_SIZE_LO, size);
	vgpu_wr32(vdev, VGPU_REG_INVAL_CMD,
		  FIELD_PREP(VGPU_INVAL_CMD_OP_MASK, op) |
		  FIELD_PREP(VGPU_INVAL_CMD_CTX_MASK, ctx));
	if (vgpu_rd32(vdev, VGPU_REG_INVAL_REQ_SEQNO) == req) {
		drm_err(drm, "TLB invalidation (op %u, context %u) refused, status %#x\n",
			op, ctx, vgpu_rd32(vdev, VGPU_REG_STATUS));
		ret = -EIO;
		goto out;
	}
	req++;

	ret = read_poll_timeout(vgpu_rd32, done, (s32)(done - req) >= 0,
				2, VGPU_TLB_INVAL_TIMEOUT_US, false,
				vdev, VGPU_REG_INVAL_DONE_SEQNO);
	if (ret) {
		drm_err(drm, "TLB invalidation %u (op %u, context %u) not done after %u us, scheduling a device reset\n",
			req, op, ctx, VGPU_TLB_INVAL_TIMEOUT_US);
		vgpu_reset_schedule(vdev, "TLB invalidation timeout");
	}
	vdev->tlb.count++;
out:
	mutex_unlock(&vdev->tlb.lock);
	drm_dev_exit(idx);
	return ret;
}

/**
 * vgpu_tlb_inval_all() - drop every cached translation
 * @vdev: vgpu device
 *
 * Context: process, sleeps.
 * Return: 0, or a negative errno after a timeout (a reset is scheduled).
 */
int vgpu_tlb_inval_all(struct vgpu_device *vdev)
{
	return vgpu_tlb_inval(vdev, VGPU_INVAL_OP_ALL, 0, 0, 0);
}

/**
 * vgpu_tlb_inval_context() - drop every translation of a context
 * @vdev: vgpu device
 * @ctx: hardware context
 *
 * Context: process, sleeps.
 * Return: 0 or a negative errno.
 */
int vgpu_tlb_inval_context(struct vgpu_device *vdev, u32 ctx)
{
	return vgpu_tlb_inval(vdev, VGPU_INVAL_OP_CONTEXT, ctx, 0, 0);
}

/**
 * vgpu_tlb_inval_range() - drop a context's translations of a VA range
 * @vdev: vgpu device
 * @ctx: hardware context
 * @va: start
 * @size: bytes
 *
 * Context: process, sleeps.
 * Return: 0 or a negative errno.
 */
int vgpu_tlb_inval_range(struct vgpu_device *vdev, u32 ctx, u64 va, u64 size)
{
	return vgpu_tlb_inval(vdev, VGPU_INVAL_OP_RANGE, ctx, va, size);
}
