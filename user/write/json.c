/* json.c - the JSON renderer: the profile as one JSON document in the schema of
 * Huatuo's Go heap snapshot (ccfos/huatuo memsnapshot: Snapshot, Entry), so
 * tools reading Huatuo's output can read ours. The schema is written once,
 * in goheap-bpf(8), OUTPUT FORMATS, JSON (tools/man/goheap-bpf.8).
 *
 * It streams: the entries are summed as samples arrive (huatuo.c); names
 * and stack text come from the final profile when written. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "write/huatuo.h"
#include "write/json.h"
#include "write/jsonenc.h"
#include "write/jsonrt.h"
#include "write/oneline.h"
#include "write/render.h"

struct json_render {
	struct render_head h;
	struct huatuo_entries *es;
	bool finished; /* the entries are in order */
};

static int json_sample(void *st, const struct gh_profile *p,
		       const struct gh_sample *s)
{
	struct json_render *r = st;
	bool alloc = r->h.o.index == GH_ALLOC_OBJECTS ||
		     r->h.o.index == GH_ALLOC_SPACE;

	/* A block or mutex sample's two values are where alloc's are, a
	 * goroutine sample's one where alloc_objects is. */
	return huatuo_entries__add(
		r->es, p, s, alloc || gh_profile__kind(p) != GH_KIND_HEAP);
}

struct stack_out {
	FILE *f;
	bool first;
};

static bool put_frame(void *ctx, const struct huatuo_frame *fr)
{
	struct stack_out *so = ctx;

	fputs(so->first ? "\n        " : ",\n        ", so->f);
	so->first = false;
	if (!fr->fn) {
		fprintf(so->f, "\"0x%" PRIx64 "\"", fr->pc);
		return false;
	}
	fputc('"', so->f);
	jsonenc_escaped(so->f, fr->fn->name);
	if (fr->fn->filename && fr->fn->filename[0] && fr->line > 0) {
		fputs(", ", so->f);
		jsonenc_escaped(so->f, fr->fn->filename);
		fprintf(so->f, ":%" PRId64, fr->line);
	}
	fputc('"', so->f);
	return false;
}

/* Every location's frames as put_frame writes them, each frame with its
 * ",\n        " in front: written once, copied into every entry that has
 * them (a profile repeats a few thousand locations over all its entries).
 * Location i's text is buf[off[i], off[i + 1]). */
struct loc_text {
	char *buf;
	size_t size;
	long *off;
};

static int loc_text__build(const struct gh_profile *p, struct loc_text *t)
{
	FILE *m = open_memstream(&t->buf, &t->size);
	struct stack_out so = {m, false};
	size_t i;

	t->off = malloc((p->nlocations + 1) * sizeof(*t->off));
	if (!m || !t->off) {
		if (m)
			fclose(m);
		return -1;
	}
	for (i = 0; i < p->nlocations; i++) {
		t->off[i] = ftell(m);
		huatuo_location__frames(p, &p->locations[i], put_frame, &so);
	}
	t->off[i] = ftell(m);
	return fclose(m) || t->off[i] < 0 ? -1 : 0;
}

static void loc_text__free(struct loc_text *t)
{
	free(t->buf);
	free(t->off);
}

/* The stack of entry e, leaf first: its leaf, then its callers. */
static void put_stack(FILE *f, const struct json_render *r, uint32_t e,
		      const struct loc_text *t)
{
	uint32_t node, loc = huatuo_entries__leaf(r->es, e, &node);
	bool first = true;

	while (loc != HUATUO_NONE) {
		long a = t->off[loc], b = t->off[loc + 1];

		if (a != b) {
			/* The first frame has no comma in front. */
			a += first;
			first = false;
			fwrite(t->buf + a, 1, (size_t)(b - a), f);
		}
		if (node == HUATUO_NONE)
			break;
		loc = huatuo_entries__caller(r->es, &node);
	}
	fputs(first ? "]\n    }" : "\n      ]\n    }", f);
}

