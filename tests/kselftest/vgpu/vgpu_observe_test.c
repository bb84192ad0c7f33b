// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What users see: fdinfo keys, sysfs files, debugfs files and vgpu-smi's
 * JSON, each checked against work the test did itself (allocate X bytes,
 * see X; cause N faults, see N) and against the other interfaces.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "vgpu_stats_list.h"
#include "vgpu_test.h"
#include "libvgpu.h"

#define MiB (1ull << 20)

/* ----------------------------------------------------------- sysfs --- */

/* open(2) of @dir/@name, close-on-exec. */
static int open_in(const char *dir, const char *name, int flags)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags | O_CLOEXEC);
}

static int read_file(const char *dir, const char *name, char *buf, size_t size)
{
	int fd = open_in(dir, name, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static uint64_t sysfs_u64(const char *dir, const char *name)
{
	char buf[64], *end;
	uint64_t v;

	if (read_file(dir, name, buf, sizeof(buf)) || !isdigit((unsigned char)buf[0]))
		return ~0ull;
	v = strtoull(buf, &end, 10);
	return *end ? ~0ull : v;
}

/* Writes @val to a sysfs/debugfs file; returns 0 or -errno of write(). */
static int write_file(const char *dir, const char *name, const char *val)
{
	int fd = open_in(dir, name, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* The debugfs directory of the device, or -ENOENT when there is none. */
static int debugfs_dir(const char *sysdir, char *out, size_t size)
{
	char real[PATH_MAX];
	struct stat st;

	if (!realpath(sysdir, real))
		return -errno;
	snprintf(out, size, "/sys/kernel/debug/dri/%s", strrchr(real, '/') + 1);
	return stat(out, &st) ? -errno : 0;
}

static char *slurp(const char *dir, const char *name)
{
	int fd = open_in(dir, name, O_RDONLY);
	size_t len = 0, cap = 0;
	char *buf = NULL;
	ssize_t n;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb)
				break;
			buf = nb;
			cap += 65536;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* ------------------------------------------------------------ work --- */

/* A BO mapped at @va and touched by the GPU, reads or writes. */
static int touch(struct vgpu_dev *dev, uint64_t va, uint64_t size, uint32_t access)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_touch(&cmd, VGPU_TOUCH_SEQUENTIAL, access, va, size, 0, 0, 0, 1);
	ret = vgpu_run(dev, 0, &cmd, 10ll * 1000 * 1000 * 1000);
	vgpu_cmd_fini(&cmd);
	return ret;
}

static const char *const memory_stats[] = {
	"total", "shared", "active", "resident", "purgeable",
};

static const char *const vgpu_keys[] = {
	"drm-vgpu-vm-state", "drm-vgpu-context", "drm-vgpu-mappings",
	"drm-vgpu-mapped-bytes", "drm-vgpu-pt-bytes", "drm-vgpu-stream-bytes",
	"drm-vgpu-faults",
	"drm-vgpu-migrated-to-vram", "drm-vgpu-migrated-to-system",
	"drm-vgpu-evictions", "drm-vgpu-thrash-events",
	"drm-vgpu-fault-batches", "drm-vgpu-fault-duplicates",
	"drm-vgpu-faults-resolved", "drm-vgpu-faults-cancelled",
	"drm-vgpu-remote-maps", "drm-vgpu-prefetch-bytes",
	"drm-vgpu-prefetch-used-bytes", "drm-vgpu-prefetch-wasted-bytes",
	"drm-vgpu-fault-time",
	"drm-vgpu-tlb-l1-hits", "drm-vgpu-tlb-l1-misses",
	"drm-vgpu-tlb-l2-hits", "drm-vgpu-tlb-l2-misses", "drm-vgpu-pt-walks",
	"drm-vgpu-tlb-invalidations", "drm-vgpu-jobs-submitted",
	"drm-vgpu-jobs-completed", "drm-vgpu-jobs-failed",
};

static const char *const sysfs_files[] = {
	"vram_total", "vram_used", "vram_kernel_used", "visible_vram_total",
	"visible_vram_used", "gtt_total", "gtt_used", "bo_count",
	"admit_used", "admit_limit", "lanes", "deterministic", "eviction_policy",
	"available_eviction_policies", "placement_policy",
	"available_placement_policies",
};

static const char *const sysfs_counters[] = {
	"tlb_l1_hits", "tlb_l1_misses", "tlb_l2_hits", "tlb_l2_misses",
	"pt_walks", "pt_reads", "gpu_faults", "vram_read_bytes",
	"vram_write_bytes", "sys_read_bytes", "sys_write_bytes",
	"tlb_invalidations", "commands", "strict_stale", "strict_bad_context",
	"fault_overflows", "evictions", "bytes_to_vram", "bytes_to_system",
	"cpu_fault_moves", "faults_handled", "faults_cancelled", "vram_allocs",
	"vram_alloc_failures", "vram_peak_used", "context_steals",
	"admit_refusals",
	"fault_batches", "fault_duplicates", "faults_resolved", "remote_maps",
	"thrash_events", "prefetch_bytes", "prefetch_used_bytes",
	"prefetch_wasted_bytes", "fault_ns",
};

/* Device counter index of each sysfs counter backed by the device bank. */
static const struct { const char *name; int idx; } hw_counters[] = {
	{ "tlb_l1_hits", VGPU_CTR_L1_HIT }, { "tlb_l1_misses", VGPU_CTR_L1_MISS },
	{ "tlb_l2_hits", VGPU_CTR_L2_HIT }, { "tlb_l2_misses", VGPU_CTR_L2_MISS },
	{ "pt_walks", VGPU_CTR_WALKS }, { "pt_reads", VGPU_CTR_PT_READS },
	{ "gpu_faults", VGPU_CTR_FAULTS },
	{ "strict_stale", VGPU_CTR_STRICT_STALE },
	{ "strict_bad_context", VGPU_CTR_STRICT_BAD_CONTEXT },
	{ "fault_overflows", VGPU_CTR_FAULT_OVERFLOWS },
};

FIXTURE(observe) {
	struct vgpu_dev dev;
	char sys[PATH_MAX];
	char dbg[PATH_MAX];
	int has_debugfs;
};

FIXTURE_SETUP(observe)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	ASSERT_EQ(0, vgpu_test_sysfs_dir(self->dev.fd, self->sys, sizeof(self->sys)));
	self->has_debugfs = !debugfs_dir(self->sys, self->dbg, sizeof(self->dbg));
}

FIXTURE_TEARDOWN(observe)
{
	vgpu_close(&self->dev);
}

TEST_F(observe, fdinfo_has_every_key)
{
	char key[64], real[PATH_MAX];
	struct fdinfo fi;
	const struct kv *kv;
	unsigned int i, r;
	uint32_t q;

	ASSERT_EQ(0, fdinfo_read(self->dev.fd, &fi));
	kv = fdinfo_get(&fi, "drm-driver");
	ASSERT_NE(NULL, kv);
	EXPECT_STREQ("vgpu", kv->val);
	kv = fdinfo_get(&fi, "drm-client-id");
	ASSERT_NE(NULL, kv);
	EXPECT_TRUE(kv->numeric);
	kv = fdinfo_get(&fi, "drm-pdev");
	ASSERT_NE(NULL, kv);
	ASSERT_NE(NULL, realpath(self->sys, real));
	EXPECT_STREQ(strrchr(real, '/') + 1, kv->val);

	for (r = 0; r < 2; r++) {
		for (i = 0; i < ARRAY_SIZE(memory_stats); i++) {
			snprintf(key, sizeof(key), "drm-%s-%s", memory_stats[i],
				 r ? "system" : "vram");
			kv = fdinfo_get(&fi, key);
			EXPECT_NE(NULL, kv) TH_LOG("missing %s", key);
			if (kv)
				EXPECT_TRUE(kv->numeric) TH_LOG("%s: %s", key, kv->val);
		}
	}
	for (q = 0; q < self->dev.exec_queues; q++) {
		snprintf(key, sizeof(key), "drm-engine-q%u", q);
		kv = fdinfo_get(&fi, key);
		EXPECT_NE(NULL, kv) TH_LOG("missing %s", key);
		if (kv)
			EXPECT_TRUE(kv->numeric);
	}
	snprintf(key, sizeof(key), "drm-engine-q%u", self->dev.exec_queues);
	EXPECT_EQ(NULL, fdinfo_get(&fi, key));
	for (i = 0; i < ARRAY_SIZE(vgpu_keys); i++) {
		const char *k = vgpu_keys[i];

		EXPECT_NE(NULL, fdinfo_get(&fi, k)) TH_LOG("missing %s", k ? k : "?");
	}
	kv = fdinfo_get(&fi, "drm-vgpu-vm-state");
	ASSERT_NE(NULL, kv);
	EXPECT_STREQ("ok", kv->val);
}

TEST_F(observe, fdinfo_client_ids)
{
	uint64_t a = fdinfo_u64(self->dev.fd, "drm-client-id");
	struct vgpu_dev other;
	int dupfd;

	ASSERT_EQ(0, vgpu_open(&other));
	EXPECT_NE(a, fdinfo_u64(other.fd, "drm-client-id"));
	dupfd = dup(self->dev.fd);
	ASSERT_LE(0, dupfd);
	EXPECT_EQ(a, fdinfo_u64(dupfd, "drm-client-id"));
	close(dupfd);
	vgpu_close(&other);
}

FIXTURE(fdmem) {
	struct vgpu_dev dev;
};

FIXTURE_VARIANT(fdmem) {
	uint32_t placement;
	const char *region;
	const char *other;
};

FIXTURE_VARIANT_ADD(fdmem, vram) {
	.placement = VGPU_PLACE_VRAM, .region = "vram", .other = "system",
};
FIXTURE_VARIANT_ADD(fdmem, system) {
	.placement = VGPU_PLACE_SYSTEM, .region = "system", .other = "vram",
};

FIXTURE_SETUP(fdmem)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
}

FIXTURE_TEARDOWN(fdmem)
{
	vgpu_close(&self->dev);
}

static uint64_t region_stat(int fd, const char *stat, const char *region)
{
	char key[64];

	snprintf(key, sizeof(key), "drm-%s-%s", stat, region);
	return fdinfo_u64(fd, key);
}

/* Allocate X bytes, see X in drm-total-<region>; share it, see it shared. */
TEST_F(fdmem, allocate_and_share)
{
	const uint64_t size = 3 * MiB + 4096;
	uint64_t total0, other0, shared0, res0;
	int fd = self->dev.fd, dmabuf;
	uint32_t h, h2;
	void *p;

	total0 = region_stat(fd, "total", variant->region);
	shared0 = region_stat(fd, "shared", variant->region);
	res0 = region_stat(fd, "resident", variant->region);
	other0 = region_stat(fd, "total", variant->other);
	ASSERT_NE(~0ull, total0);

	ASSERT_EQ(0, vgpu_bo_create(&self->dev, size, variant->placement, 0, &h));
	EXPECT_EQ(total0 + size, region_stat(fd, "total", variant->region));
	EXPECT_EQ(other0, region_stat(fd, "total", variant->other));
	EXPECT_EQ(shared0, region_stat(fd, "shared", variant->region));

	/* CPU access makes the pages resident wherever they are. */
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, size, &p));
	memset(p, 1, size);
	vgpu_bo_unmap(p, size);
	EXPECT_EQ(res0 + size, region_stat(fd, "resident", variant->region));
	EXPECT_EQ(0, region_stat(fd, "purgeable", variant->region));
	EXPECT_GE(region_stat(fd, "total", variant->region),
		  region_stat(fd, "active", variant->region));

	/* A second handle (PRIME self-import) makes it shared, not counted twice. */
	ASSERT_EQ(0, vgpu_bo_export(&self->dev, h, &dmabuf));
	ASSERT_EQ(0, vgpu_bo_import(&self->dev, dmabuf, &h2));
	close(dmabuf);
	EXPECT_EQ(h, h2);
	EXPECT_EQ(shared0 + size, region_stat(fd, "shared", variant->region));
	EXPECT_EQ(total0 + size, region_stat(fd, "total", variant->region));

	EXPECT_EQ(0, vgpu_bo_close(&self->dev, h));
	EXPECT_EQ(total0, region_stat(fd, "total", variant->region));
	EXPECT_EQ(shared0, region_stat(fd, "shared", variant->region));
}

