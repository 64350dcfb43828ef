/* json.c - gh_write_json: the profile as one JSON document in the schema of
 * Huatuo's Go heap snapshot (ccfos/huatuo memsnapshot: Snapshot, Entry), so
 * tools reading Huatuo's output can read ours. Schema:
 *
 *   {
 *     "pid": 1234,                      target process ID
 *     "runtime_version": "go1.22.12",   Go version of the target
 *     "runtime_file": "/usr/bin/app",   file holding this Go runtime: the
 *                                       executable, or a Go c-shared
 *                                       library (one document per runtime)
 *     "cgroup": "/system.slice/app.service",  the process's cgroup path
 *                                       (v1 memory controller, else v2);
 *                                       "" when unknown
 *     "status": "complete",             complete | partial | unavailable |
 *                                       failed
 *     "status_reason": "",              why not complete; "" when complete
 *     "backend": "iter",                reader backend: iter, perf, procmem
 *     "backend_notes": "",              why backends before it were passed
 *                                       over (--backend auto)
 *     "duration_ms": 3,                 snapshot wall time in milliseconds,
 *                                       rounded up (an integer, as Huatuo)
 *     "output_truncated": false,        true when top_n cut entries
 *     "memprofilerate": 524288,         runtime.MemProfileRate at read time
 *     "sample_index": "inuse_space",    pprof sample type behind "bytes"
 *                                       (inuse_space or alloc_space)
 *     "buckets": 812,                   heap-profile buckets read
 *     "buckets_inuse": 97,              of those, buckets with in-use
 *                                       objects
 *     "entries": [                      one per distinct allocation stack
 *       {
 *         "kind": "inuse_space_objects",  "alloc_space_objects" when
 *                                         sample_index is alloc_space
 *         "name": "main.load",            first frame outside the runtime
 *                                         ("runtime.", "internal/runtime/"),
 *                                         else the first frame
 *         "bytes": 131072,                pprof inuse_space (alloc_space)
 *         "objects": 32,                  pprof inuse_objects (alloc_objects)
 *         "average_bytes": 4096,          bytes / objects; 0 if no objects
 *         "stack": [                      leaf first, inlined calls expanded
 *           "main.load, /src/app/main.go:58",
 *           "main.main, /src/app/main.go:12"
 *         ]
 *       }
 *     ]
 *   }
 *
 * A stack frame is "function, file:line" (Huatuo's format: one space after
 * the comma); only the function when the file or line is unknown, and the
 * hexadecimal PC ("0x4a1b2c") when the location has no symbol. Entries are
 * sorted by bytes, then objects, descending, then by name; entries with
 * zero bytes and zero objects are left out. Strings are valid UTF-8: bytes
 * that are not become U+FFFD, as Go's encoding/json does. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "write/render.h"

/* One output entry: the samples (buckets) sharing one stack, merged. */
struct entry {
	size_t sample; /* first of the merged samples: its stack is theirs */
	int64_t bytes, objects;
	const char *name; /* borrowed from the profile; NULL: see pc */
	char pc[20];	  /* "0x..." when the name frame has no symbol */
};

struct frame {
	const struct gh_function *fn; /* NULL: unsymbolized location */
	int64_t line;
	uint64_t pc;
};

static bool is_runtime(const char *name)
{
	return strncmp(name, "runtime.", 8) == 0 ||
	       strncmp(name, "internal/runtime/", 17) == 0;
}

static bool valid_refs(const struct gh_profile *p, const struct gh_sample *s)
{
	uint32_t i, j;

	for (i = 0; i < s->nlocs; i++) {
		const struct gh_location *l;

		if (s->locs[i] >= p->nlocations)
			return false;
		l = &p->locations[s->locs[i]];
		for (j = 0; j < l->nlines; j++)
			if (l->lines[j].function >= p->nfunctions)
				return false;
	}
	return true;
}

typedef bool (*frame_fn)(void *ctx, const struct frame *fr);

/* Call fn for each frame of location l: every line, or its bare PC when it
 * has none. True when fn did (stop). */
static bool location_frames(const struct gh_profile *p,
			    const struct gh_location *l, frame_fn fn, void *ctx)
{
	struct frame fr = {.pc = l->address};
	uint32_t j;

	if (!l->nlines)
		return fn(ctx, &fr);
	for (j = 0; j < l->nlines; j++) {
		fr.fn = &p->functions[l->lines[j].function];
		fr.line = l->lines[j].line;
		if (fn(ctx, &fr))
			return true;
	}
	return false;
}

