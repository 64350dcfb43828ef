/* legacy.c - the legacy text renderer: the heap profile as runtime/pprof
 * writes it for debug=1 (writeHeapInternal in pprof.go; net/http/pprof's
 * /debug/pprof/heap?debug=1): the header "heap profile: ...", then per
 * bucket its MemProfileRecord's counters and raw stack, and the frames
 * printStackRecord prints of it, records sorted by in-use bytes as the
 * target's release sorts them (its sort's own steps, gosort.c: equal
 * records end where its sort puts them), all through text/tabwriter
 * (tabwriter.c).
 * runtime.MemStats, which runtime/pprof appends, cannot be read from
 * outside the process: one comment line says so instead.
 *
 * A block or mutex profile's text is legacy_contention.c's: its records
 * arrive sorted, and this renderer only gathers them.
 *
 * Each bucket's lines are printed as it arrives (raw hook); the sort, the
 * header and the tab alignment come at the end, once, so the text is
 * written any number of times identically. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "profile/gosort.h"
#include "write/legacy_contention.h"
#include "write/render.h"
#include "write/stackrec.h"
#include "write/tabwriter.h"

/* One record: its in-use bytes (the sort key) and lines in blocks. */
struct record {
	int64_t key;
	size_t off, len;
};

struct legacy_render {
	struct render_head h;
	struct pbuf blocks; /* every record's lines, back to back */
	struct record *recs;
	size_t n, cap;
	/* the header's totals, summed as Go's int64s (wrapping) */
	uint64_t alloc_objects, alloc_bytes, free_objects, free_bytes;
	struct ptext_rules rules;
	struct pbuf out; /* the finished text */
	bool finished;
};

static int legacy_open(void **st, const struct gh_write_opts *o,
		       bool own_thread, struct gh_err *err)
{
	struct legacy_render *r = calloc(1, sizeof(*r));

	(void)own_thread;
	*st = r;
	if (!r)
		return err_set(err, GH_E_FAILED, "out of memory");
	r->h = (struct render_head){&render_legacy, *o};
	return 0;
}

