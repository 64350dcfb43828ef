/* metrics.c - /metrics, the Prometheus text exposition (format 0.0.4):
 * per Go runtime of each process of the last sweep, its profile's totals
 * as the process's own profile scales them (gh_profile.total), its
 * buckets, MemProfileRate and snapshot status; and what the collector
 * has done since the server started; and each process's runtime
 * counters under the Go collector's names. Names follow Prometheus's
 * conventions: base units in the name, counters ending in _total. */
#include <stddef.h>
#include <string.h>

#include "cmd/serve/escape.h"
#include "cmd/serve/pages.h"

/* HELP and TYPE, once per family, before its first sample. */
static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void label(FILE *f, const char *sep, const char *name, const char *v)
{
	fprintf(f, "%s%s=\"", sep, name);
	esc_label(f, v);
	fputc('"', f);
}

/* The labels of a row: which process, which runtime, where it runs. */
static void row_labels(FILE *f, const struct snap_row *r)
{
	fprintf(f, "{pid=\"%d\",runtime=\"%zu\"", r->pid, r->runtime);
	label(f, ",", "comm", r->comm);
	label(f, ",", "exe", r->exe);
	label(f, ",", "go_version", r->go_version);
	label(f, ",", "container_id", r->container_id);
	label(f, ",", "pod_uid", r->pod_uid);
	label(f, ",", "cgroup", r->cgroup);
}

enum per_row { ROW_TOTAL, ROW_BUCKETS, ROW_RATE };

static const struct {
	const char *name, *type, *help;
	enum per_row what;
	enum gh_value v;
} row_families[] = {
	{"goheap_process_inuse_bytes", "gauge",
	 "Bytes in use in the Go heap, as the process's own heap profile "
	 "scales its samples (inuse_space).",
	 ROW_TOTAL, GH_INUSE_SPACE},
	{"goheap_process_inuse_objects", "gauge",
	 "Objects in use in the Go heap, as the process's own heap profile "
	 "scales its samples (inuse_objects).",
	 ROW_TOTAL, GH_INUSE_OBJECTS},
	{"goheap_process_alloc_bytes_total", "counter",
	 "Bytes allocated since the process started, as its own heap profile "
	 "scales its samples (alloc_space).",
	 ROW_TOTAL, GH_ALLOC_SPACE},
	{"goheap_process_alloc_objects_total", "counter",
	 "Objects allocated since the process started, as its own heap "
	 "profile scales its samples (alloc_objects).",
	 ROW_TOTAL, GH_ALLOC_OBJECTS},
	{"goheap_process_heap_profile_buckets", "gauge",
	 "Heap-profile buckets (distinct allocation stacks) the runtime "
	 "keeps.",
	 ROW_BUCKETS, GH_NVALUES},
	{"goheap_process_mem_profile_rate_bytes", "gauge",
	 "runtime.MemProfileRate: the mean bytes allocated between two "
	 "samples.",
	 ROW_RATE, GH_NVALUES},
};

/* The runtime's own counters, under the names Prometheus's Go collector
 * (client_golang's collectors.NewGoCollector) gives the same values:
 * runtime.NumGoroutine as go_goroutines, runtime/metrics' others named
 * from their keys (RuntimeMetricsToProm). */
