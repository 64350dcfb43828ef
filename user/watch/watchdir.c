/* watchdir.c - a watch's output directory (watchdir.h). Every file goes
 * through gh_output (all or nothing, the output-file rules, removed by
 * gh_output__cleanup when a signal ends the process): the pprof file,
 * then the JSON document, then index.jsonl, so the index never names a
 * file that is not whole. The list of what is kept lives in memory;
 * files of an earlier watch in the same directory are left alone. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "write/json.h"
#include "write/profdir.h"
#include "watch/watchdir.h"

/* A comment line: a cgroup path and words. */
#define COMMENT_MAX (GH_PATH_MAX + 128)

struct wentry {
	int pid;
	size_t runtime;
	bool peak;
	uint64_t bytes; /* both files */
	char pprof[320], json[320];
	char *line; /* its index line */
};

struct watchdir {
	char *dir;
	size_t keep_files;
	uint64_t keep_bytes;
	struct wentry *v;
	size_t n, cap;
};

int watchdir_open(const char *dir, size_t keep_files, uint64_t keep_bytes,
		  struct watchdir **out, struct gh_err *err)
{
	struct watchdir *d;

	*out = NULL;
	if (profdir_make(dir, err))
		return -1;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->dir = strdup(dir))) {
		free(d);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	d->keep_files = keep_files;
	d->keep_bytes = keep_bytes;
	*out = d;
	return 0;
}

void watchdir_free(struct watchdir *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].line);
	free(d->v);
	free(d->dir);
	free(d);
}

/* "2026-12-01T01:35:12.123Z" */
static void iso_time(int64_t ns, char *buf, size_t size)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (int)(ns / 1000000 % 1000));
}

/* The kill of an OOM snapshot as a JSON value; null for the others. */
static void put_oom(FILE *f, const struct gh_watch_event *ev)
{
	const struct gh_oom *o = &ev->oom;

	if (ev->trigger != GH_TRIGGER_OOM) {
		fputs("null", f);
		return;
	}
	fputs("{\"comm\":", f);
	gh_json__quote(f, o->comm);
	fputs(",\"cgroup\":", f);
	gh_json__quote(f, o->cgroup);
	fprintf(f, ",\"memcg_usage\":%" PRIu64 ",\"memcg_limit\":",
		o->memcg_usage_bytes);
	if (o->memcg_limit_bytes)
		fprintf(f, "%" PRIu64, o->memcg_limit_bytes);
	else
		fputs("null", f);
	fprintf(f,
		",\"total_vm\":%" PRIu64 ",\"oom_score_adj\":%d,\"uid\":%u"
		",\"early_kills\":%u}",
		o->total_vm_bytes, o->oom_score_adj, o->uid, o->early_kills);
}

/* RSS or PSS: null for an OOM snapshot, its process gone. */
static void put_rss(FILE *f, const struct gh_watch_event *ev, uint64_t v)
{
	if (ev->trigger == GH_TRIGGER_OOM)
		fputs("null", f);
	else
		fprintf(f, "%" PRIu64, v);
}

/* The trigger's context as JSON object members (no braces). */
static void put_event(FILE *f, const struct gh_watch_event *ev)
{
	char when[80];
	const char *sep = "";

	iso_time(ev->time_nanos, when, sizeof(when));
	fputs("\"trigger\":", f);
	gh_json__quote(f, gh_trigger__name(ev->trigger));
	fputs(",\"fired\":[", f);
	for (int t = GH_TRIGGER_CGROUP; t <= GH_TRIGGER_OOM; t++)
		if (ev->fired & (1u << t)) {
			fprintf(f, "%s\"%s\"", sep, gh_trigger__name(t));
			sep = ",";
		}
	fputs("],\"reason\":", f);
	gh_json__quote(f, ev->reason);
	fprintf(f, ",\"time\":\"%s\",\"time_nanos\":%" PRId64, when,
		ev->time_nanos);
	fprintf(f, ",\"pid\":%d,\"comm\":", ev->pid);
	gh_json__quote(f, ev->comm);
	fprintf(f, ",\"runtime\":%zu,\"rss\":", ev->runtime);
	put_rss(f, ev, ev->rss);
	fputs(",\"pss\":", f);
	put_rss(f, ev, ev->pss);
	fprintf(f,
		",\"cgroup_version\":%d,\"cgroup_dir\":", ev->cgroup_version);
	gh_json__quote(f, ev->cgroup_dir);
	fprintf(f, ",\"cgroup_usage\":%" PRIu64 ",\"cgroup_limit\":",
		ev->cgroup_usage);
	if (ev->cgroup_limit == UINT64_MAX)
		fputs("null", f);
	else
		fprintf(f, "%" PRIu64, ev->cgroup_limit);
	fputs(",\"pressure\":", f);
	gh_json__quote(f, ev->pressure);
	fprintf(f, ",\"inuse_space\":%" PRId64 ",\"status\":\"%s\"",
		ev->inuse_space,
		ev->status == GH_SNAP_PARTIAL ? "partial"
		: ev->status == GH_SNAP_MIXED ? "mixed"
					      : "complete");
	fputs(",\"oom\":", f);
	put_oom(f, ev);
}