static void __attribute__((format(printf, 2, 3)))
put(struct pbuf *b, const char *fmt, ...)
{
	char line[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pbuf__bytes(b, line, n < 0 ? 0 : (size_t)n);
}

static void put_str(struct pbuf *b, const char *s)
{
	pbuf__bytes(b, s, strlen(s));
}

static int64_t minus(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static int legacy_raw(void *st, const struct gh_profile *p,
		      const struct praw *raw)
{
	struct legacy_render *r = st;
	struct record *rec;
	void *v;

	/* a block or mutex record: its lines as they come, in the runtime's
	 * own order */
	if (gh_profile__kind(p) != GH_KIND_HEAP) {
		contention_text_record(&r->blocks, raw);
		return r->blocks.failed ? -1 : 0;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;

		v = realloc(r->recs, cap * sizeof(*r->recs));
		if (!v)
			return -1;
		r->recs = v;
		r->cap = cap;
	}
	rec = &r->recs[r->n++];
	rec->key = minus(raw->alloc_bytes, raw->free_bytes);
	rec->off = r->blocks.len;
	r->rules = *raw->rules;
	r->alloc_objects += (uint64_t)raw->alloc_objects;
	r->alloc_bytes += (uint64_t)raw->alloc_bytes;
	r->free_objects += (uint64_t)raw->free_objects;
	r->free_bytes += (uint64_t)raw->free_bytes;
	put(&r->blocks, "%" PRId64 ": %" PRId64 " [%" PRId64 ": %" PRId64 "] @",
	    minus(raw->alloc_objects, raw->free_objects), rec->key,
	    raw->alloc_objects, raw->alloc_bytes);
	for (size_t i = 0; i < raw->nstk; i++)
		put(&r->blocks, " 0x%" PRIx64, raw->stk[i]);
	put_str(&r->blocks, "\n");
	stack_record_print(&r->blocks, raw->frames, raw->nframes,
			   raw->rules->hide_internal, false);
	rec->len = r->blocks.len - rec->off;
	return r->blocks.failed ? -1 : 0;
}

static void legacy_reset(void *st)
{
	struct legacy_render *r = st;

	r->blocks.len = 0;
	r->blocks.failed = false;
	r->n = 0;
	r->alloc_objects = r->alloc_bytes = 0;
	r->free_objects = r->free_bytes = 0;
	pbuf__free(&r->out);
	r->finished = false;
}

/* The release's sort of the records, step for step, so that equal ones
 * end where the runtime's own sort puts them: by in-use bytes, ascending
 * (slices.SortFunc) or descending (sort.Slice). */
static bool rec_less(void *ctx, long i, long j)
{
	const struct legacy_render *r = ctx;
	int64_t a = r->recs[i].key, b = r->recs[j].key;

	return r->rules.ascending ? a < b : a > b;
}

static void rec_swap(void *ctx, long i, long j)
{
	struct legacy_render *r = ctx;
	struct record t = r->recs[i];

	r->recs[i] = r->recs[j];
	r->recs[j] = t;
}

/* In place of the runtime.MemStats section, which only the process
 * itself can read. */
static const char memstats[] = "\n# runtime.MemStats: not shown: "
			       "goheap-bpf reads the heap profile from "
			       "outside the process\n";

/* A block or mutex profile's text, whole (legacy_contention.c). */
static int contention_finish(struct legacy_render *r,
			     const struct gh_profile *p, struct gh_err *err)
{
	if (contention_text_finish(&r->out, p, &r->blocks))
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the legacy text");
	pbuf__free(&r->blocks);
	r->finished = true;
	return 0;
}

static int legacy_finish(void *st, const struct gh_profile *p,
			 struct gh_err *err)
{
	struct legacy_render *r = st;
	int64_t inuse = (int64_t)(r->alloc_bytes - r->free_bytes);
	int64_t alloc = (int64_t)r->alloc_bytes;
	const struct gosort sort = {rec_less, rec_swap, r,
				    r->rules.xorshift_7_17};
	struct tabwriter tw;
	struct pbuf head = {0};

	if (gh_profile__kind(p) != GH_KIND_HEAP)
		return contention_finish(r, p, err);
	if (r->rules.pdqsort)
		go_pdqsort(&sort, (long)r->n);
	else
		go_quicksort(&sort, (long)r->n);
	/* pprof reads alloc == inuse as a two-column profile */
	if (r->rules.alloc_bump && inuse == alloc)
		alloc = (int64_t)((uint64_t)alloc + 1);
	put(&head,
	    "heap profile: %" PRId64 ": %" PRId64 " [%" PRId64 ": %" PRId64
	    "] @ heap/%" PRId64 "\n",
	    (int64_t)(r->alloc_objects - r->free_objects), inuse,
	    (int64_t)r->alloc_objects, alloc,
	    (int64_t)(2 * (uint64_t)p->period));
	tabwriter__init(&tw, &r->out, 1, 8, 1);
	tabwriter__write(&tw, (const char *)head.data, head.len);
	for (size_t i = 0; i < r->n; i++)
		tabwriter__write(&tw,
				 (const char *)r->blocks.data + r->recs[i].off,
				 r->recs[i].len);
	tabwriter__write(&tw, memstats, sizeof(memstats) - 1);
	tabwriter__flush(&tw);
	if (tw.failed || head.failed || r->out.failed) {
		tabwriter__free(&tw);
		pbuf__free(&head);
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the legacy text");
	}
	tabwriter__free(&tw);
	pbuf__free(&head);
	pbuf__free(&r->blocks);
	free(r->recs);
	r->recs = NULL;
	r->n = r->cap = 0;
	r->finished = true;
	return 0;
}

static int legacy_write(void *st, const struct gh_profile *p, FILE *f,
			struct gh_err *err)
{
	struct legacy_render *r = st;

	(void)p;
	if (!r->finished)
		return err_set(err, GH_E_FAILED,
			       "internal error: the legacy text was not "
			       "finished; please report it");
	if (fwrite(r->out.data, 1, r->out.len, f) != r->out.len || fflush(f) ||
	    ferror(f))
		return err_set(err, GH_E_OUTPUT,
			       "cannot write the legacy text: %s; check the "
			       "output path and free disk space",
			       strerror(errno));
	return 0;
}

static void legacy_free(void *st)
{
	struct legacy_render *r = st;

	if (!r)
		return;
	pbuf__free(&r->blocks);
	pbuf__free(&r->out);
	free(r->recs);
	free(r);
}

const struct render_ops render_legacy = {
	.format = GH_FORMAT_LEGACY,
	.open = legacy_open,
	.sink = {.raw = legacy_raw,
		 .reset = legacy_reset,
		 .finish = legacy_finish,
		 .free = legacy_free},
	.write = legacy_write,
};