/* Cause N faults (one per file: a fault bans the VM), see N counted. */
TEST_F(observe, faults_counted)
{
	enum { N = 3 };
	struct vgpu_dev d[N];
	uint64_t hw0, handled0, cancelled0, sum = 0, sum_cancelled = 0;
	char *log;
	int i;

	hw0 = sysfs_u64(self->sys, "counters/gpu_faults");
	handled0 = sysfs_u64(self->sys, "counters/faults_handled");
	cancelled0 = sysfs_u64(self->sys, "counters/faults_cancelled");
	ASSERT_NE(~0ull, hw0);

	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, vgpu_open(&d[i]));
		EXPECT_EQ(0, fdinfo_u64(d[i].fd, "drm-vgpu-faults"));
		/* Nothing is mapped at va_start: the first access faults. */
		EXPECT_EQ(-EFAULT, touch(&d[i], d[i].va_start, 64 << 10,
					 VGPU_TOUCH_READ));
		sum += fdinfo_u64(d[i].fd, "drm-vgpu-faults");
		EXPECT_LE(1, fdinfo_u64(d[i].fd, "drm-vgpu-faults"));
		EXPECT_EQ(1, fdinfo_u64(d[i].fd, "drm-vgpu-jobs-failed"));
		EXPECT_LE(1, fdinfo_u64(d[i].fd, "drm-vgpu-faults-cancelled"));
		sum_cancelled += fdinfo_u64(d[i].fd, "drm-vgpu-faults-cancelled");
		EXPECT_LE(1, fdinfo_u64(d[i].fd, "drm-vgpu-fault-batches"));
	}
	EXPECT_EQ(hw0 + sum, sysfs_u64(self->sys, "counters/gpu_faults"));
	EXPECT_EQ(handled0 + sum, sysfs_u64(self->sys, "counters/faults_handled"));
	EXPECT_EQ(cancelled0 + sum_cancelled,
		  sysfs_u64(self->sys, "counters/faults_cancelled"));

	if (self->has_debugfs) {
		log = slurp(self->dbg, "fault_log");
		ASSERT_NE(NULL, log);
		for (i = 0; i < N; i++) {
			char pat[64];

			/* "seqno time client queue ctx va access reason level resolution" */
			snprintf(pat, sizeof(pat), " %llu ",
				 (unsigned long long)fdinfo_u64(d[i].fd, "drm-client-id"));
			EXPECT_NE(NULL, strstr(log, pat)) TH_LOG("client%s not in fault_log", pat);
		}
		EXPECT_NE(NULL, strstr(log, "read not-present"));
		free(log);
	}
	for (i = 0; i < N; i++) {
		struct fdinfo fi;

		ASSERT_EQ(0, fdinfo_read(d[i].fd, &fi));
		EXPECT_STREQ("banned", fdinfo_get(&fi, "drm-vgpu-vm-state")->val);
		vgpu_close(&d[i]);
	}
}