/* The likely leaks as a JSON member, after others. */
static void put_leaks(FILE *f, const struct gh_watch_event *ev)
{
	fputs(",\"likely_leaks\":[", f);
	for (size_t i = 0; i < ev->nleaks; i++) {
		const struct gh_leak *l = &ev->leaks[i];

		fputs(i ? ",{\"site\":" : "{\"site\":", f);
		gh_json__quote(f, l->site);
		fputs(",\"file\":", f);
		gh_json__quote(f, l->file);
		fprintf(f,
			",\"line\":%" PRId64 ",\"inuse_bytes\":%" PRId64
			",\"growth_bytes\":%" PRId64 ",\"snapshots\":%u}",
			l->line, l->inuse_bytes, l->growth_bytes, l->snapshots);
	}
	fputc(']', f);
}

/* The context as pprof comments ("trigger: rss-above"). */
static size_t event_comments(const struct gh_watch_event *ev,
			     char lines[][COMMENT_MAX], const char **v)
{
	char when[80], limit[32];
	size_t n = 0;

	iso_time(ev->time_nanos, when, sizeof(when));
	snprintf(lines[n++], COMMENT_MAX, "trigger: %s",
		 gh_trigger__name(ev->trigger));
	snprintf(lines[n++], COMMENT_MAX, "reason: %s", ev->reason);
	snprintf(lines[n++], COMMENT_MAX, "time: %s", when);
	if (ev->trigger == GH_TRIGGER_OOM)
		snprintf(lines[n++], COMMENT_MAX,
			 "oom: comm %s total_vm %" PRIu64
			 " oom_score_adj %d uid %u",
			 ev->oom.comm, ev->oom.total_vm_bytes,
			 ev->oom.oom_score_adj, ev->oom.uid);
	else
		snprintf(lines[n++], COMMENT_MAX,
			 "rss: %" PRIu64 " pss: %" PRIu64, ev->rss, ev->pss);
	if (ev->cgroup_limit == UINT64_MAX)
		snprintf(limit, sizeof(limit), "none");
	else
		snprintf(limit, sizeof(limit), "%" PRIu64, ev->cgroup_limit);
	if (ev->cgroup_version)
		snprintf(lines[n++], COMMENT_MAX,
			 "memory cgroup: %s usage %" PRIu64 " limit %s",
			 ev->cgroup_dir, ev->cgroup_usage, limit);
	if (ev->pressure[0])
		snprintf(lines[n++], COMMENT_MAX, "pressure: %s", ev->pressure);
	for (size_t i = 0; i < n; i++)
		v[i] = lines[i];
	return n;
}

/* Write one file of the snapshot; *bytes grows by its size. */
static int write_file(struct watchdir *d, const char *name,
		      const struct gh_profile *p,
		      const struct gh_watch_event *ev, bool json,
		      uint64_t *bytes, struct gh_err *err)
{
	char lines[6][COMMENT_MAX]; /* 25 KiB */
	const char *comments[6];
	struct gh_write_opts o = {.format = GH_FORMAT_PPROF, .labels = true};
	struct gh_output *out;
	char path[GH_PATH_MAX + 400];
	FILE *f;
	long size;

	snprintf(path, sizeof(path), "%s/%s", d->dir, name);
	if (gh_output__open(path, &out, err))
		return -1;
	f = gh_output__file(out);
	if (json) {
		o = (struct gh_write_opts){.format = GH_FORMAT_JSON,
					   .index = GH_INUSE_SPACE};
		fputc('{', f);
		put_event(f, ev);
		put_leaks(f, ev);
		fputs(",\"profile\":", f);
	} else {
		o.ncomments = event_comments(ev, lines, comments);
		o.comments = comments;
	}
	if (gh_profile__write(p, f, &o, err) || (json && fputs("}\n", f) < 0)) {
		gh_output__abort(out);
		return -1;
	}
	size = ftell(f);
	*bytes += size > 0 ? (uint64_t)size : 0;
	return gh_output__commit(out, err);
}

/* The index line of ev, malloc'd. */
static char *index_line(const struct gh_watch_event *ev, uint64_t bytes)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputc('{', f);
	put_event(f, ev);
	fputs(",\"pprof\":", f);
	gh_json__quote(f, ev->pprof_file);
	fputs(",\"json\":", f);
	gh_json__quote(f, ev->json_file);
	fprintf(f, ",\"bytes\":%" PRIu64 "}\n", bytes);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int write_index(struct watchdir *d, struct gh_err *err)
{
	char path[GH_PATH_MAX + 32];
	struct gh_output *out;
	FILE *f;

	snprintf(path, sizeof(path), "%s/index.jsonl", d->dir);
	if (gh_output__open(path, &out, err))
		return -1;
	f = gh_output__file(out);
	for (size_t i = 0; i < d->n; i++)
		fputs(d->v[i].line, f);
	return gh_output__commit(out, err);
}

