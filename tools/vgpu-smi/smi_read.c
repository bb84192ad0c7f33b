// SPDX-License-Identifier: MIT
/*
 * vgpu-smi: read the driver's public interfaces.
 *
 * Devices come from sysfs (/sys/class/drm/renderD* whose driver is vgpu,
 * and the attribute files on their PCI device), processes from
 * /proc/<pid>/fdinfo/<fd> (drm-driver: vgpu), recent faults from debugfs
 * when it is mounted and readable.  Nothing here opens a render node, so
 * vgpu-smi never shows up as a client of its own.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "smi.h"

#define SYSFS_DRM	"/sys/class/drm"
#define DEBUGFS_DRI	"/sys/kernel/debug/dri"

/* Copies @src into @dst, cut to fit: names here come from the kernel. */
static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int path_join(char *out, size_t size, const char *dir, const char *name)
{
	int n = snprintf(out, size, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int read_text(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static uint64_t read_u64(const char *dir, const char *name)
{
	char path[PATH_MAX], buf[64];

	if (path_join(path, sizeof(path), dir, name) ||
	    read_text(path, buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 0);
}

static void read_str(const char *dir, const char *name, char *out, size_t size)
{
	char path[PATH_MAX], buf[256];

	if (path_join(path, sizeof(path), dir, name) ||
	    read_text(path, buf, sizeof(buf)))
		buf[0] = '\0';
	copy_str(out, size, buf);
}

static int read_words(const char *dir, const char *name, char words[][32], int max)
{
	char path[PATH_MAX], buf[256], *tok, *save;
	int n = 0;

	if (path_join(path, sizeof(path), dir, name) ||
	    read_text(path, buf, sizeof(buf)))
		return 0;
	for (tok = strtok_r(buf, " \t\n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \t\n", &save))
		copy_str(words[n++], 32, tok);
	return n;
}

static int cmp_counter(const void *a, const void *b)
{
	return strcmp(((const struct smi_counter *)a)->name,
		      ((const struct smi_counter *)b)->name);
}

static void read_counters(struct smi_device *d, const char *devdir)
{
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *dp;

	if (path_join(dir, sizeof(dir), devdir, "counters"))
		return;
	dp = opendir(dir);
	if (!dp)
		return;
	while ((e = readdir(dp)) && d->nr_counters < SMI_MAX_COUNTERS) {
		struct smi_counter *c = &d->counters[d->nr_counters];

		if (e->d_name[0] == '.')
			continue;
		copy_str(c->name, sizeof(c->name), e->d_name);
		c->value = read_u64(dir, e->d_name);
		d->nr_counters++;
	}
	closedir(dp);
	qsort(d->counters, d->nr_counters, sizeof(d->counters[0]), cmp_counter);
}

/* The last @max entries of debugfs fault_log, if we may read it. */
static void read_faults(struct smi_device *d, int max)
{
	char path[PATH_MAX], line[256];
	FILE *f;

	snprintf(path, sizeof(path), DEBUGFS_DRI "/%s/fault_log", d->pci);
	f = fopen(path, "re");
	if (!f)
		return;
	d->has_debugfs = true;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0] || max <= 0)
			continue;
		if (d->nr_faults == max) {
			memmove(d->faults, d->faults + 1,
				sizeof(d->faults[0]) * (max - 1));
			d->nr_faults--;
		}
		copy_str(d->faults[d->nr_faults++].line,
			 sizeof(d->faults[0].line), line);
	}
	fclose(f);
}

static int node_number(const char *name)
{
	return atoi(name + strlen("renderD"));
}

static int cmp_device(const void *a, const void *b)
{
	const struct smi_device *x = a, *y = b;

	return node_number(strrchr(x->node, '/') + 1) -
	       node_number(strrchr(y->node, '/') + 1);
}

static bool device_matches(const struct smi_device *d, int index,
			   const char *only)
{
	char idx[16];

	if (!only)
		return true;
	snprintf(idx, sizeof(idx), "%d", index);
	return !strcmp(only, idx) || !strcmp(only, d->pci) ||
	       !strcmp(only, d->node) || !strcmp(only, strrchr(d->node, '/') + 1);
}

static void read_devices(struct smi_snapshot *s, const char *only, int faults)
{
	struct dirent *e;
	DIR *dp;
	int i, n = 0;

	dp = opendir(SYSFS_DRM);
	if (!dp)
		return;
	while ((e = readdir(dp)) && s->nr_devices < SMI_MAX_DEVICES) {
		char link[PATH_MAX], path[PATH_MAX], real[PATH_MAX];
		struct smi_device *d = &s->devices[s->nr_devices];
		ssize_t len;
		const char *drv;

		if (strncmp(e->d_name, "renderD", 7))
			continue;
		snprintf(path, sizeof(path), SYSFS_DRM "/%s/device/driver", e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = '\0';
		drv = strrchr(link, '/');
		if (strcmp(drv ? drv + 1 : link, "vgpu"))
			continue;
		snprintf(path, sizeof(path), SYSFS_DRM "/%s/device", e->d_name);
		if (!realpath(path, real))
			continue;
		memset(d, 0, sizeof(*d));
		copy_str(d->pci, sizeof(d->pci), strrchr(real, '/') + 1);
		if (path_join(d->node, sizeof(d->node), "/dev/dri", e->d_name))
			continue;
		s->nr_devices++;
	}
	closedir(dp);
	qsort(s->devices, s->nr_devices, sizeof(s->devices[0]), cmp_device);

	for (i = 0; i < s->nr_devices; i++) {
		struct smi_device *d = &s->devices[i];
		char dir[PATH_MAX];

		if (!device_matches(d, i, only))
			continue;
		if (n != i)
			s->devices[n] = *d;
		d = &s->devices[n];
		d->index = i;
		n++;

		snprintf(dir, sizeof(dir), SYSFS_DRM "/%s/device",
			 strrchr(d->node, '/') + 1);
		d->vram_total = read_u64(dir, "vram_total");
		d->vram_used = read_u64(dir, "vram_used");
		d->vram_kernel_used = read_u64(dir, "vram_kernel_used");
		d->visible_total = read_u64(dir, "visible_vram_total");
		d->visible_used = read_u64(dir, "visible_vram_used");
		d->gtt_total = read_u64(dir, "gtt_total");
		d->gtt_used = read_u64(dir, "gtt_used");
		d->bo_count = read_u64(dir, "bo_count");
		d->lanes = read_u64(dir, "lanes");
		d->deterministic = read_u64(dir, "deterministic");
		read_str(dir, "eviction_policy", d->evict_policy, sizeof(d->evict_policy));
		read_str(dir, "placement_policy", d->place_policy, sizeof(d->place_policy));
		d->nr_evict_avail = read_words(dir, "available_eviction_policies",
					       d->evict_avail, SMI_MAX_POLICIES);
		d->nr_place_avail = read_words(dir, "available_placement_policies",
					       d->place_avail, SMI_MAX_POLICIES);
		read_counters(d, dir);
		read_faults(d, faults);
	}
	s->nr_devices = n;
}

/* ------------------------------------------------------------- fdinfo --- */

static void parse_value(struct smi_key *k, const char *v)
{
	char *end;
	unsigned long long n;

	while (*v == ' ' || *v == '\t')
		v++;
	copy_str(k->str, sizeof(k->str), v);
	if (!isdigit((unsigned char)*v))
		return;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno)
		return;
	while (*end == ' ')
		end++;
	if (!strcmp(end, "KiB"))
		n <<= 10;
	else if (!strcmp(end, "MiB"))
		n <<= 20;
	else if (!strcmp(end, "GiB"))
		n <<= 30;
	else if (*end && strcmp(end, "ns"))
		return;
	k->value = n;
	k->numeric = true;
	snprintf(k->str, sizeof(k->str), "%llu", n);
}

/* A per-queue fdinfo key (q<N>): its value into @ns[N]. */
static void engine_key(struct smi_client *c, uint64_t *ns, int q,
		       uint64_t value)
{
	if (q < 0 || q >= SMI_MAX_ENGINES)
		return;
	ns[q] = value;
	if (q + 1 > c->nr_engines)
		c->nr_engines = q + 1;
}

static void region_key(struct smi_client *c, const char *name, uint64_t v)
{
	char stat[16], region[32];
	struct smi_region *r;

	if (sscanf(name, "drm-%15[a-z]-%31s", stat, region) != 2)
		return;
	if (!strcmp(region, "vram"))
		r = &c->vram;
	else if (!strcmp(region, "system"))
		r = &c->system;
	else
		return;
	if (!strcmp(stat, "total"))
		r->total = v;
	else if (!strcmp(stat, "shared"))
		r->shared = v;
	else if (!strcmp(stat, "resident"))
		r->resident = v;
	else if (!strcmp(stat, "purgeable"))
		r->purgeable = v;
	else if (!strcmp(stat, "active"))
		r->active = v;
}

/* One parsed fdinfo file of a vgpu node. */
struct fdinfo {
	uint64_t client_id;
	char pdev[32];
	struct smi_client c;
};

static bool parse_fdinfo(const char *path, struct fdinfo *fi)
{
	char line[256];
	bool vgpu = false, have_id = false;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return false;
	memset(fi, 0, sizeof(*fi));
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		struct smi_key *k;

		line[strcspn(line, "\n")] = '\0';
		if (!colon || strncmp(line, "drm-", 4))
			continue;
		*colon = '\0';
		if (!strcmp(line, "drm-driver")) {
			char *v = colon + 1;

			while (*v == ' ' || *v == '\t')
				v++;
			vgpu = !strcmp(v, "vgpu");
			if (!vgpu)
				break;
			continue;
		}
		if (fi->c.nr_keys == SMI_MAX_KEYS)
			continue;
		k = &fi->c.keys[fi->c.nr_keys++];
		copy_str(k->name, sizeof(k->name), line);
		parse_value(k, colon + 1);
		if (!strcmp(line, "drm-client-id")) {
			fi->client_id = k->value;
			have_id = true;
		} else if (!strcmp(line, "drm-pdev")) {
			copy_str(fi->pdev, sizeof(fi->pdev), k->str);
		} else if (!strncmp(line, "drm-engine-q", 12) && k->numeric) {
			engine_key(&fi->c, fi->c.engine_ns, atoi(line + 12),
				   k->value);
		} else if (!strncmp(line, "drm-vgpu-modeled-time-q", 23) &&
			   k->numeric) {
			engine_key(&fi->c, fi->c.modeled_ns, atoi(line + 23),
				   k->value);
		} else if (k->numeric) {
			region_key(&fi->c, line, k->value);
		}
	}
	fclose(f);
	return vgpu && have_id;
}

