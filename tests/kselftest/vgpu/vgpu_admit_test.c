// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Memory admission, BO_CREATE's -ENOMEM: BOs of each kind (VRAM, system,
 * VRAM|system, pageable) are created and populated through mmap until the
 * driver refuses one.  The refusal must be -ENOMEM and come before
 * anything else suffers: a sentinel process started first is alive with
 * its memory intact, the kernel log has no OOM report, every BO made
 * before reads back its pattern, and the driver's accounting (sysfs
 * admit_used, admit_limit, counters/admit_refusals; debugfs admission)
 * adds up.  Kernel BOs in VRAM (page tables) are pinned there and cost no
 * system memory: VM_BIND still works with the room used up.  Sizes come
 * from the driver's limit and /proc/meminfo, so the test fits any guest,
 * with or without swap (see the ballast for large ones).  Also: the BO
 * alignment concerns VRAM only.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"

#define MiB (1ull << 20)
#define NONE (~0ull)

/*
 * The number after @key at the start of a line of @path ("" matches the
 * first line), with its unit applied (kB, KiB, MiB): reads sysfs files,
 * /proc/meminfo, fdinfo and debugfs alike.  NONE when there is none.
 */
static uint64_t file_u64(const char *path, const char *key)
{
	size_t len = strlen(key);
	FILE *f = fopen(path, "re");
	uint64_t ret = NONE;
	char line[256];

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long v;
		char unit[8] = "";

		if (strncmp(line, key, len) ||
		    sscanf(line + len, " %llu %7s", &v, unit) < 1)
			continue;
		ret = v;
		if (!strcmp(unit, "kB") || !strcmp(unit, "KiB"))
			ret <<= 10;
		else if (!strcmp(unit, "MiB"))
			ret <<= 20;
		break;
	}
	if (f)
		fclose(f);
	return ret;
}

static uint64_t meminfo(const char *key)
{
	return file_u64("/proc/meminfo", key);
}

