// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: messages, the per-thread trace of recent calls, and findings.
 *
 * Every message is one write(2), so that the lines of several processes
 * do not mix.  A finding names the run's seed, the process, the thread
 * and the number of the call it followed, and prints the thread's last
 * calls; with one process and one thread, the same seed and --calls
 * replays it.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

uint64_t fz_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= w;
	}
}

void fz_msg(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "vgpu-fuzz: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf) - 1)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	write_all(1, buf, n);
}

void fz_trace(struct fz_thread *t, const char *fmt, ...)
{
	char *line = t->trace[t->trace_pos++ % FZ_TRACE];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(t->trace[0]), "#%llu ",
		     (unsigned long long)t->ncalls);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(t->trace[0]) - n, fmt, ap);
	va_end(ap);
	if (fz_opts->trace)
		fz_msg("[%d.%d] %s", t->proc, t->id, line);
}

void fz_finding(struct fz_thread *t, const char *fmt, ...)
{
	char what[192], buf[8192];
	unsigned int i, n;
	va_list ap;
	int len;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);

	pthread_mutex_lock(&fz_sh->lock);
	n = fz_sh->findings++;
	if (n < FZ_KEPT_FINDINGS)
		snprintf(fz_sh->finding[n], sizeof(fz_sh->finding[n]),
			 "seed 0x%llx process %d thread %d call %llu: %s",
			 (unsigned long long)fz_opts->seed, t->proc, t->id,
			 (unsigned long long)t->ncalls, what);
	len = snprintf(buf, sizeof(buf),
		       "vgpu-fuzz: FINDING (seed 0x%llx, process %d, thread %d, after call %llu): %s\n",
		       (unsigned long long)fz_opts->seed, t->proc, t->id,
		       (unsigned long long)t->ncalls, what);
	for (i = 0; i < FZ_TRACE && len < (int)sizeof(buf) - 200; i++) {
		const char *line = t->trace[(t->trace_pos + i) % FZ_TRACE];

		if (line[0])
			len += snprintf(buf + len, sizeof(buf) - len,
					"vgpu-fuzz:   | %s\n", line);
	}
	if (fz_opts->procs == 1 && fz_opts->threads == 1 &&
	    len < (int)sizeof(buf) - 200)
		len += snprintf(buf + len, sizeof(buf) - len,
				"vgpu-fuzz:   replay: vgpu-fuzz --seed 0x%llx --procs 1 --threads 1 --calls %llu --trace\n",
				(unsigned long long)fz_opts->seed,
				(unsigned long long)t->ncalls);
	write_all(1, buf, len);
	pthread_mutex_unlock(&fz_sh->lock);
}