/* TLB counters, job counts and engine time follow a TOUCH job. */
TEST_F(observe, tlb_jobs_and_engine_time)
{
	const uint64_t size = 1 * MiB;
	uint64_t l1h0, l1m0, ns0, accesses;
	struct timespec t0, t1;
	int fd = self->dev.fd;
	uint32_t h;

	ASSERT_EQ(0, vgpu_bo_create(&self->dev, size, VGPU_PLACE_VRAM, 0, &h));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, self->dev.va_start, size, VGPU_MAP_RW));
	EXPECT_EQ(1, fdinfo_u64(fd, "drm-vgpu-mappings"));
	EXPECT_EQ(size, fdinfo_u64(fd, "drm-vgpu-mapped-bytes"));
	EXPECT_LT(0, fdinfo_u64(fd, "drm-vgpu-pt-bytes"));

	l1h0 = fdinfo_u64(fd, "drm-vgpu-tlb-l1-hits");
	l1m0 = fdinfo_u64(fd, "drm-vgpu-tlb-l1-misses");
	ns0 = fdinfo_u64(fd, "drm-engine-q0");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, touch(&self->dev, self->dev.va_start, size, VGPU_TOUCH_READ));
	clock_gettime(CLOCK_MONOTONIC, &t1);

	accesses = fdinfo_u64(fd, "drm-vgpu-tlb-l1-hits") - l1h0 +
		   fdinfo_u64(fd, "drm-vgpu-tlb-l1-misses") - l1m0;
	EXPECT_LE(size / VGPU_TOUCH_LINE, accesses);
	EXPECT_GE(fdinfo_u64(fd, "drm-vgpu-tlb-l2-misses"),
		  fdinfo_u64(fd, "drm-vgpu-pt-walks") ? 1 : 0);
	EXPECT_EQ(1, fdinfo_u64(fd, "drm-vgpu-jobs-submitted"));
	EXPECT_EQ(1, fdinfo_u64(fd, "drm-vgpu-jobs-completed"));
	EXPECT_EQ(0, fdinfo_u64(fd, "drm-vgpu-jobs-failed"));
	EXPECT_LT(ns0, fdinfo_u64(fd, "drm-engine-q0"));
	EXPECT_GE((t1.tv_sec - t0.tv_sec) * 1000000000ull + t1.tv_nsec - t0.tv_nsec,
		  fdinfo_u64(fd, "drm-engine-q0") - ns0);
	EXPECT_EQ(0, fdinfo_u64(fd, "drm-active-vram"));
	vgpu_bo_close(&self->dev, h);
}

/*
 * Evictions and migrations are charged to the VM that maps the BO: file A
 * maps a BO of 60% of VRAM, file B allocates another, which pushes A's out;
 * a job of A brings it back.
 */
TEST_F(observe, evictions_charged_to_client)
{
	struct vgpu_dev b;
	uint64_t size, ev0, sys0;
	uint32_t ha, hb;
	int fa = self->dev.fd;

	size = (self->dev.vram_size * 6 / 10) & ~(MiB - 1);
	ev0 = sysfs_u64(self->sys, "counters/evictions");
	sys0 = sysfs_u64(self->sys, "counters/bytes_to_system");

	if (vgpu_bo_create(&self->dev, size, VGPU_PLACE_VRAM, 0, &ha))
		SKIP(return, "no %llu MiB VRAM BO on this device",
		     (unsigned long long)size >> 20);
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, ha, 0, self->dev.va_start, size,
				 VGPU_MAP_RW));
	ASSERT_EQ(0, touch(&self->dev, self->dev.va_start, size, VGPU_TOUCH_WRITE));
	EXPECT_EQ(0, fdinfo_u64(fa, "drm-vgpu-evictions"));

	ASSERT_EQ(0, vgpu_open(&b));
	ASSERT_EQ(0, vgpu_bo_create(&b, size, VGPU_PLACE_VRAM, 0, &hb));
	ASSERT_EQ(0, vgpu_vm_map(&b, hb, 0, b.va_start, size, VGPU_MAP_RW));
	ASSERT_EQ(0, touch(&b, b.va_start, size, VGPU_TOUCH_WRITE));

	EXPECT_LE(1, fdinfo_u64(fa, "drm-vgpu-evictions"));
	EXPECT_LE(size, fdinfo_u64(fa, "drm-vgpu-migrated-to-system"));
	EXPECT_LE(size, region_stat(fa, "total", "system"));
	EXPECT_LT(region_stat(fa, "total", "vram"), size);

	/* A's job brings its BO back, B's goes out. */
	ASSERT_EQ(0, touch(&self->dev, self->dev.va_start, size, VGPU_TOUCH_READ));
	EXPECT_LE(size, fdinfo_u64(fa, "drm-vgpu-migrated-to-vram"));
	EXPECT_LE(1, fdinfo_u64(b.fd, "drm-vgpu-evictions"));

	EXPECT_LE(ev0 + fdinfo_u64(fa, "drm-vgpu-evictions") +
		  fdinfo_u64(b.fd, "drm-vgpu-evictions"),
		  sysfs_u64(self->sys, "counters/evictions"));
	EXPECT_LE(sys0 + 2 * size, sysfs_u64(self->sys, "counters/bytes_to_system"));
	vgpu_close(&b);
	vgpu_bo_close(&self->dev, ha);
}

TEST_F(observe, sysfs_files_present_and_consistent)
{
	struct drm_vgpu_query_memory m;
	struct drm_vgpu_query_counters c;
	char buf[256], path[PATH_MAX];
	uint64_t used0, gtt0, bos0, lanes;
	unsigned int i;
	uint32_t h, hs;

	for (i = 0; i < ARRAY_SIZE(sysfs_files); i++) {
		const char *f = sysfs_files[i];

		EXPECT_EQ(0, read_file(self->sys, f, buf, sizeof(buf))) TH_LOG("%s", f ? f : "?");
	}
	for (i = 0; i < ARRAY_SIZE(sysfs_counters); i++) {
		snprintf(path, sizeof(path), "counters/%s", sysfs_counters[i]);
		EXPECT_NE(~0ull, sysfs_u64(self->sys, path)) TH_LOG("%s", path);
	}

	EXPECT_EQ(self->dev.vram_size, sysfs_u64(self->sys, "vram_total"));
	EXPECT_EQ(self->dev.visible_size, sysfs_u64(self->sys, "visible_vram_total"));
	EXPECT_LT(0, sysfs_u64(self->sys, "gtt_total"));
	ASSERT_EQ(0, vgpu_get_param(&self->dev, DRM_VGPU_PARAM_LANES, &lanes));
	EXPECT_EQ(lanes, sysfs_u64(self->sys, "lanes"));
	EXPECT_EQ(!!(self->dev.caps & VGPU_CAPS_DETERMINISTIC),
		  sysfs_u64(self->sys, "deterministic"));

	/* Quiescent device: sysfs and QUERY agree. */
	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &m));
	EXPECT_EQ(m.vram_used, sysfs_u64(self->sys, "vram_used"));
	EXPECT_EQ(m.vram_kernel_used, sysfs_u64(self->sys, "vram_kernel_used"));
	EXPECT_EQ(m.visible_used, sysfs_u64(self->sys, "visible_vram_used"));
	EXPECT_EQ(m.system_used, sysfs_u64(self->sys, "gtt_used"));
	EXPECT_EQ(m.bo_count, sysfs_u64(self->sys, "bo_count"));
	EXPECT_EQ(m.evictions, sysfs_u64(self->sys, "counters/evictions"));
	EXPECT_EQ(m.bytes_to_vram, sysfs_u64(self->sys, "counters/bytes_to_vram"));
	EXPECT_EQ(m.bytes_to_system, sysfs_u64(self->sys, "counters/bytes_to_system"));
	ASSERT_EQ(0, vgpu_query_counters(&self->dev, &c));
	for (i = 0; i < ARRAY_SIZE(hw_counters); i++) {
		snprintf(path, sizeof(path), "counters/%s", hw_counters[i].name);
		/* Only counters nothing is driving right now are compared. */
		if (hw_counters[i].idx >= VGPU_CTR_FAULTS)
			EXPECT_EQ(c.counters[hw_counters[i].idx], sysfs_u64(self->sys, path))
				TH_LOG("%s", path);
	}
	EXPECT_EQ(0, sysfs_u64(self->sys, "counters/strict_stale"));
	EXPECT_EQ(0, sysfs_u64(self->sys, "counters/strict_bad_context"));

	/* Allocate X bytes, see X. */
	used0 = sysfs_u64(self->sys, "vram_used");
	gtt0 = sysfs_u64(self->sys, "gtt_used");
	bos0 = sysfs_u64(self->sys, "bo_count");
	ASSERT_EQ(0, vgpu_bo_create(&self->dev, 5 * MiB, VGPU_PLACE_VRAM, 0, &h));
	ASSERT_EQ(0, vgpu_bo_create(&self->dev, 3 * MiB, VGPU_PLACE_SYSTEM, 0, &hs));
	EXPECT_EQ(used0 + 5 * MiB, sysfs_u64(self->sys, "vram_used"));
	EXPECT_EQ(gtt0 + 3 * MiB, sysfs_u64(self->sys, "gtt_used"));
	EXPECT_EQ(bos0 + 2, sysfs_u64(self->sys, "bo_count"));
	vgpu_bo_close(&self->dev, h);
	vgpu_bo_close(&self->dev, hs);
	EXPECT_EQ(used0, sysfs_u64(self->sys, "vram_used"));
	EXPECT_EQ(gtt0, sysfs_u64(self->sys, "gtt_used"));
	EXPECT_EQ(bos0, sysfs_u64(self->sys, "bo_count"));
}

