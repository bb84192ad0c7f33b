// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu-failnth - make the Nth fault-injection point of one operation fail.
 *
 * Usage: vgpu-failnth [-n N] [-m] [-r REPEAT] OP [ARG...]
 *
 *   -n N       arm /proc/thread-self/fail-nth with N right before OP, so
 *              that the Nth call OP makes into an enabled fault-injection
 *              point (failslab, fail_page_alloc) fails; 0 (default): do
 *              not arm
 *   -m         set /proc/thread-self/make-it-fail around each run of OP
 *              only (not its set-up): with task-filter and a probability
 *              set in debugfs, OP's allocations fail at random
 *   -r REPEAT  run OP REPEAT times (default 1)
 *
 * OPs.  What an OP needs (files, the render node, a BO...) is set up before
 * arming and torn down after, so only the operation itself is counted.
 * PLACE is vram, system or both (BO placements).
 *   write FILE STRING   write STRING to FILE, e.g. a driver's bind file
 *   open DEV            open and close DEV, e.g. the render node
 *   get-param DEV       DRM_IOCTL_VGPU_GET_PARAM for the basic parameters
 *   bo-create DEV PLACE BO_CREATE of a 1 MiB BO (2 MiB-aligned VRAM), then
 *                       GEM_CLOSE
 *   bo-mmap DEV PLACE   mmap() a 256 KiB BO, write every page, munmap()
 *   vm-bind DEV PLACE   VM_BIND MAP of a 2 MiB BO at VA_START, then UNMAP
 *   exec DEV PLACE      EXEC a FILL of a bound 64 KiB BO, wait for its
 *                       syncobj (10 s at most)
 *
 * Prints one line per run: "result=OK" or "result=<errno name>", then
 * " fired=1" if the armed fault was injected (fail-nth reached 0) or
 * " fired=0" if OP completed before reaching the Nth point.  With -r,
 * prints a summary line instead.  Exit status: 0 if the (last) run
 * succeeded, 1 if it failed with an errno, 2 on usage or set-up errors.
 *
 * tools/vm/guest/fault-inject.sh drives it: N = 1, 2, ... until fired=0,
 * which visits every allocation the operation makes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "vgpu_drm.h"
#include "vgpu_hw.h"

#define NUM_BASIC_PARAMS	(DRM_VGPU_PARAM_PCI_ID + 1)

static int failnth_fd = -1;
static int makeitfail_fd = -1;

static void die(const char *what)
{
	fprintf(stderr, "vgpu-failnth: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void failnth_arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(failnth_fd, buf, len, 0) != len)
		die("arming fail-nth");
}

/* Returns 1 if the armed fault fired, and disarms. */
static int failnth_fired(void)
{
	char buf[16] = "";
	ssize_t len = pread(failnth_fd, buf, sizeof(buf) - 1, 0);

	if (len <= 0)
		die("reading fail-nth");
	buf[len] = '\0';
	failnth_arm(0);
	return strtoul(buf, NULL, 10) == 0;
}

static void make_it_fail(int on)
{
	if (makeitfail_fd >= 0 && pwrite(makeitfail_fd, on ? "1" : "0", 1, 0) != 1)
		die("writing make-it-fail");
}

/* State shared by an operation's setup, runs and teardown. */
struct ctx {
	char **argv;
	int fd;
	__u32 placements;
	__u32 bo;
	__u64 bo_size;
	__u64 mmap_offset;
	__u64 va;
	__u32 syncobj;
};

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret && (errno == EINTR || errno == EAGAIN));
	return ret ? -errno : 0;
}

static void must(int ret, const char *what)
{
	if (ret) {
		errno = -ret;
		die(what);
	}
}

static __u32 parse_place(const char *s)
{
	if (!strcmp(s, "vram"))
		return DRM_VGPU_PLACE_VRAM;
	if (!strcmp(s, "system"))
		return DRM_VGPU_PLACE_SYSTEM;
	if (!strcmp(s, "both"))
		return DRM_VGPU_PLACE_ALL;
	fprintf(stderr, "vgpu-failnth: bad placement '%s'\n", s);
	exit(2);
}