static const struct {
	const char *name, *type, *help;
	unsigned has;
	size_t off;
	bool is_signed;
} rt_families[] = {
#define RT(n, t, h, flag, m, sg)                                               \
	{                                                                      \
		n, t, h, flag, offsetof(struct gh_runtime_stats, m), sg        \
	}
	RT("go_goroutines", "gauge",
	   "Number of goroutines that currently exist (runtime.NumGoroutine).",
	   GH_RT_GOROUTINES, goroutines, false),
	RT("go_sched_goroutines_goroutines", "gauge",
	   "Count of live goroutines (/sched/goroutines:goroutines).",
	   GH_RT_GOROUTINES, sched_goroutines, false),
	RT("go_gc_cycles_total_gc_cycles_total", "counter",
	   "Count of all completed GC cycles (/gc/cycles/total:gc-cycles).",
	   GH_RT_GC_CYCLES, gc_cycles, false),
	RT("go_gc_heap_live_bytes", "gauge",
	   "Heap memory occupied by live objects that were marked by the "
	   "previous GC (/gc/heap/live:bytes).",
	   GH_RT_HEAP_LIVE, heap_live, false),
	RT("go_gc_heap_goal_bytes", "gauge",
	   "Heap size target for the end of the GC cycle "
	   "(/gc/heap/goal:bytes).",
	   GH_RT_HEAP_GOAL, heap_goal, false),
	RT("go_sched_gomaxprocs_threads", "gauge",
	   "The current runtime.GOMAXPROCS setting "
	   "(/sched/gomaxprocs:threads).",
	   GH_RT_GOMAXPROCS, gomaxprocs, false),
	RT("go_gc_gogc_percent", "gauge",
	   "Heap size target percentage configured by the user, otherwise "
	   "100 (/gc/gogc:percent; -1 when off).",
	   GH_RT_GOGC, gogc, true),
	RT("go_gc_gomemlimit_bytes", "gauge",
	   "Go runtime memory limit configured by the user, otherwise "
	   "math.MaxInt64 (/gc/gomemlimit:bytes).",
	   GH_RT_MEMORY_LIMIT, memory_limit, true),
	RT("go_sched_goroutines_running_goroutines", "gauge",
	   "Approximate count of goroutines executing "
	   "(/sched/goroutines/running:goroutines).",
	   GH_RT_GSTATES, goroutines_running, false),
	RT("go_sched_goroutines_runnable_goroutines", "gauge",
	   "Approximate count of goroutines ready to execute, but not "
	   "executing (/sched/goroutines/runnable:goroutines).",
	   GH_RT_GSTATES, goroutines_runnable, false),
	RT("go_sched_goroutines_waiting_goroutines", "gauge",
	   "Approximate count of goroutines waiting on a resource "
	   "(/sched/goroutines/waiting:goroutines).",
	   GH_RT_GSTATES, goroutines_waiting, false),
	RT("go_sched_goroutines_not_in_go_goroutines", "gauge",
	   "Approximate count of goroutines running or blocked in a system "
	   "call or cgo call (/sched/goroutines/not-in-go:goroutines).",
	   GH_RT_GSTATES, goroutines_not_in_go, false),
	RT("go_sched_goroutines_created_goroutines_total", "counter",
	   "Count of goroutines created since program start "
	   "(/sched/goroutines-created:goroutines).",
	   GH_RT_GCREATED, goroutines_created, false),
#undef RT
};

static void runtime_metrics(FILE *f, const struct snap *s)
{
	for (size_t k = 0; k < sizeof(rt_families) / sizeof(rt_families[0]);
	     k++) {
		bool shown = false;

		for (size_t i = 0; i < s->n; i++) {
			const struct snap_row *r = &s->v[i];
			const char *p =
				(const char *)&r->rt + rt_families[k].off;
			uint64_t u;

			if (!(r->rt.has & rt_families[k].has))
				continue;
			if (!shown)
				family(f, rt_families[k].name,
				       rt_families[k].type,
				       rt_families[k].help);
			shown = true;
			memcpy(&u, p, sizeof(u));
			fputs(rt_families[k].name, f);
			row_labels(f, r);
			if (rt_families[k].is_signed)
				fprintf(f, "} %lld\n", (long long)(int64_t)u);
			else
				fprintf(f, "} %llu\n", (unsigned long long)u);
		}
	}
}