static void put_entry(FILE *f, const struct json_render *r,
		      const struct huatuo_names *ln, uint32_t e,
		      const char *kind, const struct loc_text *t)
{
	int64_t bytes = huatuo_entries__bytes(r->es, e);
	int64_t objects = huatuo_entries__objects(r->es, e);

	fprintf(f, "    {\n      \"kind\": \"%s\",\n      \"name\": ", kind);
	gh_json__quote(f, huatuo_entries__name(r->es, ln, e));
	/* A goroutine sample's one value sits where alloc_objects does. */
	if (strcmp(kind, "goroutine") == 0) {
		fprintf(f,
			",\n      \"goroutines\": %" PRId64
			",\n      \"stack\": [",
			objects);
		put_stack(f, r, e, t);
		return;
	}
	if (strcmp(kind, "delay") == 0) {
		fprintf(f,
			",\n      \"contentions\": %" PRId64
			",\n      \"delay_ns\": %" PRId64
			",\n      \"stack\": [",
			objects, bytes);
		put_stack(f, r, e, t);
		return;
	}
	fprintf(f,
		",\n      \"bytes\": %" PRId64 ",\n      \"objects\": %" PRId64
		",\n      \"average_bytes\": ",
		bytes, objects);
	jsonenc_double(f, objects ? (double)bytes / (double)objects : 0);
	fputs(",\n      \"stack\": [", f);
	put_stack(f, r, e, t);
}

/* The entries' kind, which is also the header's sample_index: the
 * heap's index, a block or mutex profile's delay, a goroutine profile's
 * one value. */
static const char *entry_kind(const struct gh_profile *p, bool alloc)
{
	switch (gh_profile__kind(p)) {
	case GH_KIND_HEAP:
		return alloc ? "alloc_space" : "inuse_space";
	case GH_KIND_GOROUTINE:
		return "goroutine";
	default:
		return "delay";
	}
}

static const char *status_name(enum gh_snap_status s)
{
	switch (s) {
	case GH_SNAP_COMPLETE:
		return "complete";
	case GH_SNAP_PARTIAL:
		return "partial";
	case GH_SNAP_UNAVAILABLE:
		return "unavailable";
	case GH_SNAP_FAILED:
		return "failed";
	case GH_SNAP_MIXED:
		return "mixed";
	}
	return "failed";
}

/* ",\n  \"name\": \"value\"", value escaped. */
static void put_field(FILE *f, const char *name, const char *value)
{
	fprintf(f, ",\n  \"%s\": ", name);
	gh_json__quote(f, value);
}

/* Who and how: the fields from "pid" to "backend_notes" (or "trigger"). */
static void put_who(FILE *f, const struct gh_profile *p)
{
	fprintf(f, "{\n  \"pid\": %d,\n  \"runtime_version\": ", p->pid);
	gh_json__quote(f, p->go_version);
	put_field(f, "runtime_file", p->runtime_file);
	put_field(f, "comm", p->comm);
	put_field(f, "exe", p->exe);
	put_field(f, "build_id", p->build_id);
	put_field(f, "cgroup", p->cgroup);
	put_field(f, "container_id", p->container_id);
	put_field(f, "container_runtime", p->container_runtime);
	put_field(f, "pod_uid", p->pod_uid);
	if (gh_profile__kind(p) != GH_KIND_HEAP)
		fprintf(f, ",\n  \"kind\": \"%s\"",
			gh_kind__name(gh_profile__kind(p)));
	fprintf(f, ",\n  \"status\": \"%s\"", status_name(p->status));
	put_field(f, "status_reason", p->status_reason);
	put_field(f, "backend", p->backend);
	put_field(f, "backend_notes", p->backend_notes);
	if (p->trigger[0])
		put_field(f, "trigger", p->trigger);
}

