/* SPDX-License-Identifier: MIT */
/*
 * vgpu-smi: what it reads and how it keeps it.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_SMI_H
#define VGPU_SMI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SMI_MAX_DEVICES		16
#define SMI_MAX_KEYS		64
#define SMI_MAX_POLICIES	8
#define SMI_MAX_COUNTERS	64
#define SMI_MAX_ENGINES		16
#define SMI_MAX_FAULTS		64

/* One "key: value" of an fdinfo file; numbers are in bytes or ns. */
struct smi_key {
	char name[48];
	char str[32];		/* the value as text, without unit */
	uint64_t value;		/* the value in base units, if numeric */
	bool numeric;
};

/* The memory keys of one fdinfo region (drm-<stat>-<region>). */
struct smi_region {
	uint64_t total, shared, resident, purgeable, active;
};

/* One DRM client: an open file of a vgpu render node. */
struct smi_client {
	uint64_t client_id;
	char pdev[32];
	int pid;		/* first process found holding it */
	int nr_pids;		/* processes holding it */
	char comm[32];
	struct smi_region vram, system;
	uint64_t engine_ns[SMI_MAX_ENGINES];	/* drm-engine-q<N> */
	uint64_t modeled_ns[SMI_MAX_ENGINES];	/* drm-vgpu-modeled-time-q<N> */
	int nr_engines;
	int nr_keys;
	struct smi_key keys[SMI_MAX_KEYS];
};

struct smi_counter {
	char name[48];
	uint64_t value;
};

struct smi_fault {
	char line[160];
};

/* A vgpu device as sysfs (and, if mounted and readable, debugfs) shows it. */
struct smi_device {
	int index;
	char pci[32];
	char node[64];
	uint64_t vram_total, vram_used, vram_kernel_used;
	uint64_t visible_total, visible_used;
	uint64_t gtt_total, gtt_used, bo_count;
	uint64_t lanes, deterministic;
	char evict_policy[32], place_policy[32];
	char evict_avail[SMI_MAX_POLICIES][32], place_avail[SMI_MAX_POLICIES][32];
	int nr_evict_avail, nr_place_avail;
	int nr_counters;
	struct smi_counter counters[SMI_MAX_COUNTERS];
	bool has_debugfs;
	int nr_faults;
	struct smi_fault faults[SMI_MAX_FAULTS];
	int nr_clients;
	struct smi_client *clients;
};

struct smi_snapshot {
	double time;		/* CLOCK_MONOTONIC seconds */
	long long wall;		/* seconds since the epoch */
	int nr_devices;
	struct smi_device devices[SMI_MAX_DEVICES];
};

/* smi_read.c */
int smi_snapshot_read(struct smi_snapshot *s, const char *only_device,
		      bool processes, int faults);
void smi_snapshot_free(struct smi_snapshot *s);
uint64_t smi_counter(const struct smi_device *d, const char *name);
const struct smi_key *smi_key_find(const struct smi_client *c, const char *name);
uint64_t smi_key_u64(const struct smi_client *c, const char *name);
const struct smi_client *smi_client_find(const struct smi_device *d,
					 uint64_t client_id);

/* smi_json.c */
void smi_print_json(FILE *f, const struct smi_snapshot *s,
		    const struct smi_snapshot *prev);

/* vgpu-smi.c */
double smi_ratio(uint64_t part, uint64_t whole);
double smi_tlb_hit_rate(uint64_t l1_hits, uint64_t l1_misses, uint64_t l2_hits);
double smi_busy_pct(const struct smi_client *now, const struct smi_client *then,
		    int engine, double seconds);

#endif /* VGPU_SMI_H */