/* --------------------------------------------------- counter registry --- */

/*
 * The driver's counter registry (vgpu_stats_list.h), line by line: every
 * view must show what a line says, and nothing the registry does not
 * have.  The hand-written lists above stay as the names tools rely on.
 */
struct registry_line {
	const char *name;
	const char *fdinfo;
	unsigned int unit, group, views;
	int dev, client;	/* VGPU_CTR_* for a device counter, else SRC_* */
};

/* The sources, as the test reads them. */
#define VGPU_SRC_HW(ctr)	VGPU_CTR_##ctr
#define VGPU_SRC_SW		(-1)
#define VGPU_SRC_FN		(-2)
#define VGPU_SRC_NONE		(-3)

#define REGISTRY_LINE(id, name, fdinfo, unit, group, dev, client, views, doc) \
	{ #name, fdinfo, VGPU_STAT_UNIT_##unit, VGPU_STAT_GROUP_##group, views, \
	  dev, client },

static const struct registry_line registry[] = {
	VGPU_STATS_LIST(REGISTRY_LINE)
};

static int name_chars_ok(const char *s, char sep)
{
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != sep)
			return 0;
	return 1;
}

/* The list itself: unique names and keys, one line per device counter. */
TEST(registry_well_formed)
{
	unsigned int i, j, hw = 0, seen = 0;

	for (i = 0; i < ARRAY_SIZE(registry); i++) {
		const struct registry_line *r = &registry[i];

		EXPECT_TRUE(name_chars_ok(r->name, '_')) TH_LOG("%s", r->name);
		if (r->fdinfo)
			EXPECT_TRUE(name_chars_ok(r->fdinfo, '-')) TH_LOG("%s", r->fdinfo);
		for (j = 0; j < i; j++) {
			EXPECT_STRNE(registry[j].name, r->name);
			if (r->fdinfo && registry[j].fdinfo)
				EXPECT_STRNE(registry[j].fdinfo, r->fdinfo);
		}
		/* A view needs a value: sysfs and debugfs the device's, fdinfo the client's. */
		if (r->views & (VGPU_STAT_SYSFS | VGPU_STAT_DEBUGFS))
			EXPECT_NE(VGPU_SRC_NONE, r->dev) TH_LOG("%s", r->name);
		if (r->fdinfo)
			EXPECT_NE(VGPU_SRC_NONE, r->client) TH_LOG("%s", r->name);
		EXPECT_EQ(r->group == VGPU_STAT_GROUP_DEVICE, r->dev >= 0) TH_LOG("%s", r->name);
		if (r->dev >= 0) {
			ASSERT_GT(VGPU_CTR_NR, r->dev);
			EXPECT_FALSE(seen & (1u << r->dev)) TH_LOG("%s", r->name);
			seen |= 1u << r->dev;
			hw++;
		}
		if (r->client >= 0)
			EXPECT_EQ(r->dev, r->client) TH_LOG("%s", r->name);
	}
	EXPECT_EQ(VGPU_CTR_NR, hw);
	EXPECT_EQ((1u << VGPU_CTR_NR) - 1, seen);
}

/* drm-vgpu-* keys of fdinfo that describe the file, not counters. */
static const char *const fdinfo_state_keys[] = {
	"drm-vgpu-vm-state", "drm-vgpu-context", "drm-vgpu-vms",
	"drm-vgpu-vms-banned", "drm-vgpu-mappings", "drm-vgpu-mapped-bytes",
	"drm-vgpu-pt-bytes", "drm-vgpu-stream-bytes",
};

static const struct registry_line *registry_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(registry); i++)
		if (!strcmp(registry[i].name, name))
			return &registry[i];
	return NULL;
}

TEST_F(observe, registry_in_sysfs)
{
	const struct registry_line *r;
	unsigned int i, files = 0;
	struct dirent *de;
	char path[128];
	int fd;
	DIR *d;

	for (i = 0; i < ARRAY_SIZE(registry); i++) {
		r = &registry[i];
		snprintf(path, sizeof(path), "counters/%s", r->name);
		if (r->views & VGPU_STAT_SYSFS) {
			EXPECT_NE(~0ull, sysfs_u64(self->sys, path)) TH_LOG("%s", path);
		} else {
			fd = open_in(self->sys, path, O_RDONLY);
			EXPECT_GT(0, fd) TH_LOG("%s is not for sysfs", path);
			if (fd >= 0)
				close(fd);
		}
	}
	fd = open_in(self->sys, "counters", O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	d = fdopendir(fd);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		r = registry_find(de->d_name);
		EXPECT_TRUE(r && (r->views & VGPU_STAT_SYSFS))
			TH_LOG("counters/%s is no sysfs line of the registry", de->d_name);
		files++;
	}
	closedir(d);
	EXPECT_LT(0, files);
}

#define QUEUE_KEY	"drm-vgpu-modeled-time-q"

