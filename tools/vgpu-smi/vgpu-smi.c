// SPDX-License-Identifier: MIT
/*
 * vgpu-smi - show vgpu devices and what their memory is doing.
 *
 * Usage: vgpu-smi [-j|--json] [-l|--loop SECONDS] [-n|--count N]
 *                 [-d|--device DEV] [-P|--no-processes] [-f|--faults N]
 *
 * Per device: VRAM, CPU-visible VRAM and system (GTT) memory in use, the
 * eviction and placement policies, TLB hit rates, faults, migrations and
 * evictions, modeled GPU time.  Per process (every open file of a vgpu
 * render node): memory by placement, faults, bytes migrated each way,
 * evictions, TLB hit rate, modeled GPU time (split by exec queue when it
 * used several) and, when refreshing, queue utilisation (wall time).
 *
 * vgpu-smi reads only what any tool may read: sysfs (the PCI device's
 * attributes), /proc/<pid>/fdinfo (drm-usage-stats keys) and, if mounted
 * and readable, debugfs (the fault log).  It never opens a render node.
 *
 * Exit status: 0 success, 1 no vgpu device (or not the one asked for),
 * 2 bad usage.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "smi.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

/** smi_ratio() - @part / @whole, or -1 when @whole is 0 */
double smi_ratio(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / whole : -1;
}

/**
 * smi_tlb_hit_rate() - share of translations served by a TLB
 * @l1_hits: L1 hits
 * @l1_misses: L1 misses (each one looked up in L2)
 * @l2_hits: L2 hits
 *
 * Every access looks in L1 first; a miss there looks in L2; a miss in
 * both walks the page tables.  Return: (L1 + L2 hits) / accesses, or -1.
 */
double smi_tlb_hit_rate(uint64_t l1_hits, uint64_t l1_misses, uint64_t l2_hits)
{
	return smi_ratio(l1_hits + l2_hits, l1_hits + l1_misses);
}

/** smi_busy_pct() - percent of @seconds queue @engine spent on a client */
double smi_busy_pct(const struct smi_client *now, const struct smi_client *then,
		    int engine, double seconds)
{
	uint64_t a, b;

	if (!then || seconds <= 0 || engine >= now->nr_engines ||
	    engine >= then->nr_engines)
		return -1;
	a = now->engine_ns[engine];
	b = then->engine_ns[engine];
	/* drm-usage-stats: a value may go backwards; keep the larger. */
	return a > b ? (a - b) / (seconds * 1e9) * 100 : 0;
}

static const char *human(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= (1ull << 30))
		snprintf(buf, size, "%.1f GiB", bytes / (double)(1ull << 30));
	else if (bytes >= (1ull << 20))
		snprintf(buf, size, "%.1f MiB", bytes / (double)(1ull << 20));
	else if (bytes >= (1ull << 10))
		snprintf(buf, size, "%.1f KiB", bytes / 1024.0);
	else
		snprintf(buf, size, "%" PRIu64 " B", bytes);
	return buf;
}

/* Modeled ns (the device's cost model) in the largest unit that fits. */
static const char *human_ns(uint64_t ns, char *buf, size_t size)
{
	if (ns >= 1000000000ull)
		snprintf(buf, size, "%.2f s", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, size, "%.1f us", ns / 1e3);
	else
		snprintf(buf, size, "%" PRIu64 " ns", ns);
	return buf;
}

/* A client's modeled time per exec queue, when it used more than one. */
static void print_queue_time(const struct smi_client *cl)
{
	const char *sep = " (";
	char buf[32];
	int q, used = 0;

	for (q = 0; q < cl->nr_engines; q++)
		used += cl->modeled_ns[q] > 0;
	if (used < 2)
		return;
	for (q = 0; q < cl->nr_engines; q++) {
		if (!cl->modeled_ns[q])
			continue;
		printf("%sq%d %s", sep, q,
		       human_ns(cl->modeled_ns[q], buf, sizeof(buf)));
		sep = ", ";
	}
	printf(")");
}