static struct smi_device *device_by_pci(struct smi_snapshot *s, const char *pci)
{
	int i;

	for (i = 0; i < s->nr_devices; i++)
		if (!strcmp(s->devices[i].pci, pci))
			return &s->devices[i];
	return NULL;
}

static void add_client(struct smi_device *d, struct fdinfo *fi, int pid,
		       const char *comm)
{
	struct smi_client *c;
	int i;

	for (i = 0; i < d->nr_clients; i++) {
		c = &d->clients[i];
		if (c->client_id != fi->client_id)
			continue;
		if (c->pid != pid)
			c->nr_pids++;	/* shared by fork or SCM_RIGHTS */
		return;
	}
	c = realloc(d->clients, sizeof(*c) * (d->nr_clients + 1));
	if (!c)
		return;
	d->clients = c;
	c = &d->clients[d->nr_clients++];
	*c = fi->c;
	c->client_id = fi->client_id;
	copy_str(c->pdev, sizeof(c->pdev), fi->pdev);
	c->pid = pid;
	c->nr_pids = 1;
	copy_str(c->comm, sizeof(c->comm), comm);
}

static void read_processes(struct smi_snapshot *s)
{
	struct fdinfo *fi;
	struct dirent *p;
	DIR *proc;

	fi = malloc(sizeof(*fi));
	proc = opendir("/proc");
	if (!fi || !proc) {
		free(fi);
		if (proc)
			closedir(proc);
		return;
	}
	while ((p = readdir(proc))) {
		char dir[PATH_MAX], path[PATH_MAX], comm[64];
		struct dirent *e;
		DIR *fds;
		int pid = atoi(p->d_name);

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", pid);
		fds = opendir(dir);
		if (!fds)
			continue;	/* gone, or not ours to read */
		snprintf(path, sizeof(path), "/proc/%d", pid);
		read_str(path, "comm", comm, sizeof(comm));
		while ((e = readdir(fds))) {
			struct smi_device *d;

			if (e->d_name[0] == '.')
				continue;
			if (path_join(path, sizeof(path), dir, e->d_name) ||
			    !parse_fdinfo(path, fi))
				continue;
			d = device_by_pci(s, fi->pdev);
			if (d)
				add_client(d, fi, pid, comm);
		}
		closedir(fds);
	}
	closedir(proc);
	free(fi);
}