static void process_metrics(FILE *f, const struct snap *s)
{
	size_t i, k, st;
	bool any = false;

	for (k = 0; k < sizeof(row_families) / sizeof(row_families[0]); k++) {
		bool shown = false;

		for (i = 0; i < s->n; i++) {
			const struct snap_row *r = &s->v[i];
			long long v = row_families[k].what == ROW_TOTAL
					      ? r->total[row_families[k].v]
				      : row_families[k].what == ROW_BUCKETS
					      ? (long long)r->nbuckets
					      : r->period;

			if (!r->data)
				continue;
			if (!shown)
				family(f, row_families[k].name,
				       row_families[k].type,
				       row_families[k].help);
			shown = true;
			fputs(row_families[k].name, f);
			row_labels(f, r);
			fprintf(f, "} %lld\n", v);
		}
	}
	for (i = 0; i < s->n; i++) {
		if (!any)
			family(f, "goheap_process_snapshot_status", "gauge",
			       "The outcome of the last sweep's snapshot of "
			       "the runtime: 1 for its status, 0 for the "
			       "others.");
		any = true;
		for (st = 0; st < STATS_NSTATUS; st++) {
			fputs("goheap_process_snapshot_status", f);
			row_labels(f, &s->v[i]);
			fprintf(f, ",status=\"%s\"} %d\n", snap_status_name(st),
				(size_t)s->v[i].status == st);
		}
	}
}

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
	family(f, name, "counter", help);
	fprintf(f, "%s %llu\n", name, (unsigned long long)v);
}

static void collector_metrics(FILE *f, const struct stats_view *st)
{
	size_t i;
	bool any = false;

	family(f, "goheap_snapshot_duration_seconds", "histogram",
	       "Wall time of each profile snapshot the server took (sweeps "
	       "and profile requests).");
	for (i = 0; i < STATS_NBOUNDS; i++)
		fprintf(f,
			"goheap_snapshot_duration_seconds_bucket{le=\"%g\"} "
			"%llu\n",
			stats_bounds[i], (unsigned long long)st->le[i]);
	fprintf(f,
		"goheap_snapshot_duration_seconds_bucket{le=\"+Inf\"} %llu\n"
		"goheap_snapshot_duration_seconds_sum %.9g\n"
		"goheap_snapshot_duration_seconds_count %llu\n",
		(unsigned long long)st->count, st->sum,
		(unsigned long long)st->count);
	family(f, "goheap_snapshots_total", "counter",
	       "Profile snapshots the server took, by outcome.");
	for (i = 0; i < STATS_NSTATUS; i++)
		fprintf(f, "goheap_snapshots_total{status=\"%s\"} %llu\n",
			snap_status_name((enum gh_snap_status)i),
			(unsigned long long)st->by_status[i]);
	counter(f, "goheap_read_bytes_total",
		"Bytes the readers received from the processes' memory (less "
		"when a process's bucket stacks were kept from its last read).",
		st->read_bytes);
	counter(f, "goheap_binaries_parsed_total",
		"Binaries parsed: not found in the collector's cache of "
		"parsed binaries.",
		st->binaries_parsed);
	counter(f, "goheap_bpf_loads_total",
		"BPF objects loaded (the collector keeps its loaded).",
		st->bpf_loads);
	counter(f, "goheap_iterator_passes_total",
		"BPF task-iterator passes run.", st->iter_passes);
	counter(f, "goheap_sweeps_total",
		"Sweeps of the host for /metrics, /processes, /targets and /.",
		st->sweeps);
	counter(f, "goheap_sweep_failures_total",
		"Sweeps of the host that could not run.", st->sweep_failures);
	for (i = 0; i < 600; i++) {
		if (!st->http[i])
			continue;
		if (!any)
			family(f, "goheap_http_requests_total", "counter",
			       "HTTP requests answered, by status code.");
		any = true;
		fprintf(f, "goheap_http_requests_total{code=\"%zu\"} %llu\n", i,
			(unsigned long long)st->http[i]);
	}
}

void metrics_write(FILE *f, const struct snap *s, const struct stats_view *st)
{
	size_t i, n = 0;

	process_metrics(f, s);
	runtime_metrics(f, s);
	for (i = 0; i < s->n; i = snap__process_end(s, i))
		n++;
	family(f, "goheap_sweep_processes", "gauge",
	       "Go processes the last sweep found (that the filters expose).");
	fprintf(f, "goheap_sweep_processes %zu\n", n);
	family(f, "goheap_sweep_duration_seconds", "gauge",
	       "How long the last sweep took.");
	fprintf(f, "goheap_sweep_duration_seconds %.6f\n", s->duration_s);
	family(f, "goheap_sweep_timestamp_seconds", "gauge",
	       "When the last sweep ended, in Unix time.");
	fprintf(f, "goheap_sweep_timestamp_seconds %.3f\n", s->taken_unix);
	collector_metrics(f, st);
}