/* Call fn for each frame of s, leaf first. Stops when fn returns true. */
static void each_frame(const struct gh_profile *p, const struct gh_sample *s,
		       frame_fn fn, void *ctx)
{
	for (uint32_t i = 0; i < s->nlocs; i++)
		if (location_frames(p, &p->locations[s->locs[i]], fn, ctx))
			return;
}

struct name_pick {
	bool have_first, done;
	struct frame first, pick;
};

static bool pick_name(void *ctx, const struct frame *fr)
{
	struct name_pick *np = ctx;

	if (!np->have_first) {
		np->first = *fr;
		np->have_first = true;
	}
	if (fr->fn && is_runtime(fr->fn->name))
		return false;
	np->pick = *fr;
	np->done = true;
	return true;
}

static void name_entry(const struct gh_profile *p, struct entry *e)
{
	struct name_pick np = {0};

	each_frame(p, &p->samples[e->sample], pick_name, &np);
	if (!np.done)
		np.pick = np.first;
	if (!np.have_first)
		e->name = "";
	else if (np.pick.fn)
		e->name = np.pick.fn->name;
	else
		snprintf(e->pc, sizeof(e->pc), "0x%" PRIx64, np.pick.pc);
}

/* The pc buffer moves with the entry when sorted; point into it late. */
static const char *entry_name(const struct entry *e)
{
	return e->name ? e->name : e->pc;
}

static int cmp_stack(const struct gh_sample *a, const struct gh_sample *b)
{
	if (a->nlocs != b->nlocs)
		return a->nlocs < b->nlocs ? -1 : 1;
	return a->nlocs ? memcmp(a->locs, b->locs, a->nlocs * sizeof(*a->locs))
			: 0;
}

/* qsort has no context argument: sort pointers to samples instead. */
static int cmp_sample_ptr(const void *a, const void *b)
{
	const struct gh_sample *const *x = a, *const *y = b;
	int c = cmp_stack(*x, *y);

	if (c)
		return c;
	return *x < *y ? -1 : *x > *y;
}

static int cmp3(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* Bytes, objects descending, then name, then profile order. */
static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = cmp3(y->bytes, x->bytes);

	if (!c)
		c = cmp3(y->objects, x->objects);
	if (!c)
		c = strcmp(entry_name(x), entry_name(y));
	if (!c)
		c = x->sample < y->sample ? -1 : x->sample > y->sample;
	return c;
}

/* The entries of p for value pair (objects, bytes) at obj_ix, bytes_ix:
 * samples with equal stacks merged, zero ones dropped, sorted. */
static int build_entries(const struct gh_profile *p, int obj_ix, int bytes_ix,
			 struct entry **out, size_t *nout, struct gh_err *err)
{
	const struct gh_sample **order;
	struct entry *ents;
	size_t i, n = 0;

	order = calloc(p->nsamples ? p->nsamples : 1, sizeof(*order));
	ents = calloc(p->nsamples ? p->nsamples : 1, sizeof(*ents));
	if (!order || !ents) {
		free(order);
		free(ents);
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the JSON output");
	}
	for (i = 0; i < p->nsamples; i++)
		order[i] = &p->samples[i];
	qsort(order, p->nsamples, sizeof(*order), cmp_sample_ptr);
	for (i = 0; i < p->nsamples; i++) {
		const struct gh_sample *s = order[i];

		if (!n || cmp_stack(p->samples + ents[n - 1].sample, s))
			ents[n++] = (struct entry){
				.sample = (size_t)(s - p->samples)};
		ents[n - 1].bytes += s->value[bytes_ix];
		ents[n - 1].objects += s->value[obj_ix];
	}
	free(order);
	*nout = 0;
	for (i = 0; i < n; i++) {
		if (!ents[i].bytes && !ents[i].objects)
			continue;
		ents[*nout] = ents[i];
		name_entry(p, &ents[*nout]);
		(*nout)++;
	}
	qsort(ents, *nout, sizeof(*ents), cmp_entry);
	*out = ents;
	return 0;
}

/* Length of the valid UTF-8 sequence at s, 0 if s does not start one.
 * Never reads past a NUL: each byte is checked before the next is read. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		/* No overlong forms (E0 80..9F), no surrogates (ED A0..BF). */
		if (s[0] == 0xe0)
			lo = 0xa0;
		if (s[0] == 0xed)
			hi = 0x9f;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		/* No overlong forms (F0 80..8F), nothing past U+10FFFF. */
		if (s[0] == 0xf0)
			lo = 0x90;
		if (s[0] == 0xf4)
			hi = 0x8f;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

static const char *short_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	}
	return NULL;
}

/* Bytes at s that go out as they are: valid UTF-8, no control character,
 * quote or backslash, no U+2028/U+2029. */
