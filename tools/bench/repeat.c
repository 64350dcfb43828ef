/* repeat.c - the benchmark's repeated snapshots: what a long-running user
 * of the library (a server, a watcher) pays for the first snapshot of a
 * process and for each one after it, with the caches warm (BPF loaded,
 * binary parsed, symbols resolved, bucket stacks kept). Each snapshot is
 * a pprof profile built and written (to /dev/null), through the public
 * API only.
 *
 *   repeat PID N [BACKEND]
 *
 * (BACKEND: auto, the default, iter, perf or procmem.)
 * Prints "first X ms (Y bytes received), repeated Z ms (W bytes received),
 * CPU first A ms, repeated B ms", the repeated figures being the median of
 * the N - 1 later snapshots (CPU: the collector's, every thread's, which
 * a busy machine inflates less than wall time). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "goheap.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One snapshot, built and written: its wall and CPU time, and the bytes
 * read. */
static int snapshot(struct gh_collector *c, const struct gh_request *rq,
		    FILE *sink, double *ms, double *cpu,
		    unsigned long long *bytes)
{
	struct gh_results *r;
	struct gh_err err;
	double t0 = now_ms(), c0 = cpu_ms();
	int st;

	if (gh_collector__collect(c, rq, &r, &err)) {
		fprintf(stderr, "repeat: %s\n", err.msg);
		return -1;
	}
	st = gh_results__status(r);
	if (st == GH_OK &&
	    gh_profile__write(r->v[0].profile, sink, &rq->render[0], &err))
		st = err.code;
	*ms = now_ms() - t0;
	*cpu = cpu_ms() - c0;
	*bytes = r->v[0].profile->read_bytes;
	if (st)
		fprintf(stderr, "repeat: %s\n", r->v[0].err.msg);
	gh_results__free(r);
	return st ? -1 : 0;
}

int main(int argc, char **argv)
{
	bool args = argc == 3 || argc == 4;
	int pid = args ? atoi(argv[1]) : 0, n = args ? atoi(argv[2]) : 0;
	int backend = gh_backend__parse(argc == 4 ? argv[3] : "auto");
	GH_OPTS(gh_write_opts, pprof, .format = GH_FORMAT_PPROF,
		.index = GH_INUSE_SPACE);
	GH_OPTS(gh_collector_opts, co, .keep_stacks = true,
		.backend = (enum gh_backend)backend);
	GH_OPTS(gh_select, sel, .pids = &pid, .npids = 1);
	GH_OPTS(gh_request, rq, .select = &sel, .render = &pprof, .nrender = 1);
	unsigned long long bytes[64];
	struct gh_collector *c;
	struct gh_err err;
	double ms[64], cpu[64];
	FILE *sink = fopen("/dev/null", "w");

	if (pid <= 0 || n < 2 || n > 64 || backend < 0 || !sink) {
		fprintf(stderr,
			"usage: repeat PID N [BACKEND] (2 <= N <= 64)\n");
		return 2;
	}
	if (gh_collector__new(&co, &c, &err)) {
		fprintf(stderr, "repeat: %s\n", err.msg);
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (snapshot(c, &rq, sink, &ms[i], &cpu[i], &bytes[i]))
			return 1;
	printf("first %.1f ms (%llu bytes received), ", ms[0], bytes[0]);
	qsort(ms + 1, (size_t)n - 1, sizeof(ms[0]), by_value);
	printf("repeated %.1f ms (%llu bytes received), ", ms[n / 2],
	       bytes[n - 1]);
	printf("CPU first %.1f ms, ", cpu[0]);
	qsort(cpu + 1, (size_t)n - 1, sizeof(cpu[0]), by_value);
	printf("repeated %.1f ms\n", cpu[n / 2]);
	gh_collector__free(c);
	fclose(sink);
	return 0;
}