TEST_F(observe, registry_in_fdinfo)
{
	const struct registry_line *r;
	char key[80], path[64], line[256], c;
	unsigned int i, j, n, q, queue_keys = 0;
	const struct kv *kv;
	struct fdinfo fi;
	int known;
	FILE *f;

	ASSERT_EQ(0, fdinfo_read(self->dev.fd, &fi));
	for (i = 0; i < ARRAY_SIZE(registry); i++) {
		r = &registry[i];
		if (!r->fdinfo)
			continue;
		snprintf(key, sizeof(key), "drm-vgpu-%s", r->fdinfo);
		for (n = 0, j = 0; j < fi.n; j++)
			n += !strcmp(fi.kv[j].key, key);
		EXPECT_EQ(1, n) TH_LOG("%s shown %u times", key, n);
		kv = fdinfo_get(&fi, key);
		if (!kv)
			continue;
		EXPECT_TRUE(kv->numeric) TH_LOG("%s: %s", key, kv->val);
		/* Only times carry a unit: " ns". */
		if (r->unit == VGPU_STAT_UNIT_NS) {
			EXPECT_NE(NULL, strstr(kv->val, " ns")) TH_LOG("%s: %s", key, kv->val);
		} else {
			EXPECT_EQ(NULL, strchr(kv->val, ' ')) TH_LOG("%s: %s", key, kv->val);
		}
	}
	/* Every drm-vgpu-* key is a registry counter or one of the file's states. */
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", self->dev.fd);
	f = fopen(path, "re");
	ASSERT_NE(NULL, f);
	n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "drm-vgpu-", 9))
			continue;
		line[strcspn(line, ":")] = '\0';
		known = 0;
		for (i = 0; i < ARRAY_SIZE(fdinfo_state_keys); i++)
			known |= !strcmp(line, fdinfo_state_keys[i]);
		for (i = 0; i < ARRAY_SIZE(registry); i++)
			known |= registry[i].fdinfo && !strcmp(line + 9, registry[i].fdinfo);
		/* Or one of the family per exec queue, q0 to q<N-1>. */
		if (!strncmp(line, QUEUE_KEY, strlen(QUEUE_KEY)) &&
		    sscanf(line + strlen(QUEUE_KEY), "%u%c", &q, &c) == 1 &&
		    q < self->dev.exec_queues && q == queue_keys) {
			known = 1;
			queue_keys++;
		}
		EXPECT_TRUE(known) TH_LOG("%s is not in the registry", line);
		n++;
	}
	fclose(f);
	EXPECT_LT(ARRAY_SIZE(fdinfo_state_keys), n);
	/* One per exec queue, in order, where the device writes the clock. */
	EXPECT_EQ(self->dev.caps & VGPU_CAPS_FENCE_CLOCK ?
		  self->dev.exec_queues : 0, queue_keys);
}

/* Each debugfs line "<name> <value>" in the section of its group. */
TEST_F(observe, registry_in_debugfs)
{
	static const char *const sections[] = {
		[VGPU_STAT_GROUP_DEVICE] = "[device]",
		[VGPU_STAT_GROUP_DRIVER] = "[driver]",
		[VGPU_STAT_GROUP_PAGING] = "[paging]",
		[VGPU_STAT_GROUP_CLIENT] = NULL,
	};
	const struct registry_line *r;
	char *s, *sec, *end, *line, *save, name[64];
	unsigned long long v;
	unsigned int i, g;

	if (!self->has_debugfs)
		SKIP(return, "debugfs not mounted or not readable");
	s = slurp(self->dbg, "counters");
	ASSERT_NE(NULL, s);
	for (i = 0; i < ARRAY_SIZE(registry); i++) {
		r = &registry[i];
		for (g = 0; g < ARRAY_SIZE(sections); g++) {
			char pat[96];
			int found;

			if (!sections[g])
				continue;
			sec = strstr(s, sections[g]);
			ASSERT_NE(NULL, sec) TH_LOG("no %s", sections[g]);
			end = strstr(sec + 1, "\n[");
			snprintf(pat, sizeof(pat), "\n%-22s ", r->name);
			found = strstr(sec, pat) && (!end || strstr(sec, pat) < end);
			EXPECT_EQ(g == r->group && (r->views & VGPU_STAT_DEBUGFS), found)
				TH_LOG("%s in %s", r->name, sections[g]);
		}
	}
	/* Nothing in [driver] or [paging] that the registry does not list. */
	for (g = VGPU_STAT_GROUP_DRIVER; g <= VGPU_STAT_GROUP_PAGING; g++) {
		char *copy = strdup(s);

		ASSERT_NE(NULL, copy);
		sec = strstr(copy, sections[g]);
		ASSERT_NE(NULL, sec);
		end = strstr(sec + 1, "\n[");
		if (end)
			*end = '\0';
		for (line = strtok_r(strchr(sec, '\n'), "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			ASSERT_EQ(2, sscanf(line, "%63s %llu", name, &v)) TH_LOG("'%s'", line);
			r = registry_find(name);
			EXPECT_TRUE(r && r->group == g) TH_LOG("%s not in the registry", name);
		}
		free(copy);
	}
	free(s);
}

/*
 * QUERY's fixed structs against the views, on a quiescent device after
 * real paging work: the device's paging bank against sysfs, the VM's
 * against fdinfo (a file with one VM), QUERY_VM against fdinfo.
 */
TEST_F(observe, registry_matches_query)
{
	/* Each field of the uapi struct and the counter it reports. */
	static const struct { size_t off; const char *name; } paging[] = {
#define F(f, n) { offsetof(struct drm_vgpu_paging_counters, f), #n }
		F(faults, faults_handled), F(fault_batches, fault_batches),
		F(fault_duplicates, fault_duplicates),
		F(faults_resolved, faults_resolved),
		F(faults_cancelled, faults_cancelled),
		F(bytes_to_vram, bytes_to_vram), F(bytes_to_system, bytes_to_system),
		F(evictions, evictions), F(remote_maps, remote_maps),
		F(thrash_events, thrash_events), F(prefetch_bytes, prefetch_bytes),
		F(prefetch_used_bytes, prefetch_used_bytes),
		F(prefetch_wasted_bytes, prefetch_wasted_bytes), F(fault_ns, fault_ns),
#undef F
	};
	const uint64_t size = 4 * MiB;
	struct drm_vgpu_query_counters hw;
	struct drm_vgpu_query_paging pg;
	struct drm_vgpu_query_time qt;
	struct drm_vgpu_query_vm qv;
	char path[PATH_MAX];
	unsigned int i;
	uint64_t rounded;
	uint32_t h;

	ASSERT_EQ(sizeof(struct drm_vgpu_paging_counters), ARRAY_SIZE(paging) * 8);
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, &rounded));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, self->dev.va_start, size, VGPU_MAP_RW));
	ASSERT_EQ(0, touch(&self->dev, self->dev.va_start, size, VGPU_TOUCH_WRITE));

	ASSERT_EQ(0, vgpu_query_paging(&self->dev, &pg));
	EXPECT_LT(0, pg.vm.faults);
	EXPECT_LE(size, pg.vm.bytes_to_vram);
	EXPECT_LT(0, pg.device.fault_ns);
	for (i = 0; i < ARRAY_SIZE(paging); i++) {
		uint64_t dev = *(uint64_t *)((char *)&pg.device + paging[i].off);
		uint64_t vm = *(uint64_t *)((char *)&pg.vm + paging[i].off);
		const struct registry_line *r = registry_find(paging[i].name);
		char key[80];

		ASSERT_NE(NULL, r) TH_LOG("%s", paging[i].name);
		ASSERT_NE(NULL, r->fdinfo) TH_LOG("%s", paging[i].name);
		snprintf(path, sizeof(path), "counters/%s", r->name);
		snprintf(key, sizeof(key), "drm-vgpu-%s", r->fdinfo);
		EXPECT_EQ(dev, sysfs_u64(self->sys, path)) TH_LOG("%s", path);
		EXPECT_EQ(vm, fdinfo_u64(self->dev.fd, key)) TH_LOG("%s", key);
		EXPECT_LE(vm, dev) TH_LOG("%s", r->name);
	}

	ASSERT_EQ(0, vgpu_query_vm(&self->dev, &qv));
	EXPECT_LT(0, qv.jobs_submitted);
	EXPECT_EQ(qv.gpu_faults, fdinfo_u64(self->dev.fd, "drm-vgpu-faults"));
	EXPECT_EQ(qv.tlb_invalidations,
		  fdinfo_u64(self->dev.fd, "drm-vgpu-tlb-invalidations"));
	EXPECT_EQ(qv.jobs_submitted, fdinfo_u64(self->dev.fd, "drm-vgpu-jobs-submitted"));
	EXPECT_EQ(qv.jobs_completed, fdinfo_u64(self->dev.fd, "drm-vgpu-jobs-completed"));
	EXPECT_EQ(qv.jobs_failed, fdinfo_u64(self->dev.fd, "drm-vgpu-jobs-failed"));
	EXPECT_LT(0, qv.device[VGPU_CTR_L1_HIT] + qv.device[VGPU_CTR_L1_MISS]);
	/*
	 * The device's counters: sysfs is the global bank, fdinfo the
	 * contexts'.  The uapi banks hold the first DRM_VGPU_NUM_COUNTERS;
	 * the modeled-time counters after them are in QUERY_TIME.
	 */
	ASSERT_EQ(0, vgpu_query_counters(&self->dev, &hw));
	ASSERT_EQ(0, vgpu_query_time(&self->dev, &qt));
	for (i = 0; i < ARRAY_SIZE(registry); i++) {
		const struct registry_line *r = &registry[i];
		uint64_t dev_v = 0, vm_v = 0;
		char key[80];

		if (r->dev >= 0 && r->dev < DRM_VGPU_NUM_COUNTERS)
			dev_v = hw.counters[r->dev];
		if (r->client >= 0 && r->client < DRM_VGPU_NUM_COUNTERS)
			vm_v = qv.device[r->client];
		if (r->dev == VGPU_CTR_MODELED_NS || r->dev == VGPU_CTR_STALL_NS) {
			bool stall = r->dev == VGPU_CTR_STALL_NS;

			dev_v = stall ? qt.stall_ns : qt.modeled_ns;
			vm_v = stall ? qt.vm_stall_ns : qt.vm_modeled_ns;
		}
		snprintf(path, sizeof(path), "counters/%s", r->name);
		/* Only those nothing drives while the device is idle. */
		if (r->dev >= VGPU_CTR_FAULTS && (r->views & VGPU_STAT_SYSFS))
			EXPECT_EQ(dev_v, sysfs_u64(self->sys, path))
				TH_LOG("%s", path);
		if (r->client >= 0 && r->fdinfo) {
			snprintf(key, sizeof(key), "drm-vgpu-%s", r->fdinfo);
			EXPECT_EQ(vm_v, fdinfo_u64(self->dev.fd, key))
				TH_LOG("%s", key);
		}
	}
	vgpu_bo_close(&self->dev, h);
}

