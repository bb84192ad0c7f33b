// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu-failnth - make the Nth fault-injection point of one operation fail.
 *
 * Usage: vgpu-failnth [-n N] [-r REPEAT] OP [ARG...]
 *
 *   -n N       arm /proc/thread-self/fail-nth with N right before OP, so
 *              that the Nth call OP makes into an enabled fault-injection
 *              point (failslab, fail_page_alloc) fails; 0 (default): do
 *              not arm, for probabilistic runs under make-it-fail
 *   -r REPEAT  run OP REPEAT times (default 1)
 *
 * OPs (files are opened before arming, so only OP itself is counted):
 *   write FILE STRING   write STRING to FILE, e.g. a driver's bind file
 *   open DEV            open and close DEV, e.g. the render node
 *   get-param DEV       DRM_IOCTL_VGPU_GET_PARAM for every parameter,
 *                       on a DEV opened beforehand
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "vgpu_drm.h"

#define NUM_PARAMS	(DRM_VGPU_PARAM_PCI_ID + 1)

static int failnth_fd = -1;

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

struct op {
	const char *name;
	int nargs;
	int (*prepare)(char **argv);	/* returns an fd or -1 */
	int (*run)(int fd, char **argv);	/* 0 or -errno */
};

static int prep_open_wr(char **argv)
{
	int fd = open(argv[0], O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		die(argv[0]);
	return fd;
}

static int run_write(int fd, char **argv)
{
	size_t len = strlen(argv[1]);

	if (pwrite(fd, argv[1], len, 0) != (ssize_t)len)
		return -errno;
	return 0;
}

static int prep_none(char **argv)
{
	return -1;
}

static int run_open(int unused, char **argv)
{
	int fd = open(argv[0], O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int prep_open_rw(char **argv)
{
	int fd = open(argv[0], O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die(argv[0]);
	return fd;
}

static int run_get_param(int fd, char **argv)
{
	unsigned int p;

	for (p = 0; p < NUM_PARAMS; p++) {
		struct drm_vgpu_get_param gp = { .param = p };

		if (ioctl(fd, DRM_IOCTL_VGPU_GET_PARAM, &gp))
			return -errno;
	}
	return 0;
}

static const struct op ops[] = {
	{ "write", 2, prep_open_wr, run_write },
	{ "open", 1, prep_none, run_open },
	{ "get-param", 1, prep_open_rw, run_get_param },
};

static void usage(void)
{
	fprintf(stderr, "usage: vgpu-failnth [-n N] [-r REPEAT] write FILE STRING | open DEV | get-param DEV\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int nth = 0, repeat = 1, i, ok = 0, failed = 0;
	const struct op *op = NULL;
	int opt, fd, ret = 0, fired = 0;
	char errs[512] = "";

	while ((opt = getopt(argc, argv, "+n:r:")) != -1) {
		switch (opt) {
		case 'n':
			nth = strtoul(optarg, NULL, 0);
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
	argv += optind + 1;

	failnth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (failnth_fd < 0 && nth)
		die("/proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION?)");

	fd = op->prepare(argv);
	for (i = 0; i < repeat; i++) {
		if (nth)
			failnth_arm(nth);
		ret = op->run(fd, argv);
		if (nth)
			fired = failnth_fired();
		if (!ret) {
			ok++;
		} else {
			const char *name = strerrorname_np(-ret);

			failed++;
			if (!strstr(errs, name ? name : "?") &&
			    strlen(errs) + 16 < sizeof(errs)) {
				strcat(errs, errs[0] ? "," : "");
				strcat(errs, name ? name : "?");
			}
		}
	}
	if (fd >= 0)
		close(fd);

	if (repeat > 1)
		printf("runs=%u ok=%u failed=%u errors=%s\n", repeat, ok, failed,
		       errs[0] ? errs : "none");
	else if (ret)
		printf("result=%s fired=%d\n", strerrorname_np(-ret) ?: "?", fired);
	else
		printf("result=OK fired=%d\n", fired);
	return ret ? 1 : 0;
}