static size_t plain_run(const unsigned char *s)
{
	size_t len = 0, n;

	while (s[len] >= 0x20 && !short_escape(s[len]) &&
	       (n = utf8_len(s + len)) &&
	       !(n == 3 && s[len] == 0xe2 && s[len + 1] == 0x80 &&
		 (s[len + 2] == 0xa8 || s[len + 2] == 0xa9)))
		len += n;
	return len;
}

/* s escaped for the inside of a JSON string. U+2028 and U+2029 are escaped
 * too, as Go does, so the output is also valid JavaScript. Plain runs go
 * out in one write: a large profile's JSON runs to hundreds of MB. */
static void put_escaped(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n = plain_run(s);
		const char *esc;

		if (n) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		n = utf8_len(s);
		esc = short_escape(*s);
		if (!n) {
			fputs("\xef\xbf\xbd", f); /* U+FFFD for a bad byte */
			n = 1;
		} else if (esc) {
			fputs(esc, f);
		} else if (*s < 0x20) {
			fprintf(f, "\\u%04x", *s);
		} else {
			/* U+2028 or U+2029 */
			fprintf(f, "\\u%04x", s[2] == 0xa8 ? 0x2028 : 0x2029);
		}
		s += n;
	}
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	put_escaped(f, s);
	fputc('"', f);
}

/* The shortest decimal that reads back as x: plain where Go's encoding/json
 * writes plain numbers (1e-6 <= |x| < 1e21), else with an exponent. */