static int word_in(const char *words, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = strstr(words, w); p; p = strstr(p + 1, w))
		if ((p == words || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/* Each policy file: every available value sticks, bad ones change nothing. */
static void check_policy_file(struct __test_metadata *_metadata, const char *dir,
			      const char *file, const char *avail_file,
			      const char *const *known, int nknown)
{
	char cur[64], avail[256], now[64];
	char *save, *w, copy[256];
	int i, ret;

	ASSERT_EQ(0, read_file(dir, file, cur, sizeof(cur)));
	ASSERT_EQ(0, read_file(dir, avail_file, avail, sizeof(avail)));
	EXPECT_TRUE(word_in(avail, cur)) TH_LOG("%s '%s' not in '%s'", file, cur, avail);

	snprintf(copy, sizeof(copy), "%s", avail);
	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		EXPECT_EQ(0, write_file(dir, file, w)) TH_LOG("%s <- %s", file, w);
		ASSERT_EQ(0, read_file(dir, file, now, sizeof(now)));
		EXPECT_STREQ(w, now);
		/* With a newline, as echo writes it. */
		snprintf(now, sizeof(now), "%s\n", w);
		EXPECT_EQ(0, write_file(dir, file, now));
	}
	EXPECT_EQ(0, write_file(dir, file, cur));

	EXPECT_EQ(-EINVAL, write_file(dir, file, "no-such-policy"));
	EXPECT_EQ(-EINVAL, write_file(dir, file, "\n"));
	EXPECT_EQ(-EINVAL, write_file(dir, file, "lru lru2"));
	ASSERT_EQ(0, read_file(dir, file, now, sizeof(now)));
	EXPECT_STREQ(cur, now);
	/* Known to the driver but not implemented: EOPNOTSUPP, no change. */
	for (i = 0; i < nknown; i++) {
		if (word_in(avail, known[i]))
			continue;
		ret = write_file(dir, file, known[i]);
		EXPECT_EQ(-EOPNOTSUPP, ret) TH_LOG("%s <- %s", file, known[i]);
		ASSERT_EQ(0, read_file(dir, file, now, sizeof(now)));
		EXPECT_STREQ(cur, now);
	}
}

TEST_F(observe, sysfs_policies)
{
	static const char *const place[] = { "migrate", "remote" };

	if (geteuid())
		SKIP(return, "needs root to write sysfs");
	check_policy_file(_metadata, self->sys, "eviction_policy",
			  "available_eviction_policies", NULL, 0);
	check_policy_file(_metadata, self->sys, "placement_policy",
			  "available_placement_policies", place, 2);
	/* Read-only files refuse writes. */
	EXPECT_EQ(-EACCES, write_file(self->sys, "vram_total", "0"));
}

TEST_F(observe, debugfs_files)
{
	static const char *const files[] = {
		"vram_mm", "vms", "page_tables", "fault_log", "counters",
		"admission",
	};
	const uint64_t size = 2 * MiB;
	unsigned long long kib;
	char pat[96], *s;
	unsigned int i;
	uint32_t h;

	if (!self->has_debugfs)
		SKIP(return, "debugfs not mounted or not readable");

	ASSERT_EQ(0, vgpu_bo_create(&self->dev, size, VGPU_PLACE_VRAM, 0, &h));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, self->dev.va_start, size, VGPU_MAP_R));
	ASSERT_EQ(0, touch(&self->dev, self->dev.va_start, size, VGPU_TOUCH_READ));

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		s = slurp(self->dbg, files[i]);
		EXPECT_NE(NULL, s) TH_LOG("%s", files[i]);
		free(s);
	}

	s = slurp(self->dbg, "vram_mm");
	ASSERT_NE(NULL, s);
	EXPECT_NE(NULL, strstr(s, "largest_free:"));
	EXPECT_NE(NULL, strstr(s, "fragmentation:"));
	EXPECT_NE(NULL, strstr(s, " used\n"));
	snprintf(pat, sizeof(pat), "size:              %llu\n",
		 (unsigned long long)self->dev.vram_size);
	EXPECT_NE(NULL, strstr(s, pat));
	free(s);

	snprintf(pat, sizeof(pat), "client %llu pid %d ",
		 (unsigned long long)fdinfo_u64(self->dev.fd, "drm-client-id"), getpid());
	s = slurp(self->dbg, "vms");
	ASSERT_NE(NULL, s);
	EXPECT_NE(NULL, strstr(s, pat)) TH_LOG("'%s' not in vms", pat);
	snprintf(pat, sizeof(pat), "0x%012llx-0x%012llx",
		 (unsigned long long)self->dev.va_start,
		 (unsigned long long)(self->dev.va_start + size - 1));
	EXPECT_NE(NULL, strstr(s, pat)) TH_LOG("'%s' not in vms", pat);
	free(s);

	s = slurp(self->dbg, "page_tables");
	ASSERT_NE(NULL, s);
	snprintf(pat, sizeof(pat), "  0x%012llx-", (unsigned long long)self->dev.va_start);
	EXPECT_NE(NULL, strstr(s, pat)) TH_LOG("'%s' not in page_tables", pat);
	free(s);

	s = slurp(self->dbg, "counters");
	ASSERT_NE(NULL, s);
	EXPECT_NE(NULL, strstr(s, "tlb_l1_hit_rate"));
	EXPECT_NE(NULL, strstr(s, "[driver]"));
	free(s);

	/* The admission's demand is sysfs admit_used; the VRAM BO is in it. */
	s = slurp(self->dbg, "admission");
	ASSERT_NE(NULL, s);
	snprintf(pat, sizeof(pat), "demand:          %llu KiB\n",
		 (unsigned long long)(sysfs_u64(self->sys, "admit_used") >> 10));
	EXPECT_NE(NULL, strstr(s, pat)) TH_LOG("'%s' not in admission", pat);
	kib = 0;
	EXPECT_NE(NULL, strstr(s, "VRAM BOs:"));
	if (strstr(s, "VRAM BOs:"))
		sscanf(strstr(s, "VRAM BOs:"), "VRAM BOs: %llu", &kib);
	EXPECT_LE(size >> 10, kib);
	free(s);
	vgpu_bo_close(&self->dev, h);
}

