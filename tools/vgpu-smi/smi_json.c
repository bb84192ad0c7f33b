// SPDX-License-Identifier: MIT
/*
 * vgpu-smi --json: one JSON object per sample, on one line.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <inttypes.h>
#include <string.h>

#include "smi.h"

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_key(FILE *f, bool *first, const char *key)
{
	if (!*first)
		fputs(", ", f);
	*first = false;
	json_str(f, key);
	fputs(": ", f);
}

/* Open member @key as an object; *in tracks its own members. */
static void json_object(FILE *f, bool *first, const char *key, bool *in)
{
	json_key(f, first, key);
	fputc('{', f);
	*in = true;
}

static void json_u64(FILE *f, bool *first, const char *key, uint64_t v)
{
	json_key(f, first, key);
	fprintf(f, "%" PRIu64, v);
}

/* A ratio, or null when there was nothing to divide. */
static void json_ratio(FILE *f, bool *first, const char *key, double v)
{
	json_key(f, first, key);
	if (v < 0)
		fputs("null", f);
	else
		fprintf(f, "%.4f", v);
}

static void json_words(FILE *f, bool *first, const char *key,
		       char words[][32], int n)
{
	int i;

	json_key(f, first, key);
	fputc('[', f);
	for (i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		json_str(f, words[i]);
	}
	fputc(']', f);
}

static void json_region(FILE *f, bool *first, const char *key,
			const struct smi_region *r)
{
	bool in;

	json_object(f, first, key, &in);
	json_u64(f, &in, "total", r->total);
	json_u64(f, &in, "shared", r->shared);
	json_u64(f, &in, "resident", r->resident);
	json_u64(f, &in, "purgeable", r->purgeable);
	json_u64(f, &in, "active", r->active);
	fputc('}', f);
}

/* The per-client counters, JSON name and fdinfo key. */
static const struct {
	const char *json, *fdinfo;
} client_counters[] = {
	{ "faults", "drm-vgpu-faults" },
	{ "migrated_to_vram", "drm-vgpu-migrated-to-vram" },
	{ "migrated_to_system", "drm-vgpu-migrated-to-system" },
	{ "evictions", "drm-vgpu-evictions" },
	{ "thrash_events", "drm-vgpu-thrash-events" },
	{ "fault_batches", "drm-vgpu-fault-batches" },
	{ "faults_resolved", "drm-vgpu-faults-resolved" },
	{ "prefetch_used_bytes", "drm-vgpu-prefetch-used-bytes" },
	{ "prefetch_wasted_bytes", "drm-vgpu-prefetch-wasted-bytes" },
};

static void json_client(FILE *f, const struct smi_client *c,
			const struct smi_client *prev, double dt)
{
	uint64_t l1h = smi_key_u64(c, "drm-vgpu-tlb-l1-hits");
	uint64_t l1m = smi_key_u64(c, "drm-vgpu-tlb-l1-misses");
	uint64_t l2h = smi_key_u64(c, "drm-vgpu-tlb-l2-hits");
	bool first = true, in;
	size_t j;
	int i;

	fputc('{', f);
	json_u64(f, &first, "pid", c->pid);
	json_u64(f, &first, "processes", c->nr_pids);
	json_key(f, &first, "comm");
	json_str(f, c->comm);
	json_u64(f, &first, "client_id", c->client_id);
	json_object(f, &first, "memory", &in);
	json_region(f, &in, "vram", &c->vram);
	json_region(f, &in, "system", &c->system);
	fputc('}', f);
	for (j = 0; j < sizeof(client_counters) / sizeof(client_counters[0]); j++)
		json_u64(f, &first, client_counters[j].json,
			 smi_key_u64(c, client_counters[j].fdinfo));
	json_ratio(f, &first, "tlb_hit_rate", smi_tlb_hit_rate(l1h, l1m, l2h));
	json_key(f, &first, "engines");
	fputc('{', f);
	for (i = 0; i < c->nr_engines; i++) {
		char name[16];

		in = true;
		snprintf(name, sizeof(name), "q%d", i);
		if (i)
			fputs(", ", f);
		json_str(f, name);
		fputs(": {", f);
		json_u64(f, &in, "busy_ns", c->engine_ns[i]);
		json_u64(f, &in, "modeled_ns", c->modeled_ns[i]);
		if (prev)
			json_ratio(f, &in, "busy_pct", smi_busy_pct(c, prev, i, dt));
		fputc('}', f);
	}
	fputc('}', f);
	json_object(f, &first, "fdinfo", &in);
	for (i = 0; i < c->nr_keys; i++) {
		const struct smi_key *k = &c->keys[i];

		json_key(f, &in, k->name);
		if (k->numeric)
			fprintf(f, "%" PRIu64, k->value);
		else
			json_str(f, k->str);
	}
	fputc('}', f);
	fputc('}', f);
}