void json_put_states(FILE *f, const struct gstates *st)
{
	fprintf(f,
		"{\"running\": %zu, \"runnable\": %zu, "
		"\"waiting\": %zu, \"syscall\": %zu, \"other\": %zu, "
		"\"wait_reasons\": {",
		st->running, st->runnable, st->waiting, st->syscall, st->other);
	for (size_t i = 0; i < st->nreasons; i++) {
		fputs(i ? ", " : "", f);
		gh_json__quote(f, st->reasons[i].reason);
		fprintf(f, ": %zu", st->reasons[i].n);
	}
	fputs("}}", f);
}

/* A goroutine profile's "states". */
static void put_states(FILE *f, const struct gh_profile *p)
{
	if (!p->x || !p->x->states)
		return;
	fputs(",\n  \"states\": ", f);
	json_put_states(f, p->x->states);
}

/* The fields from "buckets" to "top_site_bytes". */
static void put_counts(FILE *f, const struct gh_profile *p)
{
	if (gh_profile__kind(p) == GH_KIND_GOROUTINE) {
		fprintf(f,
			",\n  \"buckets\": %zu,\n  \"totals\": "
			"{\"goroutine\": %" PRId64 "}",
			p->nbuckets, p->total[0]);
		put_states(f, p);
		return;
	}
	if (gh_profile__kind(p) != GH_KIND_HEAP) {
		fprintf(f,
			",\n  \"buckets\": %zu,\n  \"totals\": "
			"{\"contentions\": "
			"%" PRId64 ", \"delay\": %" PRId64 "}",
			p->nbuckets, p->total[GH_CONTENTIONS],
			p->total[GH_DELAY]);
		return;
	}
	fprintf(f,
		",\n  \"buckets\": %zu,\n  \"buckets_inuse\": %zu,"
		"\n  \"gc_cycles\": %u,\n  \"totals\": {\"alloc_objects\": "
		"%" PRId64 ", \"alloc_space\": %" PRId64
		", \"inuse_objects\": %" PRId64 ", \"inuse_space\": %" PRId64
		"}",
		p->nbuckets, p->nbuckets_inuse, p->gc_cycles ? p->gc_cycles : 1,
		p->total[GH_ALLOC_OBJECTS], p->total[GH_ALLOC_SPACE],
		p->total[GH_INUSE_OBJECTS], p->total[GH_INUSE_SPACE]);
	put_field(f, "top_site", p->top_site);
	fprintf(f, ",\n  \"top_site_bytes\": %" PRId64, p->top_site_bytes);
}

static double rounded_ms(const struct gh_profile *p)
{
	return p->duration_ms > 0 ? ceil(p->duration_ms) : 0;
}

static void put_header(FILE *f, const struct gh_profile *p, bool alloc,
		       bool truncated)
{
	put_who(f, p);
	fprintf(f,
		",\n  \"duration_ms\": %.0f,\n  \"output_truncated\": %s,"
		"\n  \"memprofilerate\": %" PRId64
		",\n  \"sample_index\": \"%s\"",
		rounded_ms(p), truncated ? "true" : "false", p->period,
		entry_kind(p, alloc));
	put_counts(f, p);
	json_put_runtime(f, p);
	fputs(",\n  \"entries\": [", f);
}

int json_index_line(FILE *f, const struct gh_profile *p, const char *file,
		    struct gh_err *err)
{
	FILE *line = oneline_open(f);
	int rc;

	if (!line)
		return err_set(err, GH_E_FAILED, "out of memory");
	put_who(line, p);
	fprintf(line,
		",\n  \"duration_ms\": %.0f,\n  \"memprofilerate\": %" PRId64,
		rounded_ms(p), p->period);
	put_counts(line, p);
	json_put_runtime(line, p);
	put_field(line, "file", file);
	fputs("\n}", line);
	rc = fclose(line);
	if (rc || fputc('\n', f) == EOF || ferror(f))
		return err_set(err, GH_E_OUTPUT,
			       "cannot write the index: %s; check the output "
			       "directory and free disk space",
			       strerror(errno));
	return 0;
}

static void json_reset(void *st)
{
	struct json_render *r = st;

	huatuo_entries__reset(r->es);
	r->finished = false;
}