static int bo_create(struct ctx *c, __u64 size, __u64 alignment, __u32 *handle)
{
	struct drm_vgpu_bo_create bc = {
		.size = size,
		.placements = c->placements,
		.alignment = c->placements & DRM_VGPU_PLACE_VRAM ? alignment : 0,
	};
	int ret = xioctl(c->fd, DRM_IOCTL_VGPU_BO_CREATE, &bc);

	if (!ret)
		*handle = bc.handle;
	return ret;
}

static void bo_close(struct ctx *c, __u32 handle)
{
	struct drm_gem_close gc = { .handle = handle };

	if (handle)
		xioctl(c->fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

static __u64 get_param(struct ctx *c, __u32 param)
{
	struct drm_vgpu_get_param gp = { .param = param };

	must(xioctl(c->fd, DRM_IOCTL_VGPU_GET_PARAM, &gp), "GET_PARAM");
	return gp.value;
}

static int bind_op(struct ctx *c, __u32 op, __u32 handle, __u64 va, __u64 range)
{
	struct drm_vgpu_vm_bind_op o = {
		.op = op,
		.flags = op == DRM_VGPU_VM_BIND_OP_MAP ?
			 DRM_VGPU_VM_BIND_READ | DRM_VGPU_VM_BIND_WRITE : 0,
		.handle = op == DRM_VGPU_VM_BIND_OP_MAP ? handle : 0,
		.va = va,
		.range = range,
	};
	struct drm_vgpu_vm_bind vb = {
		.num_ops = 1,
		.ops = (uintptr_t)&o,
		.op_size = sizeof(o),
	};

	return xioctl(c->fd, DRM_IOCTL_VGPU_VM_BIND, &vb);
}

/* ---- operations ---------------------------------------------------------- */

static void setup_none(struct ctx *c)
{
}

static void setup_dev(struct ctx *c)
{
	c->fd = open(c->argv[0], O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		die(c->argv[0]);
	if (c->argv[1])
		c->placements = parse_place(c->argv[1]);
}

static void teardown_dev(struct ctx *c)
{
	if (c->syncobj) {
		struct drm_syncobj_destroy sd = { .handle = c->syncobj };

		xioctl(c->fd, DRM_IOCTL_SYNCOBJ_DESTROY, &sd);
	}
	if (c->va)
		bind_op(c, DRM_VGPU_VM_BIND_OP_UNMAP, 0, c->va, c->bo_size);
	bo_close(c, c->bo);
	close(c->fd);
}

static void setup_write(struct ctx *c)
{
	c->fd = open(c->argv[0], O_WRONLY | O_CLOEXEC);
	if (c->fd < 0)
		die(c->argv[0]);
}

static int run_write(struct ctx *c)
{
	size_t len = strlen(c->argv[1]);

	if (pwrite(c->fd, c->argv[1], len, 0) != (ssize_t)len)
		return -errno;
	return 0;
}

static int run_open(struct ctx *c)
{
	int fd = open(c->argv[0], O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int run_get_param(struct ctx *c)
{
	unsigned int p;
	int ret;

	for (p = 0; p < NUM_BASIC_PARAMS; p++) {
		struct drm_vgpu_get_param gp = { .param = p };

		ret = xioctl(c->fd, DRM_IOCTL_VGPU_GET_PARAM, &gp);
		if (ret)
			return ret;
	}
	return 0;
}

static int run_bo_create(struct ctx *c)
{
	__u32 handle;
	int ret = bo_create(c, 1 << 20, 2 << 20, &handle);

	if (!ret)
		bo_close(c, handle);
	return ret;
}

static void setup_bo_mmap(struct ctx *c)
{
	struct drm_vgpu_bo_mmap_offset mo = { 0 };

	setup_dev(c);
	c->bo_size = 256 << 10;
	must(bo_create(c, c->bo_size, 0, &c->bo), "BO_CREATE");
	mo.handle = c->bo;
	must(xioctl(c->fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo), "BO_MMAP_OFFSET");
	c->mmap_offset = mo.offset;
}

static int run_bo_mmap(struct ctx *c)
{
	volatile char *p;
	__u64 off;

	p = mmap(NULL, c->bo_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
		 c->mmap_offset);
	if (p == MAP_FAILED)
		return -errno;
	/* a fault that cannot be served is SIGBUS/SIGSEGV: a crash here */
	for (off = 0; off < c->bo_size; off += 4096)
		p[off] = (char)off;
	munmap((void *)p, c->bo_size);
	return 0;
}

static void setup_vm_bind(struct ctx *c)
{
	setup_dev(c);
	c->bo_size = 2 << 20;
	must(bo_create(c, c->bo_size, 2 << 20, &c->bo), "BO_CREATE");
}

static int run_vm_bind(struct ctx *c)
{
	__u64 va = get_param(c, DRM_VGPU_PARAM_VA_START);
	int ret, tries;

	va = (va + c->bo_size - 1) & ~(c->bo_size - 1);
	ret = bind_op(c, DRM_VGPU_VM_BIND_OP_MAP, c->bo, va, c->bo_size);
	if (ret)
		return ret;
	/* an UNMAP that failed leaves the mapping: retry, report the first */
	for (tries = 0; tries < 3; tries++) {
		int r = bind_op(c, DRM_VGPU_VM_BIND_OP_UNMAP, 0, va, c->bo_size);

		if (!r)
			break;
		ret = ret ?: r;
	}
	return ret;
}

static void setup_exec(struct ctx *c)
{
	struct drm_syncobj_create sc = { 0 };

	setup_dev(c);
	c->bo_size = 64 << 10;
	must(bo_create(c, c->bo_size, 0, &c->bo), "BO_CREATE");
	c->va = get_param(c, DRM_VGPU_PARAM_VA_START);
	c->va = (c->va + 0xffff) & ~0xffffull;
	must(bind_op(c, DRM_VGPU_VM_BIND_OP_MAP, c->bo, c->va, c->bo_size), "VM_BIND");
	must(xioctl(c->fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc), "SYNCOBJ_CREATE");
	c->syncobj = sc.handle;
}

static int run_exec(struct ctx *c)
{
	__u32 cmds[] = {
		VGPU_CMD_HEADER(VGPU_OP_FILL, 0, VGPU_FILL_LEN),
		(__u32)c->va, (__u32)(c->va >> 32),
		(__u32)c->bo_size, (__u32)(c->bo_size >> 32),
		0x5a5a5a5a,
	};
	struct drm_vgpu_exec ex = {
		.cmds = (uintptr_t)cmds,
		.cmds_size = sizeof(cmds),
		.out_sync = c->syncobj,
	};
	struct drm_syncobj_wait sw = {
		.handles = (uintptr_t)&c->syncobj,
		.count_handles = 1,
	};
	struct timespec ts;
	int ret;

	ret = xioctl(c->fd, DRM_IOCTL_VGPU_EXEC, &ex);
	if (ret)
		return ret;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	sw.timeout_nsec = ts.tv_sec * 1000000000ll + ts.tv_nsec + 10000000000ll;
	return xioctl(c->fd, DRM_IOCTL_SYNCOBJ_WAIT, &sw);
}

/*
 * close: a file with live mappings (two BOs, a job's stream buffer) is
 * closed under injection; then another file fills VRAM twice over, so
 * that TTM evicts whatever the closed VM left behind: an eviction that
 * walked a freed or half-torn-down VM would crash here.
 */
static void setup_close(struct ctx *c)
{
	__u64 va;
	__u32 bo2;

	setup_exec(c);
	must(run_exec(c), "EXEC");
	va = c->va + (2 << 20);
	must(bo_create(c, 2 << 20, 2 << 20, &bo2), "BO_CREATE");
	must(bind_op(c, DRM_VGPU_VM_BIND_OP_MAP, bo2, va, 2 << 20), "VM_BIND");
}

static int run_close(struct ctx *c)
{
	close(c->fd);
	c->fd = -1;
	return 0;
}

static void teardown_close(struct ctx *c)
{
	struct ctx other = { .argv = c->argv, .fd = -1 };
	__u64 vram, done;
	__u32 h;

	setup_dev(&other);
	vram = get_param(&other, DRM_VGPU_PARAM_VRAM_SIZE);
	other.placements = DRM_VGPU_PLACE_VRAM;
	for (done = 0; done < 2 * vram; done += 4 << 20)
		if (bo_create(&other, 4 << 20, 0, &h))
			break;
	teardown_dev(&other);
}

struct op {
	const char *name;
	int nargs;
	void (*setup)(struct ctx *c);
	int (*run)(struct ctx *c);		/* 0 or -errno */
	void (*teardown)(struct ctx *c);
};

static void teardown_fd(struct ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
}

static const struct op ops[] = {
	{ "write", 2, setup_write, run_write, teardown_fd },
	{ "open", 1, setup_none, run_open, teardown_fd },
	{ "get-param", 1, setup_dev, run_get_param, teardown_dev },
	{ "bo-create", 2, setup_dev, run_bo_create, teardown_dev },
	{ "bo-mmap", 2, setup_bo_mmap, run_bo_mmap, teardown_dev },
	{ "vm-bind", 2, setup_vm_bind, run_vm_bind, teardown_dev },
	{ "exec", 2, setup_exec, run_exec, teardown_dev },
	{ "close", 2, setup_close, run_close, teardown_close },
};

static void usage(void)
{
	unsigned int i;

	fprintf(stderr, "usage: vgpu-failnth [-n N] [-m] [-r REPEAT] OP ARGS (OP:");
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		fprintf(stderr, " %s", ops[i].name);
	fprintf(stderr, ")\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int nth = 0, repeat = 1, i, ok = 0, failed = 0;
	struct ctx c = { .fd = -1 };
	const struct op *op = NULL;
	int opt, ret = 0, fired = 0;
	char errs[512] = "";

	while ((opt = getopt(argc, argv, "+n:mr:")) != -1) {
		switch (opt) {
		case 'n':
			nth = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			makeitfail_fd = open("/proc/thread-self/make-it-fail",
					     O_WRONLY | O_CLOEXEC);
			if (makeitfail_fd < 0)
				die("/proc/thread-self/make-it-fail");
			break;
		case 'r':
			repeat = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(argv[optind], ops[i].name))
			op = &ops[i];
	if (!op || argc - optind - 1 != op->nargs || !repeat)
		usage();
	c.argv = argv + optind + 1;

	failnth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (failnth_fd < 0 && nth)
		die("/proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION?)");

	make_it_fail(0);
	op->setup(&c);
	for (i = 0; i < repeat; i++) {
		if (nth)
			failnth_arm(nth);
		make_it_fail(1);
		ret = op->run(&c);
		make_it_fail(0);
		if (nth)
			fired = failnth_fired();
		if (!ret) {
			ok++;
		} else {
			const char *name = strerrorname_np(-ret) ?: "?";

			failed++;
			if (!strstr(errs, name) && strlen(errs) + 16 < sizeof(errs)) {
				strcat(errs, errs[0] ? "," : "");
				strcat(errs, name);
			}
		}
	}
	op->teardown(&c);

	if (repeat > 1)
		printf("runs=%u ok=%u failed=%u errors=%s\n", repeat, ok, failed,
		       errs[0] ? errs : "none");
	else if (ret)
		printf("result=%s fired=%d\n", strerrorname_np(-ret) ?: "?", fired);
	else
		printf("result=OK fired=%d\n", fired);
	return ret ? 1 : 0;
}