static void json_device(FILE *f, const struct smi_device *d,
			const struct smi_device *prev, double dt)
{
	uint64_t l1h = smi_counter(d, "tlb_l1_hits");
	uint64_t l1m = smi_counter(d, "tlb_l1_misses");
	uint64_t l2h = smi_counter(d, "tlb_l2_hits");
	uint64_t l2m = smi_counter(d, "tlb_l2_misses");
	bool first = true, in;
	int i;

	fputc('{', f);
	json_u64(f, &first, "index", d->index);
	json_key(f, &first, "pci");
	json_str(f, d->pci);
	json_key(f, &first, "render_node");
	json_str(f, d->node);

	json_object(f, &first, "memory", &in);
	json_u64(f, &in, "vram_total", d->vram_total);
	json_u64(f, &in, "vram_used", d->vram_used);
	json_u64(f, &in, "vram_kernel_used", d->vram_kernel_used);
	json_u64(f, &in, "visible_vram_total", d->visible_total);
	json_u64(f, &in, "visible_vram_used", d->visible_used);
	json_u64(f, &in, "gtt_total", d->gtt_total);
	json_u64(f, &in, "gtt_used", d->gtt_used);
	json_u64(f, &in, "bo_count", d->bo_count);
	fputc('}', f);
	json_u64(f, &first, "lanes", d->lanes);
	json_u64(f, &first, "deterministic", d->deterministic);

	json_object(f, &first, "policy", &in);
	json_key(f, &in, "eviction");
	json_str(f, d->evict_policy);
	json_words(f, &in, "eviction_available", (char (*)[32])d->evict_avail,
		   d->nr_evict_avail);
	json_key(f, &in, "placement");
	json_str(f, d->place_policy);
	json_words(f, &in, "placement_available", (char (*)[32])d->place_avail,
		   d->nr_place_avail);
	fputc('}', f);

	json_object(f, &first, "tlb", &in);
	json_ratio(f, &in, "l1_hit_rate", smi_ratio(l1h, l1h + l1m));
	json_ratio(f, &in, "l2_hit_rate", smi_ratio(l2h, l2h + l2m));
	json_ratio(f, &in, "hit_rate", smi_tlb_hit_rate(l1h, l1m, l2h));
	fputc('}', f);

	json_object(f, &first, "counters", &in);
	for (i = 0; i < d->nr_counters; i++)
		json_u64(f, &in, d->counters[i].name, d->counters[i].value);
	fputc('}', f);

	if (d->has_debugfs) {
		json_key(f, &first, "recent_faults");
		fputc('[', f);
		for (i = 0; i < d->nr_faults; i++) {
			if (i)
				fputs(", ", f);
			json_str(f, d->faults[i].line);
		}
		fputc(']', f);
	}

	json_key(f, &first, "processes");
	fputc('[', f);
	for (i = 0; i < d->nr_clients; i++) {
		const struct smi_client *c = &d->clients[i];

		if (i)
			fputs(", ", f);
		json_client(f, c, prev ? smi_client_find(prev, c->client_id) : NULL,
			    dt);
	}
	fputc(']', f);
	fputc('}', f);
}

/**
 * smi_print_json() - one sample as one line of JSON
 * @f: output
 * @s: the sample
 * @prev: the sample before (for rates), or NULL
 */
void smi_print_json(FILE *f, const struct smi_snapshot *s,
		    const struct smi_snapshot *prev)
{
	double dt = prev ? s->time - prev->time : 0;
	bool first = true;
	int i;

	fputc('{', f);
	json_u64(f, &first, "version", 1);
	json_u64(f, &first, "timestamp", (uint64_t)s->wall);
	json_key(f, &first, "devices");
	fputc('[', f);
	for (i = 0; i < s->nr_devices; i++) {
		const struct smi_device *pd = NULL;
		int j;

		for (j = 0; prev && j < prev->nr_devices; j++)
			if (!strcmp(prev->devices[j].pci, s->devices[i].pci))
				pd = &prev->devices[j];
		if (i)
			fputs(", ", f);
		json_device(f, &s->devices[i], pd, dt);
	}
	fputs("]}\n", f);
	fflush(f);
}
