/* watchevent.c - a watch snapshot's context (struct gh_watch_event) as
 * its files carry it (watchevent.h). */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "watch/watchevent.h"
#include "write/jsonenc.h"

void watch_event__time(const struct gh_watch_event *ev, char *buf, size_t size)
{
	int64_t ns = ev->time_ns;
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

void watch_event__json(FILE *f, const struct gh_watch_event *ev)
{
	char when[80];
	const char *sep = "";

	watch_event__time(ev, when, sizeof(when));
	fputs("\"trigger\":", f);
	gh_json__quote(f, gh_trigger__name(ev->trigger));
	fputs(",\"fired\":[", f);
	for (int t = GH_TRIGGER_CGROUP; t <= GH_TRIGGER_GOROUTINES; t++)
		if (ev->fired & (1u << t)) {
			fprintf(f, "%s\"%s\"", sep, gh_trigger__name(t));
			sep = ",";
		}
	fputs("],\"reason\":", f);
	gh_json__quote(f, ev->reason);
	fprintf(f, ",\"time\":\"%s\",\"time_nanos\":%" PRId64, when,
		ev->time_ns);
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

void watch_event__json_leaks(FILE *f, const struct gh_watch_event *ev)
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

size_t watch_event__comments(const struct gh_watch_event *ev,
			     char lines[][WATCH_COMMENT_MAX], const char **v)
{
	char when[80], limit[32];
	size_t n = 0;

	watch_event__time(ev, when, sizeof(when));
	snprintf(lines[n++], WATCH_COMMENT_MAX, "trigger: %s",
		 gh_trigger__name(ev->trigger));
	snprintf(lines[n++], WATCH_COMMENT_MAX, "reason: %s", ev->reason);
	snprintf(lines[n++], WATCH_COMMENT_MAX, "time: %s", when);
	if (ev->trigger == GH_TRIGGER_OOM)
		snprintf(lines[n++], WATCH_COMMENT_MAX,
			 "oom: comm %s total_vm %" PRIu64
			 " oom_score_adj %d uid %u",
			 ev->oom.comm, ev->oom.total_vm_bytes,
			 ev->oom.oom_score_adj, ev->oom.uid);
	else
		snprintf(lines[n++], WATCH_COMMENT_MAX,
			 "rss: %" PRIu64 " pss: %" PRIu64, ev->rss, ev->pss);
	if (ev->cgroup_limit == UINT64_MAX)
		snprintf(limit, sizeof(limit), "none");
	else
		snprintf(limit, sizeof(limit), "%" PRIu64, ev->cgroup_limit);
	if (ev->cgroup_version)
		snprintf(lines[n++], WATCH_COMMENT_MAX,
			 "memory cgroup: %s usage %" PRIu64 " limit %s",
			 ev->cgroup_dir, ev->cgroup_usage, limit);
	if (ev->pressure[0])
		snprintf(lines[n++], WATCH_COMMENT_MAX, "pressure: %s",
			 ev->pressure);
	for (size_t i = 0; i < n; i++)
		v[i] = lines[i];
	return n;
}