/**
 * smi_snapshot_read() - read everything once
 * @s: filled in; free with smi_snapshot_free()
 * @only_device: index, PCI address or node of the one device wanted, or NULL
 * @processes: scan /proc for clients
 * @faults: recent faults to read from debugfs per device
 *
 * Return: number of devices found.
 */
int smi_snapshot_read(struct smi_snapshot *s, const char *only_device,
		      bool processes, int faults)
{
	struct timespec ts;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->time = ts.tv_sec + ts.tv_nsec * 1e-9;
	s->wall = time(NULL);
	read_devices(s, only_device, faults);
	if (processes)
		read_processes(s);
	return s->nr_devices;
}

void smi_snapshot_free(struct smi_snapshot *s)
{
	int i;

	for (i = 0; i < s->nr_devices; i++) {
		free(s->devices[i].clients);
		s->devices[i].clients = NULL;
		s->devices[i].nr_clients = 0;
	}
}

/** smi_counter() - a sysfs counter by name, 0 if the driver has none */
uint64_t smi_counter(const struct smi_device *d, const char *name)
{
	int i;

	for (i = 0; i < d->nr_counters; i++)
		if (!strcmp(d->counters[i].name, name))
			return d->counters[i].value;
	return 0;
}

const struct smi_key *smi_key_find(const struct smi_client *c, const char *name)
{
	int i;

	for (i = 0; i < c->nr_keys; i++)
		if (!strcmp(c->keys[i].name, name))
			return &c->keys[i];
	return NULL;
}

uint64_t smi_key_u64(const struct smi_client *c, const char *name)
{
	const struct smi_key *k = smi_key_find(c, name);

	return k && k->numeric ? k->value : 0;
}

const struct smi_client *smi_client_find(const struct smi_device *d,
					 uint64_t client_id)
{
	int i;

	for (i = 0; d && i < d->nr_clients; i++)
		if (d->clients[i].client_id == client_id)
			return &d->clients[i];
	return NULL;
}
