/* discovery.c - /processes and /targets: the Go processes of the last
 * sweep, with the labels a sweep gives them (goheap-bpf(8), SWEEPS) and the
 * paths of their profiles; /targets as a Prometheus http_sd document,
 * one target per process, for a profiler's scrape configuration. */
#include "cli/cli.h"
#include "cmd/serve/pages.h"
#include "cmd/serve/stats.h"
#include "goheap.h"

/* "name":"value" */
static void field(FILE *f, const char *sep, const char *name, const char *v)
{
	fprintf(f, "%s\"%s\":", sep, name);
	gh_json__quote(f, v);
}

static void paths(FILE *f, int pid, size_t runtime)
{
	char prefix[64];

	if (runtime)
		snprintf(prefix, sizeof(prefix), "/pid/%d/runtime/%zu", pid,
			 runtime);
	else
		snprintf(prefix, sizeof(prefix), "/pid/%d", pid);
	fprintf(f,
		",\"heap\":\"%s/debug/pprof/heap\","
		"\"allocs\":\"%s/debug/pprof/allocs\"",
		prefix, prefix);
}

static void status(FILE *f, const struct snap_row *r)
{
	field(f, ",", "status", snap_status_name(r->status));
	field(f, ",", "status_reason", r->reason);
}

static void runtime_entry(FILE *f, const struct snap_row *r, const char *sep)
{
	fprintf(f, "%s{\"runtime\":%zu", sep, r->runtime);
	field(f, ",", "file", r->runtime_file);
	field(f, ",", "go_version", r->go_version);
	field(f, ",", "build_id", r->build_id);
	status(f, r);
	paths(f, r->pid, r->runtime);
	fputc('}', f);
}

/* The process's labels, as a sweep's JSON names them; its first row's
 * Go version and build ID, as the plain path serves that runtime. */
static void labels(FILE *f, const struct snap_row *r, const char *sep)
{
	field(f, sep, "comm", r->comm);
	field(f, ",", "exe", r->exe);
	field(f, ",", "go_version", r->go_version);
	field(f, ",", "build_id", r->build_id);
	field(f, ",", "cgroup", r->cgroup);
	field(f, ",", "container_id", r->container_id);
	field(f, ",", "container_runtime", r->container_runtime);
	field(f, ",", "pod_uid", r->pod_uid);
}

void processes_write(FILE *f, const struct snap *s)
{
	size_t i, j, end;

	fputs("[", f);
	for (i = 0; i < s->n; i = end) {
		const struct snap_row *r = &s->v[i];

		end = snap__process_end(s, i);
		fprintf(f, "%s\n{\"pid\":%d", i ? "," : "", r->pid);
		labels(f, r, ",");
		status(f, r);
		paths(f, r->pid, 0);
		fputs(",\"runtimes\":[", f);
		for (j = i; j < end; j++)
			if (s->v[j].runtime)
				runtime_entry(f, &s->v[j], j > i ? "," : "");
		fputs("]}", f);
	}
	fputs("\n]\n", f);
}

void targets_write(FILE *f, const struct snap *s, const char *addr)
{
	size_t i, end;
	char pid[16], prefix[32];

	fputs("[", f);
	for (i = 0; i < s->n; i = end) {
		const struct snap_row *r = &s->v[i];

		end = snap__process_end(s, i);
		snprintf(pid, sizeof(pid), "%d", r->pid);
		snprintf(prefix, sizeof(prefix), "/pid/%d", r->pid);
		fprintf(f, "%s\n{\"targets\":[", i ? "," : "");
		gh_json__quote(f, addr);
		fputs("],\"labels\":{", f);
		/* Grafana Alloy's pyroscope.scrape puts this before each
		 * profile's path; Parca needs a relabeling (README). */
		field(f, "", "__profile_path_prefix__", prefix);
		field(f, ",", "service_name", r->comm);
		field(f, ",", "pid", pid);
		labels(f, r, ",");
		fputs("}}", f);
	}
	fputs("\n]\n", f);
}