/* OOM reports in the kernel log: "Out of memory" and "oom-kill" lines. */
static int oom_reports(void)
{
	static const char *const what[] = { "Out of memory", "oom-kill" };
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *p;
	unsigned int i;
	int n, count = 0;

	if (len <= 0)
		return -1;
	buf = malloc(len + 1);
	if (!buf)
		return -1;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (n < 0) {
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		for (p = buf; (p = strstr(p, what[i])); p++)
			count++;
	free(buf);
	return count;
}

/*
 * A process with @size bytes of its own memory, written, that waits for
 * SIGUSR1 and then exits 0 if the memory still holds what it wrote: what
 * the OOM killer would take when a BO's memory runs out.
 */
static pid_t sentinel_start(size_t size)
{
	int ready[2];
	sigset_t set;
	pid_t pid;
	char c;

	if (pipe(ready))
		return -1;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pid = fork();
	if (pid == 0) {
		uint64_t *mem = malloc(size), i, bad = 0;
		int sig;

		sigprocmask(SIG_BLOCK, &set, NULL);
		if (!mem)
			_exit(2);
		for (i = 0; i < size / 8; i++)
			mem[i] = i * 0x9e3779b97f4a7c15ull;
		c = 1;
		if (write(ready[1], &c, 1) != 1)
			_exit(2);
		sigwait(&set, &sig);
		for (i = 0; i < size / 8; i++)
			bad += mem[i] != i * 0x9e3779b97f4a7c15ull;
		_exit(bad ? 1 : 0);
	}
	close(ready[1]);
	if (pid > 0 && read(ready[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(ready[0]);
	return pid;
}

/* Status of the sentinel: still alive before SIGUSR1, and how it ended. */
static int sentinel_stop(pid_t pid, int *alive)
{
	int st = -1;

	*alive = waitpid(pid, &st, WNOHANG) == 0;
	if (*alive) {
		kill(pid, SIGUSR1);
		waitpid(pid, &st, 0);
	}
	return st;
}

/*
 * Writes (or, with @check, counts the differences from) BO @seed's pattern
 * in the first and last qword of every page, through a CPU mapping: every
 * page is populated, and a lost or swapped page shows.
 */
static int64_t pattern(struct vgpu_dev *dev, uint32_t h, uint64_t size,
		       uint64_t seed, int check)
{
	uint64_t *p, i, bad = 0;

	if (vgpu_bo_map(dev, h, size, (void **)&p))
		return -1;
	for (i = 0; i < size / 4096; i++) {
		uint64_t v = ((seed << 40) ^ i) * 0x9e3779b97f4a7c15ull;
		uint64_t *pg = p + i * 512;

		if (check) {
			bad += (pg[0] != v) + (pg[511] != ~v);
		} else {
			pg[0] = v;
			pg[511] = ~v;
		}
	}
	vgpu_bo_unmap(p, size);
	return bad;
}

/* The device and where it shows its admission. */
struct admit_dev {
	struct vgpu_dev dev;
	char sys[PATH_MAX];	/* the device's sysfs directory */
	char dbg[PATH_MAX];	/* its debugfs "admission" file, or "" */
};

static int admit_open(struct admit_dev *ad)
{
	char real[PATH_MAX];
	struct stat st;
	int ret = vgpu_open(&ad->dev);

	if (ret)
		return ret;
	if (vgpu_test_sysfs_dir(ad->dev.fd, ad->sys, sizeof(ad->sys)) ||
	    !realpath(ad->sys, real)) {
		vgpu_close(&ad->dev);
		return -ENOENT;
	}
	snprintf(ad->dbg, sizeof(ad->dbg), "/sys/kernel/debug/dri/%s/admission",
		 strrchr(real, '/') + 1);
	if (stat(ad->dbg, &st))
		ad->dbg[0] = '\0';
	return 0;
}

/* A sysfs value of the device. */
static uint64_t dev_u64(const struct admit_dev *ad, const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", ad->sys, name);
	return file_u64(path, "");
}

/* The BOs admitted that may live in VRAM (or not), from debugfs; NONE without it. */
static uint64_t admitted(const struct admit_dev *ad, int vram)
{
	return ad->dbg[0] ? file_u64(ad->dbg, vram ? "VRAM BOs:" : "system BOs:") : NONE;
}

/* Room left to fill, at most, in a guest that has much more (below). */
#define BALLAST_KEEP	(512 * MiB)

static uint64_t *ballast;
static size_t ballast_size;

/*
 * In a guest without swap and with more than twice BALLAST_KEEP of room
 * (the suite's 2 GiB guests), memory taken once for all tests, shared and
 * so unreclaimable, leaves BALLAST_KEEP to fill, which keeps every test
 * short.  Like any process's memory it lowers the driver's limit, and if
 * the driver let BOs take it, it would be what the OOM killer takes or
 * what reads back wrong.  Smaller guests, and guests with swap, are filled
 * whole.
 */
static void __attribute__((constructor)) ballast_init(void)
{
	uint64_t swap = meminfo("SwapTotal:"), used, limit, i;
	struct admit_dev ad;
	void *p;

	if (admit_open(&ad))
		return;
	used = dev_u64(&ad, "admit_used");
	limit = dev_u64(&ad, "admit_limit");
	vgpu_close(&ad.dev);
	if (swap != 0 || used == NONE || limit == NONE ||
	    limit <= used + 2 * BALLAST_KEEP)
		return;
	ballast_size = limit - used - BALLAST_KEEP;
	p = mmap(NULL, ballast_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		ballast_size = 0;
		return;
	}
	ballast = p;
	for (i = 0; i < ballast_size / 4096; i++)
		ballast[i * 512] = ~i;
}

/* Pages of the ballast that lost their contents. */
static uint64_t ballast_check(void)
{
	uint64_t i, bad = 0;

	for (i = 0; i < ballast_size / 4096; i++)
		bad += ballast[i * 512] != ~i;
	return bad;
}

FIXTURE(admit) {
	struct admit_dev ad;
};

FIXTURE_VARIANT(admit) {
	uint32_t placements;
	uint32_t flags;
};

FIXTURE_VARIANT_ADD(admit, vram) { .placements = VGPU_PLACE_VRAM };
FIXTURE_VARIANT_ADD(admit, system) { .placements = VGPU_PLACE_SYSTEM };
FIXTURE_VARIANT_ADD(admit, vram_system) { .placements = VGPU_PLACE_ALL };
FIXTURE_VARIANT_ADD(admit, pageable) {
	.placements = VGPU_PLACE_SYSTEM, .flags = DRM_VGPU_BO_PAGEABLE,
};

FIXTURE_SETUP(admit)
{
	int ret = admit_open(&self->ad);

	if (ret == -ENODEV)
		SKIP(return, "no vgpu render node");
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(admit)
{
	vgpu_close(&self->ad.dev);
}

static int create(struct vgpu_dev *dev, const FIXTURE_VARIANT(admit) *variant,
		  uint64_t size, uint32_t *h, uint64_t *rounded)
{
	struct drm_vgpu_bo_create bc = {
		.size = size, .placements = variant->placements,
		.flags = variant->flags,
	};
	int ret = vgpu_bo_create_ex(dev, &bc);

	*h = bc.handle;
	*rounded = bc.size;
	return ret;
}

/*
 * BOs of the variant's kind, each populated with its own pattern, until
 * BO_CREATE fails; then the checks of the file comment.
 */
TEST_F_TIMEOUT(admit, fill_until_enomem, 600)
{
	const int vram = !!(variant->placements & VGPU_PLACE_VRAM);
	uint64_t used0 = dev_u64(&self->ad, "admit_used");
	uint64_t limit0 = dev_u64(&self->ad, "admit_limit");
	uint64_t refusals0 = dev_u64(&self->ad, "counters/admit_refusals");
	uint64_t kind0 = admitted(&self->ad, vram);
	uint64_t ram = meminfo("MemTotal:"), swap = meminfo("SwapTotal:");
	uint64_t headroom, step, made = 0, size = 0, bad = 0;
	unsigned int n, i, max;
	int ret = 0, oom0, alive, st;
	uint32_t *h;
	pid_t sentinel;

	ASSERT_NE(NONE, used0);
	ASSERT_NE(NONE, limit0);
	ASSERT_NE(NONE, refusals0);
	ASSERT_NE(NONE, ram);
	if (swap == NONE)
		swap = 0;
	/* The limit is at most what RAM and swap hold, less a reserve. */
	EXPECT_GT(ram + swap, limit0);
	ASSERT_GT(limit0, used0 + 16 * MiB) TH_LOG("no room to test in");

	/* About six BOs in the room, VRAM BOs at most four per VRAM. */
	headroom = limit0 - used0;
	step = headroom / 6;
	if (step > 128 * MiB)
		step = 128 * MiB;
	if (vram && step > self->ad.dev.vram_size / 4)
		step = self->ad.dev.vram_size / 4;
	step &= ~(2 * MiB - 1);
	ASSERT_LE(2 * MiB, step);
	max = headroom / step + 4;
	h = calloc(max, sizeof(*h));
	ASSERT_NE(NULL, h);

	sentinel = sentinel_start(16 * MiB);
	ASSERT_LT(0, sentinel);
	oom0 = oom_reports();
	ASSERT_LE(0, oom0);

	for (n = 0; n < max; n++) {
		ret = create(&self->ad.dev, variant, step, &h[n], &size);
		if (ret)
			break;
		if (pattern(&self->ad.dev, h[n], size, n, 0)) {
			ret = -EIO;
			break;
		}
		made += size;
	}
	TH_LOG("%u BOs of %llu MiB, %llu MiB admitted; limit %llu MiB, demand %llu MiB before; RAM %llu MiB (%llu MiB held by the test), swap %llu MiB, VRAM %llu MiB",
	       n, (unsigned long long)(step >> 20), (unsigned long long)(made >> 20),
	       (unsigned long long)(limit0 >> 20), (unsigned long long)(used0 >> 20),
	       (unsigned long long)(ram >> 20), (unsigned long long)(ballast_size >> 20),
	       (unsigned long long)(swap >> 20),
	       (unsigned long long)(self->ad.dev.vram_size >> 20));
	EXPECT_EQ(-ENOMEM, ret);
	EXPECT_GT(max, n);
	/* Refused for lack of backing, not out of excess caution. */
	EXPECT_LE(headroom / 2, made);
	EXPECT_EQ(refusals0 + 1, dev_u64(&self->ad, "counters/admit_refusals"));

	/* The demand grew by what was made, VRAM BOs included. */
	EXPECT_EQ(used0 + made, dev_u64(&self->ad, "admit_used"));
	if (kind0 != NONE)
		EXPECT_EQ(kind0 + made, admitted(&self->ad, vram));

	/* Nothing suffered: every BO (newest, least swapped, first), the sentinel, the log. */
	for (i = n; i-- > 0;)
		bad += pattern(&self->ad.dev, h[i], size, i, 1);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, ballast_check());
	st = sentinel_stop(sentinel, &alive);
	EXPECT_TRUE(alive);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("sentinel status %#x", st);
	EXPECT_EQ(oom0, oom_reports());

	/* Freed BOs give their share back. */
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, vgpu_bo_close(&self->ad.dev, h[i]));
	for (i = 0; i < 100 && dev_u64(&self->ad, "admit_used") != used0; i++)
		usleep(10000);
	EXPECT_EQ(used0, dev_u64(&self->ad, "admit_used"));
	if (kind0 != NONE)
		EXPECT_EQ(kind0, admitted(&self->ad, vram));
	free(h);
}

/* The client's BOs in both fdinfo regions (a VRAM|system BO may be in either). */
static uint64_t fdinfo_total(const char *path)
{
	uint64_t vram = file_u64(path, "drm-total-vram:");
	uint64_t sys = file_u64(path, "drm-total-system:");

	return vram == NONE || sys == NONE ? NONE : vram + sys;
}

/*
 * The alignment is that of VRAM blocks: a BO that may live in VRAM is
 * rounded up to it, one that lives in system memory only is not (a 4 KiB
 * system BO aligned to 256 MiB takes 4 KiB), as BO_CREATE, fdinfo and the
 * admission all report.  Pageable BOs take no alignment.
 */
TEST_F(admit, alignment_is_vram_only)
{
	const int vram = !!(variant->placements & VGPU_PLACE_VRAM);
	uint64_t align = 256 * MiB, want, used0, kind0, total0;
	struct drm_vgpu_bo_create bc = {
		.size = 4096, .placements = variant->placements,
		.flags = variant->flags,
	};
	char fdinfo[64];

	if (variant->flags & DRM_VGPU_BO_PAGEABLE) {
		bc.alignment = 2 * MiB;
		EXPECT_EQ(-EINVAL, vgpu_bo_create_ex(&self->ad.dev, &bc));
		return;
	}
	while (vram && align > self->ad.dev.vram_size / 2)
		align /= 2;
	want = vram ? align : 4096;
	bc.alignment = align;
	snprintf(fdinfo, sizeof(fdinfo), "/proc/self/fdinfo/%d", self->ad.dev.fd);
	used0 = dev_u64(&self->ad, "admit_used");
	kind0 = admitted(&self->ad, vram);
	total0 = fdinfo_total(fdinfo);
	ASSERT_NE(NONE, total0);

	ASSERT_EQ(0, vgpu_bo_create_ex(&self->ad.dev, &bc));
	EXPECT_EQ(want, bc.size);
	EXPECT_EQ(total0 + want, fdinfo_total(fdinfo));
	EXPECT_EQ(used0 + want, dev_u64(&self->ad, "admit_used"));
	if (kind0 != NONE)
		EXPECT_EQ(kind0 + want, admitted(&self->ad, vram));
	EXPECT_EQ(0, pattern(&self->ad.dev, bc.handle, bc.size, 1, 0));
	EXPECT_EQ(0, pattern(&self->ad.dev, bc.handle, bc.size, 1, 1));
	EXPECT_EQ(0, vgpu_bo_close(&self->ad.dev, bc.handle));
	EXPECT_EQ(total0, fdinfo_total(fdinfo));
	EXPECT_EQ(used0, dev_u64(&self->ad, "admit_used"));
}

/*
 * Kernel BOs in VRAM (page tables) are pinned there and cost no system
 * memory: with the room taken to the last 4 KiB by BOs of the variant's
 * kind and VRAM full of user BOs (which the page tables then push out to
 * system memory, as already counted), VM_BINDs that need hundreds of new
 * page tables still work, and the demand does not move.
 */
TEST_F_TIMEOUT(admit, page_tables_need_no_system_memory, 300)
{
	struct vgpu_dev *dev = &self->ad.dev;
	const uint64_t vstep = dev->vram_size / 4 & ~(64 * 1024ull - 1);
	uint64_t used0 = dev_u64(&self->ad, "admit_used"), used, refusals;
	uint64_t size, rounded;
	unsigned int nv, nf = 0, i, maps, max = 1024;
	uint32_t hv[4], hf[256], target;
	int ret = 0, oom0 = oom_reports();

	ASSERT_NE(NONE, used0);
	ASSERT_LE(0, oom0);
	for (nv = 0; nv < 4; nv++)
		ASSERT_EQ(0, vgpu_bo_create(dev, vstep, VGPU_PLACE_VRAM, 0, &hv[nv]));
	ASSERT_EQ(0, vgpu_bo_create(dev, 4096, VGPU_PLACE_ALL, 0, &target));

	/* The room, taken by halving sizes, until not even 4 KiB more is admitted. */
	size = dev_u64(&self->ad, "admit_limit") - dev_u64(&self->ad, "admit_used");
	ASSERT_GT(size, 4096);
	size /= 2;
	if (variant->placements & VGPU_PLACE_VRAM && size > vstep)
		size = vstep;
	for (size &= ~4095ull; size >= 4096 && nf < 256; size = (size / 2) & ~4095ull) {
		while (nf < 256 && !(ret = create(dev, variant, size, &hf[nf], &rounded)))
			nf++;
		ASSERT_EQ(-ENOMEM, ret);
	}
	ASSERT_GT(256, nf);
	used = dev_u64(&self->ad, "admit_used");
	refusals = dev_u64(&self->ad, "counters/admit_refusals");

	/* One 4 KiB mapping per 2 MiB of VA: a new page table each. */
	if ((dev->va_end - dev->va_start) / (2 * MiB) < max)
		max = (dev->va_end - dev->va_start) / (2 * MiB);
	for (maps = 0; maps < max; maps++) {
		ret = vgpu_vm_map(dev, target, 0, dev->va_start + maps * 2 * MiB, 4096,
				  VGPU_MAP_RW);
		if (ret)
			break;
	}
	TH_LOG("%u VRAM BOs of %llu MiB, %u BOs to take the room, %u mappings",
	       nv, (unsigned long long)(vstep >> 20), nf, maps);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(max, maps);
	EXPECT_EQ(used, dev_u64(&self->ad, "admit_used"));
	EXPECT_EQ(refusals, dev_u64(&self->ad, "counters/admit_refusals"));
	EXPECT_EQ(oom0, oom_reports());

	EXPECT_EQ(0, vgpu_vm_unmap(dev, dev->va_start, (uint64_t)max * 2 * MiB));
	for (i = 0; i < nf; i++)
		EXPECT_EQ(0, vgpu_bo_close(dev, hf[i]));
	EXPECT_EQ(0, vgpu_bo_close(dev, target));
	for (i = 0; i < nv; i++)
		EXPECT_EQ(0, vgpu_bo_close(dev, hv[i]));
	for (i = 0; i < 100 && dev_u64(&self->ad, "admit_used") != used0; i++)
		usleep(10000);
	EXPECT_EQ(used0, dev_u64(&self->ad, "admit_used"));
}

TEST_HARNESS_MAIN