/* reset_counters zeroes the device-wide counters, not the per-client ones. */
TEST_F(observe, debugfs_reset_counters)
{
	const uint64_t size = 1 * MiB;
	struct drm_vgpu_query_counters c0, c1;
	uint64_t hits;
	uint32_t h;

	if (!self->has_debugfs)
		SKIP(return, "debugfs not mounted or not readable");
	ASSERT_EQ(0, vgpu_bo_create(&self->dev, size, VGPU_PLACE_VRAM, 0, &h));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, self->dev.va_start, size, VGPU_MAP_RW));
	ASSERT_EQ(0, touch(&self->dev, self->dev.va_start, size, VGPU_TOUCH_READ));
	hits = fdinfo_u64(self->dev.fd, "drm-vgpu-tlb-l1-hits") +
	       fdinfo_u64(self->dev.fd, "drm-vgpu-tlb-l1-misses");
	EXPECT_LT(0, sysfs_u64(self->sys, "counters/commands"));

	ASSERT_EQ(0, vgpu_query_counters(&self->dev, &c0));
	EXPECT_EQ(-EINVAL, write_file(self->dbg, "reset_counters", "maybe"));
	EXPECT_EQ(0, write_file(self->dbg, "reset_counters", "1"));
	/* The strict-mode counters count since probe: a reset hides nothing. */
	ASSERT_EQ(0, vgpu_query_counters(&self->dev, &c1));
	EXPECT_EQ(c0.counters[VGPU_CTR_STRICT_STALE], c1.counters[VGPU_CTR_STRICT_STALE]);
	EXPECT_EQ(c0.counters[VGPU_CTR_STRICT_BAD_CONTEXT],
		  c1.counters[VGPU_CTR_STRICT_BAD_CONTEXT]);
	EXPECT_GT(c0.counters[VGPU_CTR_COMMANDS], c1.counters[VGPU_CTR_COMMANDS]);
	EXPECT_EQ(0, sysfs_u64(self->sys, "counters/tlb_l1_hits"));
	EXPECT_EQ(0, sysfs_u64(self->sys, "counters/tlb_l1_misses"));
	EXPECT_EQ(0, sysfs_u64(self->sys, "counters/gpu_faults"));
	EXPECT_EQ(0, sysfs_u64(self->sys, "counters/evictions"));
	EXPECT_EQ(0, sysfs_u64(self->sys, "counters/faults_handled"));
	/* Per-client counters stay monotonic. */
	EXPECT_EQ(hits, fdinfo_u64(self->dev.fd, "drm-vgpu-tlb-l1-hits") +
			fdinfo_u64(self->dev.fd, "drm-vgpu-tlb-l1-misses"));
	ASSERT_EQ(0, touch(&self->dev, self->dev.va_start, size, VGPU_TOUCH_READ));
	EXPECT_LT(hits, fdinfo_u64(self->dev.fd, "drm-vgpu-tlb-l1-hits") +
			fdinfo_u64(self->dev.fd, "drm-vgpu-tlb-l1-misses"));
	EXPECT_LT(0, sysfs_u64(self->sys, "counters/tlb_l1_hits") +
		     sysfs_u64(self->sys, "counters/tlb_l1_misses"));
	vgpu_bo_close(&self->dev, h);
}

/* ------------------------------------------------------ vgpu-smi JSON --- */

/*
 * A small JSON reader: enough to validate vgpu-smi's output against the
 * grammar and look values up by path ("devices.0.memory.vram_total").
 */
struct json {
	const char *s;
	int err;
};

static void json_ws(struct json *j)
{
	while (*j->s == ' ' || *j->s == '\t' || *j->s == '\n' || *j->s == '\r')
		j->s++;
}

static void json_value(struct json *j);

static void json_string(struct json *j)
{
	if (*j->s != '"') {
		j->err = 1;
		return;
	}
	for (j->s++; *j->s && *j->s != '"'; j->s++) {
		if ((unsigned char)*j->s < 0x20) {
			j->err = 1;
			return;
		}
		if (*j->s == '\\') {
			j->s++;
			if (*j->s == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)j->s[i]))
						j->err = 1;
				j->s += 4;
			} else if (!strchr("\"\\/bfnrt", *j->s) || !*j->s) {
				j->err = 1;
				return;
			}
		}
	}
	if (*j->s != '"')
		j->err = 1;
	else
		j->s++;
}

static void json_number(struct json *j)
{
	const char *start = j->s;

	if (*j->s == '-')
		j->s++;
	if (!isdigit((unsigned char)*j->s)) {
		j->err = 1;
		return;
	}
	if (*j->s == '0' && isdigit((unsigned char)j->s[1]))
		j->err = 1;
	while (isdigit((unsigned char)*j->s))
		j->s++;
	if (*j->s == '.') {
		j->s++;
		if (!isdigit((unsigned char)*j->s))
			j->err = 1;
		while (isdigit((unsigned char)*j->s))
			j->s++;
	}
	if (*j->s == 'e' || *j->s == 'E') {
		j->s++;
		if (*j->s == '+' || *j->s == '-')
			j->s++;
		if (!isdigit((unsigned char)*j->s))
			j->err = 1;
		while (isdigit((unsigned char)*j->s))
			j->s++;
	}
	if (j->s == start)
		j->err = 1;
}

static void json_value(struct json *j)
{
	json_ws(j);
	if (j->err)
		return;
	if (*j->s == '{' || *j->s == '[') {
		char close = *j->s == '{' ? '}' : ']';
		int obj = *j->s == '{';

		j->s++;
		json_ws(j);
		if (*j->s == close) {
			j->s++;
			return;
		}
		for (;;) {
			if (obj) {
				json_ws(j);
				json_string(j);
				json_ws(j);
				if (*j->s != ':') {
					j->err = 1;
					return;
				}
				j->s++;
			}
			json_value(j);
			if (j->err)
				return;
			json_ws(j);
			if (*j->s == ',') {
				j->s++;
				continue;
			}
			if (*j->s == close) {
				j->s++;
				return;
			}
			j->err = 1;
			return;
		}
	} else if (*j->s == '"') {
		json_string(j);
	} else if (!strncmp(j->s, "true", 4) || !strncmp(j->s, "null", 4)) {
		j->s += 4;
	} else if (!strncmp(j->s, "false", 5)) {
		j->s += 5;
	} else {
		json_number(j);
	}
}

/* Is @text one valid JSON value (and nothing else but white space)? */
static int json_valid(const char *text)
{
	struct json j = { .s = text };

	json_value(&j);
	json_ws(&j);
	return !j.err && !*j.s;
}

/*
 * Finds the value at a dotted @path ("a.0.b"); object keys are matched
 * exactly, array elements by index.  Returns a pointer to it, or NULL.
 */