static void put_double(FILE *f, double x)
{
	bool plain = x == 0 || (fabs(x) >= 1e-6 && fabs(x) < 1e21);
	int prec, max = plain ? 30 : 17;
	char buf[128];

	for (prec = plain ? 0 : 1; prec <= max; prec++) {
		snprintf(buf, sizeof(buf), plain ? "%.*f" : "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	fputs(buf, f);
}

struct stack_out {
	FILE *f;
	bool first;
};

static bool put_frame(void *ctx, const struct frame *fr)
{
	struct stack_out *so = ctx;

	fputs(so->first ? "\n        " : ",\n        ", so->f);
	so->first = false;
	if (!fr->fn) {
		fprintf(so->f, "\"0x%" PRIx64 "\"", fr->pc);
		return false;
	}
	fputc('"', so->f);
	put_escaped(so->f, fr->fn->name);
	if (fr->fn->filename && fr->fn->filename[0] && fr->line > 0) {
		fputs(", ", so->f);
		put_escaped(so->f, fr->fn->filename);
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

static int loc_text_build(const struct gh_profile *p, struct loc_text *t)
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
		location_frames(p, &p->locations[i], put_frame, &so);
	}
	t->off[i] = ftell(m);
	return fclose(m) || t->off[i] < 0 ? -1 : 0;
}

static void loc_text_free(struct loc_text *t)
{
	free(t->buf);
	free(t->off);
}

static void put_stack(FILE *f, const struct gh_sample *s,
		      const struct loc_text *t)
{
	bool first = true;

	for (uint32_t i = 0; i < s->nlocs; i++) {
		long a = t->off[s->locs[i]], b = t->off[s->locs[i] + 1];

		if (a == b)
			continue;
		/* The first frame has no comma in front. */
		a += first;
		first = false;
		fwrite(t->buf + a, 1, (size_t)(b - a), f);
	}
	fputs(first ? "]\n    }" : "\n      ]\n    }", f);
}

static void put_entry(FILE *f, const struct gh_profile *p,
		      const struct entry *e, const char *kind,
		      const struct loc_text *t)
{
	fprintf(f, "    {\n      \"kind\": \"%s\",\n      \"name\": ", kind);
	put_string(f, entry_name(e));
	fprintf(f,
		",\n      \"bytes\": %" PRId64 ",\n      \"objects\": %" PRId64
		",\n      \"average_bytes\": ",
		e->bytes, e->objects);
	put_double(f, e->objects ? (double)e->bytes / (double)e->objects : 0);
	fputs(",\n      \"stack\": [", f);
	put_stack(f, &p->samples[e->sample], t);
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
	}
	return "failed";
}

static void put_header(FILE *f, const struct gh_profile *p, bool alloc,
		       bool truncated)
{
	double ms = p->duration_ms > 0 ? ceil(p->duration_ms) : 0;

	fprintf(f, "{\n  \"pid\": %d,\n  \"runtime_version\": ", p->pid);
	put_string(f, p->go_version);
	fputs(",\n  \"runtime_file\": ", f);
	put_string(f, p->runtime_file);
	fputs(",\n  \"cgroup\": ", f);
	put_string(f, p->cgroup);
	fprintf(f, ",\n  \"status\": \"%s\",\n  \"status_reason\": ",
		status_name(p->status));
	put_string(f, p->status_reason);
	fputs(",\n  \"backend\": ", f);
	put_string(f, p->backend);
	fputs(",\n  \"backend_notes\": ", f);
	put_string(f, p->backend_notes);
	fprintf(f,
		",\n  \"duration_ms\": %.0f,\n  \"output_truncated\": %s,"
		"\n  \"memprofilerate\": %" PRId64
		",\n  \"sample_index\": \"%s\",\n  \"buckets\": %zu,"
		"\n  \"buckets_inuse\": %zu,\n  \"entries\": [",
		ms, truncated ? "true" : "false", p->period,
		alloc ? "alloc_space" : "inuse_space", p->nbuckets,
		p->nbuckets_inuse);
}

static int json_write_profile(FILE *f, const struct gh_profile *p,
			      enum gh_value index, size_t top_n,
			      struct gh_err *err)
{
	bool alloc = index == GH_ALLOC_OBJECTS || index == GH_ALLOC_SPACE;
	struct loc_text t = {0};
	struct entry *ents = NULL;
	size_t i, n = 0, shown;

	if ((unsigned)index >= GH_NVALUES)
		return err_set(err, GH_E_USAGE,
			       "unknown sample index %d; use one of "
			       "alloc_objects, alloc_space, inuse_objects, "
			       "inuse_space",
			       (int)index);
	for (i = 0; i < p->nsamples; i++)
		if (!valid_refs(p, &p->samples[i]))
			return err_set(err, GH_E_FAILED,
				       "internal error: a sample refers to "
				       "a missing location or function; "
				       "please report it");
	if (build_entries(p, alloc ? GH_ALLOC_OBJECTS : GH_INUSE_OBJECTS,
			  alloc ? GH_ALLOC_SPACE : GH_INUSE_SPACE, &ents, &n,
			  err))
		return -1;
	if (loc_text_build(p, &t)) {
		loc_text_free(&t);
		free(ents);
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the JSON output");
	}
	shown = top_n && top_n < n ? top_n : n;
	put_header(f, p, alloc, shown < n);
	for (i = 0; i < shown; i++) {
		fputs(i ? ",\n" : "\n", f);
		put_entry(f, p, &ents[i],
			  alloc ? "alloc_space_objects" : "inuse_space_objects",
			  &t);
	}
	fputs(shown ? "\n  ]\n}\n" : "]\n}\n", f);
	loc_text_free(&t);
	free(ents);
	if (fflush(f) || ferror(f))
		return err_set(err, GH_E_OUTPUT,
			       "cannot write the JSON output: %s; check the "
			       "output path and free disk space",
			       strerror(errno));
	return 0;
}

/* Until the aggregate streams: the renderer keeps a copy of every
 * sample and writes them as a profile of its own. */
struct json_render {
	struct render_head h;
	struct gh_sample *v;
	size_t n, cap;
};

static int json_open(void **st, const struct gh_write_opts *o, bool own_thread,
		     struct gh_err *err)
{
	struct json_render *r = calloc(1, sizeof(*r));

	(void)own_thread;
	*st = r;
	if (!r)
		return err_set(err, GH_E_FAILED, "out of memory");
	r->h = (struct render_head){&render_json, *o};
	return 0;
}

static int json_sample(void *st, const struct gh_profile *p,
		       const struct gh_sample *s)
{
	struct json_render *r = st;
	struct gh_sample *c;

	(void)p;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		void *v = realloc(r->v, cap * sizeof(*r->v));

		if (!v)
			return -1;
		r->v = v;
		r->cap = cap;
	}
	c = &r->v[r->n];
	*c = *s;
	c->locs = malloc((s->nlocs ? s->nlocs : 1) * sizeof(*c->locs));
	if (!c->locs)
		return -1;
	if (s->nlocs)
		memcpy(c->locs, s->locs, s->nlocs * sizeof(*c->locs));
	r->n++;
	return 0;
}

static void json_reset(void *st)
{
	struct json_render *r = st;

	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].locs);
	r->n = 0;
}

static int json_write(void *st, const struct gh_profile *p, FILE *f,
		      struct gh_err *err)
{
	struct json_render *r = st;
	struct gh_profile q = *p;

	q.samples = r->v;
	q.nsamples = r->n;
	return json_write_profile(f, &q, r->h.o.index, r->h.o.top_n, err);
}

static void json_free(void *st)
{
	struct json_render *r = st;

	if (!r)
		return;
	json_reset(r);
	free(r->v);
	free(r);
}

const struct render_ops render_json = {
	.format = GH_FORMAT_JSON,
	.open = json_open,
	.sink = {json_sample, json_reset, NULL, json_free},
	.write = json_write,
};
