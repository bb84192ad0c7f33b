// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "vgpu_drv.h"
#include "vgpu_evict_policy.h"
#include "vgpu_policy.h"

/**
 * DOC: memory-management policies
 *
 * Two policies steer memory management, one value each per device:
 *
 * - the eviction policy chooses what leaves VRAM when room is needed:
 *   one of %VGPU_EVICT_POLICIES (``lru``, ``lru2``; see "Eviction
 *   policies");
 * - the placement policy (&enum vgpu_place_policy) chooses where data
 *   goes on a GPU fault: ``migrate`` (into VRAM) or ``remote`` (stay in
 *   system memory when a chunk thrashes).
 *
 * They are read and switched at runtime through sysfs (``eviction_policy``,
 * ``placement_policy``); ``available_eviction_policies`` and
 * ``available_placement_policies`` list the ones this driver implements.
 * Setting a policy the driver knows but does not implement gives
 * -EOPNOTSUPP, an unknown name -EINVAL; either way nothing changes.
 *
 * This file only holds the values.  The code that evicts and places reads
 * them with vgpu_policy_evict() / vgpu_policy_place() and
 * announces what it implements in vgpu_policy_init().  Until the paging
 * code does, the policies are those of TTM alone: LRU eviction of whole
 * BOs, migration of whole BOs before a job runs.
 */

static const char *const vgpu_policy_place_names[] = {
	[VGPU_PLACE_MIGRATE] = "migrate",
	[VGPU_PLACE_REMOTE] = "remote",
};

/**
 * vgpu_policy_init() - default policies
 * @vdev: vgpu device
 */
void vgpu_policy_init(struct vgpu_device *vdev)
{
	vdev->policy.evict = 0;		/* the first of VGPU_EVICT_POLICIES */
	vdev->policy.place = VGPU_PLACE_MIGRATE;
	vdev->policy.evict_supported = BIT(0);
	vdev->policy.place_supported = BIT(VGPU_PLACE_MIGRATE);
}

/**
 * vgpu_policy_set_supported() - announce the policies the driver implements
 * @vdev: vgpu device
 * @evict: mask of BIT(index in %VGPU_EVICT_POLICIES)
 * @place: mask of BIT(&enum vgpu_place_policy)
 *
 * For the code that implements them (the paging code), at probe, before
 * the module parameters are applied.  The current policies must be in
 * the masks.
 */
void vgpu_policy_set_supported(struct vgpu_device *vdev, u32 evict, u32 place)
{
	WARN_ON(!(evict & BIT(vdev->policy.evict)) ||
		!(place & BIT(vdev->policy.place)));
	vdev->policy.evict_supported = evict & GENMASK(VGPU_EVICT_NR - 1, 0);
	vdev->policy.place_supported = place & GENMASK(VGPU_PLACE_NR - 1, 0);
}

/** vgpu_policy_evict_name() - name of an eviction policy, NULL if none */
const char *vgpu_policy_evict_name(u32 policy)
{
	const struct vgpu_evict_policy_ops *ops = vgpu_evict_policy_get(policy);

	return ops ? ops->name : NULL;
}

/** vgpu_policy_place_name() - name of a placement policy, NULL if none */
const char *vgpu_policy_place_name(u32 policy)
{
	return policy < VGPU_PLACE_NR ? vgpu_policy_place_names[policy] : NULL;
}

/**
 * vgpu_policy_evict_parse() - eviction policy from its name
 * @buf: the name, maybe followed by a newline (sysfs)
 *
 * Return: the policy, or -EINVAL for an unknown name.
 */
int vgpu_policy_evict_parse(const char *buf)
{
	return vgpu_evict_policy_lookup(buf);
}

/**
 * vgpu_policy_place_parse() - placement policy from its name
 * @buf: the name, maybe followed by a newline (sysfs)
 *
 * Return: the policy, or -EINVAL for an unknown name.
 */
int vgpu_policy_place_parse(const char *buf)
{
	return sysfs_match_string(vgpu_policy_place_names, buf);
}

/** vgpu_policy_evict() - the current eviction policy */
u32 vgpu_policy_evict(struct vgpu_device *vdev)
{
	return READ_ONCE(vdev->policy.evict);
}

/** vgpu_policy_place() - the current placement policy */
u32 vgpu_policy_place(struct vgpu_device *vdev)
{
	return READ_ONCE(vdev->policy.place);
}

/** vgpu_policy_evict_supported() - is eviction policy @policy implemented? */
bool vgpu_policy_evict_supported(struct vgpu_device *vdev, u32 policy)
{
	return policy < VGPU_EVICT_NR && (vdev->policy.evict_supported & BIT(policy));
}

/** vgpu_policy_place_supported() - is placement policy @policy implemented? */
bool vgpu_policy_place_supported(struct vgpu_device *vdev, u32 policy)
{
	return policy < VGPU_PLACE_NR && (vdev->policy.place_supported & BIT(policy));
}

/**
 * vgpu_policy_set_evict() - switch the eviction policy
 * @vdev: vgpu device
 * @policy: index in %VGPU_EVICT_POLICIES
 *
 * Return: 0, -EINVAL for an unknown policy, -EOPNOTSUPP for one this
 * driver does not implement.  Nothing changes on error.
 */
int vgpu_policy_set_evict(struct vgpu_device *vdev, u32 policy)
{
	if (policy >= VGPU_EVICT_NR)
		return -EINVAL;
	if (!vgpu_policy_evict_supported(vdev, policy))
		return -EOPNOTSUPP;
	WRITE_ONCE(vdev->policy.evict, policy);
	return 0;
}

/**
 * vgpu_policy_set_place() - switch the placement policy
 * @vdev: vgpu device
 * @policy: &enum vgpu_place_policy
 *
 * Return: 0, -EINVAL for an unknown policy, -EOPNOTSUPP for one this
 * driver does not implement.  Nothing changes on error.
 */
int vgpu_policy_set_place(struct vgpu_device *vdev, u32 policy)
{
	if (policy >= VGPU_PLACE_NR)
		return -EINVAL;
	if (!vgpu_policy_place_supported(vdev, policy))
		return -EOPNOTSUPP;
	WRITE_ONCE(vdev->policy.place, policy);
	return 0;
}