static const char *pct(double r, char *buf, size_t size)
{
	if (r < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f%%", r * 100);
	return buf;
}

static void print_words(const char *what, const char *cur, char words[][32], int n)
{
	int i;

	printf("%s %s", what, cur[0] ? cur : "?");
	if (n) {
		printf(" (");
		for (i = 0; i < n; i++)
			printf("%s%s", i ? " " : "", words[i]);
		printf(")");
	}
}

static void print_device(const struct smi_device *d, const struct smi_device *prev,
			 double dt)
{
	uint64_t l1h = smi_counter(d, "tlb_l1_hits"), l1m = smi_counter(d, "tlb_l1_misses");
	uint64_t l2h = smi_counter(d, "tlb_l2_hits"), l2m = smi_counter(d, "tlb_l2_misses");
	char a[32], b[32], c[32], r1[16], r2[16], r3[16];
	int i, q;

	printf("GPU %d  %s  %s  vgpu\n", d->index, d->pci, d->node);
	printf("  VRAM         %10s / %-10s (%s)   kernel %s\n",
	       human(d->vram_used, a, sizeof(a)), human(d->vram_total, b, sizeof(b)),
	       pct(smi_ratio(d->vram_used, d->vram_total), r1, sizeof(r1)),
	       human(d->vram_kernel_used, c, sizeof(c)));
	printf("  CPU-visible  %10s / %-10s\n", human(d->visible_used, a, sizeof(a)),
	       human(d->visible_total, b, sizeof(b)));
	printf("  System (GTT) %10s              BOs %" PRIu64 "\n",
	       human(d->gtt_used, a, sizeof(a)), d->bo_count);
	printf("  Policy       ");
	print_words("eviction", d->evict_policy, (char (*)[32])d->evict_avail,
		    d->nr_evict_avail);
	print_words(",  placement", d->place_policy, (char (*)[32])d->place_avail,
		    d->nr_place_avail);
	printf("\n");
	printf("  TLB          hit rate %s (L1 %s, L2 %s)   walks %" PRIu64 ", PT reads %" PRIu64 "\n",
	       pct(smi_tlb_hit_rate(l1h, l1m, l2h), r1, sizeof(r1)),
	       pct(smi_ratio(l1h, l1h + l1m), r2, sizeof(r2)),
	       pct(smi_ratio(l2h, l2h + l2m), r3, sizeof(r3)),
	       smi_counter(d, "pt_walks"), smi_counter(d, "pt_reads"));
	printf("  Faults       %" PRIu64 " raised by the device (%" PRIu64 " lanes%s), %" PRIu64
	       " handled, %" PRIu64 " cancelled, %" PRIu64 " lost (buffer overflow)\n",
	       smi_counter(d, "gpu_faults"), d->lanes,
	       d->deterministic ? ", deterministic" : "", smi_counter(d, "faults_handled"),
	       smi_counter(d, "faults_cancelled"), smi_counter(d, "fault_overflows"));
	printf("  Paging       %" PRIu64 " batches, %" PRIu64 " duplicates, %" PRIu64
	       " resolved, %" PRIu64 " mapped remotely, %" PRIu64 " thrashing\n",
	       smi_counter(d, "fault_batches"), smi_counter(d, "fault_duplicates"),
	       smi_counter(d, "faults_resolved"), smi_counter(d, "remote_maps"),
	       smi_counter(d, "thrash_events"));
	printf("  Prefetch     %s moved ahead, %s used, %s wasted\n",
	       human(smi_counter(d, "prefetch_bytes"), a, sizeof(a)),
	       human(smi_counter(d, "prefetch_used_bytes"), b, sizeof(b)),
	       human(smi_counter(d, "prefetch_wasted_bytes"), c, sizeof(c)));
	printf("  Migration    to VRAM %s, to system %s, evictions %" PRIu64 "\n",
	       human(smi_counter(d, "bytes_to_vram"), a, sizeof(a)),
	       human(smi_counter(d, "bytes_to_system"), b, sizeof(b)),
	       smi_counter(d, "evictions"));
	printf("  Traffic      VRAM read %s write %s, system read %s",
	       human(smi_counter(d, "vram_read_bytes"), a, sizeof(a)),
	       human(smi_counter(d, "vram_write_bytes"), b, sizeof(b)),
	       human(smi_counter(d, "sys_read_bytes"), c, sizeof(c)));
	printf(" write %s\n", human(smi_counter(d, "sys_write_bytes"), a, sizeof(a)));
	printf("  GPU time     %s modeled, of it %s stalled on faults\n",
	       human_ns(smi_counter(d, "modeled_ns"), a, sizeof(a)),
	       human_ns(smi_counter(d, "stall_ns"), b, sizeof(b)));
	if (smi_counter(d, "strict_stale") || smi_counter(d, "strict_bad_context"))
		printf("  STRICT       stale TLB hits %" PRIu64 ", work on bad contexts %" PRIu64 "\n",
		       smi_counter(d, "strict_stale"), smi_counter(d, "strict_bad_context"));

	if (d->has_debugfs && d->nr_faults) {
		printf("  Recent faults (seqno time_ns client queue ctx va access reason level resolution):\n");
		for (i = 0; i < d->nr_faults; i++)
			printf("    %s\n", d->faults[i].line);
	}

	if (!d->nr_clients) {
		printf("  No processes use this device.\n");
		return;
	}
	printf("\n  %-7s %-6s %-15s %10s %10s %7s %10s %10s %6s %7s %10s %s\n",
	       "PID", "CLIENT", "COMMAND", "VRAM", "SYSTEM", "FAULTS",
	       "->VRAM", "->SYSTEM", "EVICT", "TLB-HIT", "GPU-TIME",
	       prev ? "BUSY" : "");
	for (i = 0; i < d->nr_clients; i++) {
		const struct smi_client *cl = &d->clients[i];
		const struct smi_client *pc = prev ? smi_client_find(prev, cl->client_id) : NULL;
		char pid[16], comm[32];

		snprintf(pid, sizeof(pid), cl->nr_pids > 1 ? "%d+" : "%d", cl->pid);
		snprintf(comm, sizeof(comm), "%.15s", cl->comm);
		printf("  %-7s %-6" PRIu64 " %-15s %10s %10s %7" PRIu64 " %10s %10s %6" PRIu64 " %7s",
		       pid, cl->client_id, comm,
		       human(cl->vram.total, a, sizeof(a)),
		       human(cl->system.total, b, sizeof(b)),
		       smi_key_u64(cl, "drm-vgpu-faults"),
		       human(smi_key_u64(cl, "drm-vgpu-migrated-to-vram"), c, sizeof(c)),
		       human(smi_key_u64(cl, "drm-vgpu-migrated-to-system"), r3, sizeof(r3)),
		       smi_key_u64(cl, "drm-vgpu-evictions"),
		       pct(smi_tlb_hit_rate(smi_key_u64(cl, "drm-vgpu-tlb-l1-hits"),
					    smi_key_u64(cl, "drm-vgpu-tlb-l1-misses"),
					    smi_key_u64(cl, "drm-vgpu-tlb-l2-hits")),
			   r1, sizeof(r1)));
		printf(" %10s", human_ns(smi_key_u64(cl, "drm-vgpu-modeled-time"),
					 r2, sizeof(r2)));
		print_queue_time(cl);
		for (q = 0; pc && q < cl->nr_engines; q++) {
			double p = smi_busy_pct(cl, pc, q, dt);

			if (p > 0)
				printf(" q%d:%.0f%%", q, p);
		}
		printf("\n");
	}
}

static void print_text(const struct smi_snapshot *s, const struct smi_snapshot *prev)
{
	char when[64];
	time_t t = s->wall;
	struct tm tm;
	int i, j;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
	printf("vgpu-smi  %s  %d device%s\n", when, s->nr_devices,
	       s->nr_devices == 1 ? "" : "s");
	for (i = 0; i < s->nr_devices; i++) {
		const struct smi_device *pd = NULL;

		for (j = 0; prev && j < prev->nr_devices; j++)
			if (!strcmp(prev->devices[j].pci, s->devices[i].pci))
				pd = &prev->devices[j];
		printf("\n");
		print_device(&s->devices[i], pd, prev ? s->time - prev->time : 0);
	}
	fflush(stdout);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vgpu-smi [options]\n"
		"  -j, --json            one JSON object per sample (one line each)\n"
		"  -l, --loop SECONDS    refresh every SECONDS (until interrupted)\n"
		"  -n, --count N         with -l: stop after N samples\n"
		"  -d, --device DEV      only this device: index, PCI address or node\n"
		"  -P, --no-processes    do not scan /proc for processes\n"
		"  -f, --faults N        show the last N faults from debugfs (default 5)\n"
		"  -h, --help            this text\n"
		"Exit status: 0 ok, 1 no vgpu device, 2 bad usage.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "loop", required_argument, NULL, 'l' },
		{ "count", required_argument, NULL, 'n' },
		{ "device", required_argument, NULL, 'd' },
		{ "no-processes", no_argument, NULL, 'P' },
		{ "faults", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct smi_snapshot *cur, *prev = NULL;
	const char *only = NULL;
	bool json = false, procs = true, tty = isatty(STDOUT_FILENO);
	double loop = 0;
	long count = 0, done = 0;
	int faults = 5, c;
	char *end;

	while ((c = getopt_long(argc, argv, "jl:n:d:Pf:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'l':
			loop = strtod(optarg, &end);
			if (*end || !(loop > 0) || loop > 86400) {
				fprintf(stderr, "vgpu-smi: -l wants a number of seconds > 0, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			count = strtol(optarg, &end, 10);
			if (*end || count <= 0) {
				fprintf(stderr, "vgpu-smi: -n wants a count > 0, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'd':
			only = optarg;
			break;
		case 'P':
			procs = false;
			break;
		case 'f':
			faults = strtol(optarg, &end, 10);
			if (*end || faults < 0 || faults > SMI_MAX_FAULTS) {
				fprintf(stderr, "vgpu-smi: -f wants 0..%d, not '%s'\n",
					SMI_MAX_FAULTS, optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vgpu-smi: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (count && !loop)
		loop = 1;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	for (;;) {
		cur = malloc(sizeof(*cur));
		if (!cur) {
			fprintf(stderr, "vgpu-smi: out of memory\n");
			return 1;
		}
		if (!smi_snapshot_read(cur, only, procs, faults)) {
			if (only)
				fprintf(stderr, "vgpu-smi: no vgpu device '%s'\n", only);
			else
				fprintf(stderr, "vgpu-smi: no vgpu device found (is vgpu.ko loaded?)\n");
			smi_snapshot_free(cur);
			free(cur);
			if (prev) {
				smi_snapshot_free(prev);
				free(prev);
			}
			return 1;
		}
		if (json) {
			smi_print_json(stdout, cur, prev);
		} else {
			if (loop && tty)
				printf("\033[H\033[2J");
			else if (done)
				printf("\n");
			print_text(cur, prev);
		}
		if (prev) {
			smi_snapshot_free(prev);
			free(prev);
		}
		prev = cur;
		done++;
		if (!loop || stop || (count && done >= count))
			break;
		{
			struct timespec ts = {
				.tv_sec = (time_t)loop,
				.tv_nsec = (long)((loop - (time_t)loop) * 1e9),
			};

			while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
				;
		}
		if (stop)
			break;
	}
	smi_snapshot_free(prev);
	free(prev);
	return 0;
}