static void unlink_entry(struct watchdir *d, const struct wentry *e)
{
	char path[GH_PATH_MAX + 400];

	snprintf(path, sizeof(path), "%s/%s", d->dir, e->pprof);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", d->dir, e->json);
	unlink(path);
}

size_t watchdir_excess(const uint64_t *sizes, size_t n, size_t keep_files,
		       uint64_t keep_bytes)
{
	uint64_t total = 0;
	size_t drop = 0;

	for (size_t i = 0; i < n; i++)
		total += sizes[i];
	while (drop + 1 < n && ((keep_files && n - drop > keep_files) ||
				(keep_bytes && total > keep_bytes)))
		total -= sizes[drop++];
	return drop;
}

/* Remove the oldest snapshots of (pid, runtime) beyond the bound. */
static void retain(struct watchdir *d, int pid, size_t runtime)
{
	uint64_t *sizes = malloc((d->n + 1) * sizeof(*sizes));
	size_t n = 0, drop, k = 0;

	if (!sizes)
		return;
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].pid == pid && d->v[i].runtime == runtime &&
		    !d->v[i].peak)
			sizes[n++] = d->v[i].bytes;
	drop = watchdir_excess(sizes, n, d->keep_files, d->keep_bytes);
	free(sizes);
	for (size_t i = 0; i < d->n; i++) {
		struct wentry *e = &d->v[i];

		if (drop && e->pid == pid && e->runtime == runtime &&
		    !e->peak) {
			unlink_entry(d, e);
			free(e->line);
			drop--;
			continue;
		}
		d->v[k++] = *e;
	}
	d->n = k;
}

/* "comm-pid[-N]": the profile directory's name without ".pb.gz". */
static int stem(const struct gh_profile *p, char *buf, size_t size)
{
	if (gh_profile_dir__name(p, buf, size))
		return -1;
	buf[strlen(buf) - strlen(".pb.gz")] = '\0';
	return 0;
}

static int name_files(const struct gh_profile *p, struct gh_watch_event *ev)
{
	char base[80], when[40], *c;

	if (stem(p, base, sizeof(base)))
		return -1;
	if (ev->trigger == GH_TRIGGER_PEAK) {
		snprintf(ev->pprof_file, sizeof(ev->pprof_file),
			 "%s-peak.pb.gz", base);
		snprintf(ev->json_file, sizeof(ev->json_file), "%s-peak.json",
			 base);
		return 0;
	}
	iso_time(ev->time_nanos, when, sizeof(when));
	while ((c = strpbrk(when, ":-")))
		memmove(c, c + 1, strlen(c));
	snprintf(ev->pprof_file, sizeof(ev->pprof_file), "%s-%s-%s.pb.gz", base,
		 when, gh_trigger__name(ev->trigger));
	snprintf(ev->json_file, sizeof(ev->json_file), "%s-%s-%s.json", base,
		 when, gh_trigger__name(ev->trigger));
	return 0;
}

/* ev's entry: a new one, or the process's at-peak one to replace. */
static struct wentry *entry_for(struct watchdir *d,
				const struct gh_watch_event *ev)
{
	if (ev->trigger == GH_TRIGGER_PEAK)
		for (size_t i = 0; i < d->n; i++)
			if (d->v[i].peak && d->v[i].pid == ev->pid &&
			    d->v[i].runtime == ev->runtime)
				return &d->v[i];
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		void *v = realloc(d->v, cap * sizeof(*d->v));

		if (!v)
			return NULL;
		d->v = v;
		d->cap = cap;
	}
	memset(&d->v[d->n], 0, sizeof(d->v[d->n]));
	return &d->v[d->n++];
}

int watchdir_add(struct watchdir *d, const struct gh_profile *p,
		 struct gh_watch_event *ev, struct gh_err *err)
{
	struct wentry *e;
	uint64_t bytes = 0;
	char *line;

	if (name_files(p, ev))
		return err_set(err, GH_E_OUTPUT, "file name too long");
	if (write_file(d, ev->pprof_file, p, ev, false, &bytes, err) ||
	    write_file(d, ev->json_file, p, ev, true, &bytes, err))
		return -1;
	line = index_line(ev, bytes);
	e = line ? entry_for(d, ev) : NULL;
	if (!e) {
		free(line);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	free(e->line);
	*e = (struct wentry){.pid = ev->pid,
			     .runtime = ev->runtime,
			     .peak = ev->trigger == GH_TRIGGER_PEAK,
			     .bytes = bytes,
			     .line = line};
	memcpy(e->pprof, ev->pprof_file, sizeof(e->pprof));
	memcpy(e->json, ev->json_file, sizeof(e->json));
	retain(d, ev->pid, ev->runtime);
	return write_index(d, err);
}