static int json_open(void **st, const struct gh_write_opts *o, bool own_thread,
		     struct gh_err *err)
{
	struct json_render *r = calloc(1, sizeof(*r));

	(void)own_thread;
	*st = r;
	if (!r || !(r->es = huatuo_entries__new()))
		return err_set(err, GH_E_FAILED, "out of memory");
	r->h = (struct render_head){o->format == GH_FORMAT_JSONL ? &render_jsonl
								 : &render_json,
				    *o};
	return 0;
}

/* No more entries: drop the indexes, put the entries in order. */
static int json_finish(void *st, const struct gh_profile *p, struct gh_err *err)
{
	struct json_render *r = st;

	if (huatuo_entries__bad_refs(r->es))
		return err_set(err, GH_E_FAILED,
			       "internal error: a sample refers to a missing "
			       "location or function; please report it");
	if (huatuo_entries__order(r->es, p, r->h.o.top_n))
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the JSON output");
	r->finished = true;
	return 0;
}

static int json_write(void *st, const struct gh_profile *p, FILE *f,
		      struct gh_err *err)
{
	const struct json_render *r = st;
	bool alloc = r->h.o.index == GH_ALLOC_OBJECTS ||
		     r->h.o.index == GH_ALLOC_SPACE;
	struct loc_text t = {0};
	struct huatuo_names ln = {0};
	size_t i;

	if (!r->finished)
		return err_set(err, GH_E_FAILED,
			       "internal error: the JSON entries were not "
			       "finished; please report it");
	if (loc_text__build(p, &t) || huatuo_names__build(&ln, p)) {
		loc_text__free(&t);
		huatuo_names__free(&ln);
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the JSON output");
	}
	put_header(f, p, alloc, huatuo_entries__cut(r->es));
	for (i = 0; i < huatuo_entries__shown(r->es); i++) {
		fputs(i ? ",\n" : "\n", f);
		put_entry(f, r, &ln, huatuo_entries__at(r->es, i),
			  gh_profile__kind(p) == GH_KIND_HEAP
				  ? alloc ? "alloc_space_objects"
					  : "inuse_space_objects"
				  : entry_kind(p, alloc),
			  &t);
	}
	fputs(huatuo_entries__shown(r->es) ? "\n  ]\n}\n" : "]\n}\n", f);
	loc_text__free(&t);
	huatuo_names__free(&ln);
	if (fflush(f) || ferror(f))
		return err_set(err, GH_E_OUTPUT,
			       "cannot write the JSON output: %s; check the "
			       "output path and free disk space",
			       strerror(errno));
	return 0;
}

static void json_free(void *st)
{
	struct json_render *r = st;

	if (!r)
		return;
	huatuo_entries__free(r->es);
	free(r);
}

/* The document on one line, for JSON Lines. */
static int jsonl_write(void *st, const struct gh_profile *p, FILE *f,
		       struct gh_err *err)
{
	FILE *line = oneline_open(f);
	struct gh_err e = {GH_OK, ""};
	int rc;

	if (!line)
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the JSON output");
	rc = json_write(st, p, line, &e);
	if (fclose(line) && !rc)
		rc = -1;
	if (!rc && (fputc('\n', f) == EOF || fflush(f)))
		rc = -1;
	if (!rc)
		return 0;
	if (e.code)
		return err_set(err, e.code, "%s", e.msg);
	return err_set(err, GH_E_OUTPUT,
		       "cannot write the JSON output: %s; check the output "
		       "path and free disk space",
		       strerror(errno));
}

const struct render_ops render_json = {
	.format = GH_FORMAT_JSON,
	.open = json_open,
	.sink = {.sample = json_sample,
		 .reset = json_reset,
		 .finish = json_finish,
		 .free = json_free},
	.write = json_write,
};

const struct render_ops render_jsonl = {
	.format = GH_FORMAT_JSONL,
	.open = json_open,
	.sink = {.sample = json_sample,
		 .reset = json_reset,
		 .finish = json_finish,
		 .free = json_free},
	.write = jsonl_write,
};