static const char *json_find(const char *text, const char *path)
{
	struct json j = { .s = text };
	char part[64];
	const char *dot;

	while (*path) {
		size_t n;

		dot = strchr(path, '.');
		n = dot ? (size_t)(dot - path) : strlen(path);
		snprintf(part, sizeof(part), "%.*s", (int)n, path);
		path += n + (dot ? 1 : 0);
		json_ws(&j);
		if (*j.s == '{') {
			j.s++;
			for (;;) {
				const char *k;
				size_t klen;

				json_ws(&j);
				if (*j.s != '"')
					return NULL;
				k = j.s + 1;
				json_string(&j);
				if (j.err)
					return NULL;
				klen = j.s - k - 1;
				json_ws(&j);
				if (*j.s != ':')
					return NULL;
				j.s++;
				if (klen == strlen(part) && !strncmp(k, part, klen))
					break;
				json_value(&j);
				json_ws(&j);
				if (*j.s != ',')
					return NULL;
				j.s++;
			}
		} else if (*j.s == '[') {
			int i, want = atoi(part);

			j.s++;
			for (i = 0; i < want; i++) {
				json_value(&j);
				json_ws(&j);
				if (*j.s != ',')
					return NULL;
				j.s++;
			}
			json_ws(&j);
			if (*j.s == ']')
				return NULL;
		} else {
			return NULL;
		}
	}
	json_ws(&j);
	return j.s;
}

static uint64_t json_u64(const char *text, const char *path)
{
	const char *v = json_find(text, path);

	return v && isdigit((unsigned char)*v) ? strtoull(v, NULL, 10) : ~0ull;
}

static int json_streq(const char *text, const char *path, const char *want)
{
	const char *v = json_find(text, path);
	size_t n = strlen(want);

	return v && *v == '"' && !strncmp(v + 1, want, n) && v[n + 1] == '"';
}

/* Runs vgpu-smi with @args; returns its stdout (malloc'd) and exit status. */
static char *run_smi(const char *args, int *status)
{
	char cmd[256], *out = NULL;
	size_t len = 0, cap = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "vgpu-smi %s 2>/dev/null", args);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			char *nb = realloc(out, cap + 65536);

			if (!nb)
				break;
			out = nb;
			cap += 65536;
		}
		n = fread(out + len, 1, cap - len - 1, p);
		if (!n)
			break;
		len += n;
	}
	if (out)
		out[len] = '\0';
	*status = pclose(p);
	return out;
}

static int have_smi(void)
{
	return !system("command -v vgpu-smi >/dev/null 2>&1");
}

TEST_F(observe, smi_json_matches_the_interfaces)
{
	const uint64_t size = 4 * MiB;
	uint64_t cid = fdinfo_u64(self->dev.fd, "drm-client-id");
	char path[128], real[PATH_MAX], *out, *line2;
	int status, d, p, found = -1;
	uint32_t h;

	if (!have_smi())
		SKIP(return, "vgpu-smi not on PATH");
	ASSERT_EQ(0, vgpu_bo_create(&self->dev, size, VGPU_PLACE_VRAM, 0, &h));

	out = run_smi("--json", &status);
	ASSERT_NE(NULL, out);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_TRUE(json_valid(out)) TH_LOG("invalid JSON: %.300s", out);
	EXPECT_EQ(1, json_u64(out, "version"));

	/* The device: same numbers as sysfs (nothing else runs). */
	ASSERT_NE(NULL, realpath(self->sys, real));
	for (d = 0; d < 16; d++) {
		snprintf(path, sizeof(path), "devices.%d.pci", d);
		if (!json_find(out, path))
			break;
		if (json_streq(out, path, strrchr(real, '/') + 1))
			break;
	}
	snprintf(path, sizeof(path), "devices.%d.pci", d);
	ASSERT_TRUE(json_streq(out, path, strrchr(real, '/') + 1));
	snprintf(path, sizeof(path), "devices.%d.memory.vram_total", d);
	EXPECT_EQ(self->dev.vram_size, json_u64(out, path));
	snprintf(path, sizeof(path), "devices.%d.memory.vram_used", d);
	EXPECT_EQ(sysfs_u64(self->sys, "vram_used"), json_u64(out, path));
	snprintf(path, sizeof(path), "devices.%d.memory.bo_count", d);
	EXPECT_EQ(sysfs_u64(self->sys, "bo_count"), json_u64(out, path));
	snprintf(path, sizeof(path), "devices.%d.lanes", d);
	EXPECT_EQ(sysfs_u64(self->sys, "lanes"), json_u64(out, path));
	snprintf(path, sizeof(path), "devices.%d.deterministic", d);
	EXPECT_EQ(sysfs_u64(self->sys, "deterministic"), json_u64(out, path));
	snprintf(path, sizeof(path), "devices.%d.counters.gpu_faults", d);
	EXPECT_EQ(sysfs_u64(self->sys, "counters/gpu_faults"), json_u64(out, path));
	snprintf(path, sizeof(path), "devices.%d.policy.eviction", d);
	{
		char pol[64];

		ASSERT_EQ(0, read_file(self->sys, "eviction_policy", pol, sizeof(pol)));
		EXPECT_TRUE(json_streq(out, path, pol));
	}

	/* This process, as a client: its pid, client id and memory. */
	for (p = 0; p < 64; p++) {
		snprintf(path, sizeof(path), "devices.%d.processes.%d.client_id", d, p);
		if (!json_find(out, path))
			break;
		if (json_u64(out, path) == cid) {
			found = p;
			break;
		}
	}
	ASSERT_LE(0, found) TH_LOG("client %llu not in vgpu-smi's processes",
				   (unsigned long long)cid);
	snprintf(path, sizeof(path), "devices.%d.processes.%d.pid", d, found);
	EXPECT_EQ(getpid(), json_u64(out, path));
	snprintf(path, sizeof(path), "devices.%d.processes.%d.memory.vram.total", d, found);
	EXPECT_EQ(region_stat(self->dev.fd, "total", "vram"), json_u64(out, path));
	EXPECT_LE(size, json_u64(out, path));
	snprintf(path, sizeof(path), "devices.%d.processes.%d.faults", d, found);
	EXPECT_EQ(fdinfo_u64(self->dev.fd, "drm-vgpu-faults"), json_u64(out, path));
	snprintf(path, sizeof(path), "devices.%d.processes.%d.fdinfo.drm-client-id", d, found);
	EXPECT_EQ(cid, json_u64(out, path));
	free(out);

	/* -l with -n: one JSON object per line, each valid. */
	out = run_smi("--json -l 0.2 -n 2", &status);
	ASSERT_NE(NULL, out);
	EXPECT_EQ(0, WEXITSTATUS(status));
	line2 = strchr(out, '\n');
	ASSERT_NE(NULL, line2);
	*line2++ = '\0';
	EXPECT_TRUE(json_valid(out));
	EXPECT_TRUE(json_valid(line2));
	EXPECT_NE(NULL, strstr(line2, "\"busy_pct\""));
	free(out);
	vgpu_bo_close(&self->dev, h);
}

TEST_F(observe, smi_exit_codes)
{
	int status;
	char *out;

	if (!have_smi())
		SKIP(return, "vgpu-smi not on PATH");
	out = run_smi("", &status);
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_NE(NULL, out ? strstr(out, "GPU 0") : NULL);
	free(out);
	free(run_smi("--no-such-option", &status));
	EXPECT_EQ(2, WEXITSTATUS(status));
	free(run_smi("-l 0", &status));
	EXPECT_EQ(2, WEXITSTATUS(status));
	free(run_smi("-d 0000:ff:1f.7", &status));
	EXPECT_EQ(1, WEXITSTATUS(status));
	out = run_smi("-d 0 -P --json", &status);
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_TRUE(out && json_valid(out));
	free(out);
}

TEST_HARNESS_MAIN
