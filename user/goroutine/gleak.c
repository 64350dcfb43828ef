/* gleak.c - the leak view: what a leak of goroutines looks like in
 * memory. A goroutine that never returns waits somewhere (a channel no
 * one sends on, a lock never released, a peer that never answers); many
 * of them wait at the same stack, and for long. So the goroutines that
 * wait (gstates.c's waiting and syscall ones) are grouped by stack and
 * wait reason, and the groups ranked by goroutines, then by their
 * longest wait.
 *
 * A wait is the runtime's own: now (CLOCK_MONOTONIC, the runtime's
 * nanotime) minus g.waitsince, as goroutineheader's "N minutes". Every
 * release from 1.18 to 1.27 sets waitsince in one place, markroot's
 * stack scan (mgcmark.go): a goroutine waiting or in a system call whose
 * waitsince is 0 gets work.tstart; execute and exitsyscall set it back
 * to 0, nothing at park time. work.tstart is written by gcMark, at mark
 * termination, after the stack scan: the scan of cycle N writes the
 * time cycle N-1's mark termination began (0 in the process's first
 * cycle, which thus sets nothing). So a goroutine has a known wait once
 * two GC cycles ran while it waited, and that wait counts from the end
 * of the cycle before the one that first saw it blocked: longer than its
 * real wait when it blocked between the two, shorter when it blocked
 * long before the first. Waits without one are "-" (null in JSON). A
 * group's median is that of its known waits (the lower of the middle two
 * for an even number).
 *
 * The runtime's goroutineleak profile (1.26+) comes from a GC cycle
 * that finds goroutines blocked on what nothing reachable can wake; that
 * cycle runs inside the process, when the program asks, and nothing
 * from outside makes it run. Its verdict shows here only as its mark:
 * a leaked goroutine (status _Gleaked) counts as waiting. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "goroutine/gleak.h"
#include "goroutine/gstates.h"
#include "profile/frames.h"
#include "write/json.h"
#include "write/jsonenc.h"

#define IDS_SHOWN 20 /* the text's goroutine IDs per group */

struct gmember {
	size_t i;	 /* into s->v */
	int64_t wait;	 /* ns; -1 unknown */
	const char *why; /* gsample__waits_for */
};

struct ggroup {
	size_t first, n; /* members[first, first + n) */
	size_t known;	 /* of them, with a known wait (the first ones) */
	int64_t longest, median; /* -1: none known */
};

struct gleak {
	const struct gsnap *s;
	struct gmember *m;
	size_t nm;
	struct ggroup *g;
	size_t ng;
};

static int64_t wait_of(const struct gsnap *s, const struct gsample *g)
{
	int64_t w;

	if (!g->g.waitsince)
		return -1;
	w = gsnap__since(s, g->g.waitsince);
	return w < 0 ? 0 : w;
}

/* The group key: wait reason, then the stack. */
static int cmp_key(const struct gsnap *s, const struct gmember *a,
		   const struct gmember *b)
{
	const struct gsample *x = &s->v[a->i], *y = &s->v[b->i];
	int c = strcmp(a->why, b->why);

	if (c)
		return c;
	if (x->npcs != y->npcs)
		return x->npcs < y->npcs ? -1 : 1;
	for (size_t k = 0; k < x->npcs; k++)
		if (x->pcs[k] != y->pcs[k])
			return x->pcs[k] < y->pcs[k] ? -1 : 1;
	return 0;
}

/* By key, then longest wait first (unknown last), then goroutine ID. */
static int cmp_member(const void *pa, const void *pb, void *ctx)
{
	const struct gsnap *s = ctx;
	const struct gmember *a = pa, *b = pb;
	int c = cmp_key(s, a, b);

	if (c)
		return c;
	if (a->wait != b->wait)
		return a->wait > b->wait ? -1 : 1;
	return s->v[a->i].g.goid < s->v[b->i].g.goid ? -1 : 1;
}

/* Most goroutines first, then the longest wait, then the first ID. */
static int cmp_group(const void *pa, const void *pb, void *ctx)
{
	const struct gleak *l = ctx;
	const struct ggroup *a = pa, *b = pb;
	const struct gmember *x = &l->m[a->first], *y = &l->m[b->first];
	int c;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	if (a->longest != b->longest)
		return a->longest > b->longest ? -1 : 1;
	c = strcmp(x->why, y->why);
	if (c)
		return c;
	return l->s->v[x->i].g.goid < l->s->v[y->i].g.goid ? -1 : 1;
}

/* The waiting goroutines that pass min_wait, grouped and ranked. */
static int gleak__build(struct gleak *l, const struct gsnap *s,
			const struct glayout *L, int64_t min_wait)
{
	memset(l, 0, sizeof(*l));
	l->s = s;
	l->m = malloc((s->n ? s->n : 1) * sizeof(*l->m));
	if (!l->m)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		const char *why = gsample__waits_for(&s->v[i], L);
		int64_t w = wait_of(s, &s->v[i]);

		if (!why || (min_wait > 0 && w < min_wait))
			continue;
		l->m[l->nm++] = (struct gmember){i, w, why};
	}
	qsort_r(l->m, l->nm, sizeof(*l->m), cmp_member, (void *)s);
	l->g = malloc((l->nm ? l->nm : 1) * sizeof(*l->g));
	if (!l->g)
		return -1;
	for (size_t i = 0; i < l->nm; i++) {
		struct ggroup *g = &l->g[l->ng - 1];

		if (!l->ng || cmp_key(s, &l->m[g->first], &l->m[i])) {
			g = &l->g[l->ng++];
			*g = (struct ggroup){
				.first = i, .longest = -1, .median = -1};
		}
		g->n++;
		if (l->m[i].wait >= 0)
			g->known++;
	}
	for (size_t k = 0; k < l->ng; k++) {
		struct ggroup *g = &l->g[k];

		/* The known waits come first, longest first. */
		if (g->known) {
			g->longest = l->m[g->first].wait;
			g->median = l->m[g->first + g->known / 2].wait;
		}
	}
	qsort_r(l->g, l->ng, sizeof(*l->g), cmp_group, l);
	return 0;
}

static void gleak__free(struct gleak *l)
{
	free(l->m);
	free(l->g);
}

/* A wait as a person reads it: 850ms, 12.5s, 3m20s, 2h5m; "-" unknown. */
static const char *dur(int64_t ns, char *b, size_t n)
{
	int64_t s = ns / 1000000000;

	if (ns < 0)
		snprintf(b, n, "-");
	else if (ns < 1000000000)
		snprintf(b, n, "%" PRId64 "ms", ns / 1000000);
	else if (s < 60)
		snprintf(b, n, "%.1fs", (double)ns / 1e9);
	else if (s < 3600)
		snprintf(b, n, "%" PRId64 "m%" PRId64 "s", s / 60, s % 60);
	else
		snprintf(b, n, "%" PRId64 "h%" PRId64 "m", s / 3600,
			 s / 60 % 60);
	return b;
}

/* Member i's frames (framer: one per PC), in fr->v[0, *n). */
static int frames(struct framer *fr, const struct gtext_env *e,
		  const struct gsample *g, size_t *n)
{
	uint64_t stk[256];
	size_t k = g->npcs < 256 ? g->npcs : 256;

	for (size_t i = 0; i < k; i++)
		stk[i] = g->pcs[i] - e->bias;
	return framer__frames(fr, stk, k, n);
}

static bool is_runtime(const char *name)
{
	return !strncmp(name, "runtime.", 8) ||
	       !strncmp(name, "internal/runtime/", 17);
}

/* The first frame a person would look at: past the runtime's own
 * (gopark, chanrecv ...), as printStackRecord hides them; the leaf when
 * all are the runtime's. */
static size_t top_frame(const struct pframe *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (*v[i].function && !is_runtime(v[i].function))
			return i;
	return 0;
}

static void text_states(FILE *f, const struct gstates *st)
{
	fprintf(f,
		"states: %zu running, %zu runnable, %zu waiting, %zu in a "
		"system call, %zu other\n",
		st->running, st->runnable, st->waiting, st->syscall, st->other);
	if (!st->nreasons)
		return;
	fputs("waiting:", f);
	for (size_t i = 0; i < st->nreasons; i++)
		fprintf(f, "%s %zu %s", i ? "," : "", st->reasons[i].n,
			st->reasons[i].reason);
	fputs("\n", f);
}

static void text_group(FILE *f, const struct gleak *l, const struct ggroup *g,
		       const struct pframe *v, size_t nf)
{
	const struct gsnap *s = l->s;
	char lb[32], mb[32];
	size_t k;

	fprintf(f, "\n%zu [%s] longest %s, median %s; goroutines", g->n,
		l->m[g->first].why, dur(g->longest, lb, sizeof(lb)),
		dur(g->median, mb, sizeof(mb)));
	for (k = 0; k < g->n && k < IDS_SHOWN; k++)
		fprintf(f, " %" PRIu64, s->v[l->m[g->first + k].i].g.goid);
	if (g->n > IDS_SHOWN)
		fprintf(f, " ... (%zu more)", g->n - IDS_SHOWN);
	fputs("\n", f);
	for (k = top_frame(v, nf); k < nf; k++) {
		if (!strcmp(v[k].function, "runtime.goexit"))
			continue;
		if (!*v[k].function)
			fprintf(f, "\t%#" PRIx64 "\n", v[k].pc);
		else
			fprintf(f, "\t%s\n\t\t%s:%" PRId64 "\n", v[k].function,
				v[k].file, v[k].line);
	}
}

static void text_head(FILE *f, const struct gsnap *s, const struct gleak *l,
		      const struct gleak_opts *o, const struct gstates *st)
{
	char mw[32];

	fprintf(f, "goroutine leak view: process %d (%s), %zu goroutines\n",
		o->pid, o->go_version, s->n);
	text_states(f, st);
	fputs("wait: the runtime's g.waitsince, set by a GC cycle's stack "
	      "scan to the end of the cycle before (- : not set yet)\n",
	      f);
	if (o->min_wait_ns > 0)
		fprintf(f,
			"--min-wait %s: ", dur(o->min_wait_ns, mw, sizeof(mw)));
	fprintf(f, "%zu goroutines waiting, at %zu stacks\n", l->nm, l->ng);
	if (s->partial)
		fprintf(f, "partial: %s\n", s->reason);
}

static void json_frame(FILE *f, const struct pframe *fr, bool first)
{
	fputs(first ? "\n        {" : ",\n        {", f);
	if (*fr->function) {
		fputs("\"function\": ", f);
		gh_json__quote(f, fr->function);
		fputs(", \"file\": ", f);
		gh_json__quote(f, fr->file);
		fprintf(f, ", \"line\": %" PRId64 "}", fr->line);
	} else
		fprintf(f, "\"pc\": \"%#" PRIx64 "\"}", fr->pc);
}

static void json_wait(FILE *f, const char *name, int64_t ns)
{
	if (ns < 0)
		fprintf(f, ", \"%s\": null", name);
	else
		fprintf(f, ", \"%s\": %" PRId64, name, ns);
}

static void json_group(FILE *f, const struct gleak *l, const struct ggroup *g,
		       const struct pframe *v, size_t nf, bool first)
{
	const struct gsnap *s = l->s;

	fprintf(f, "%s    {\"goroutines\": %zu, \"wait_reason\": ",
		first ? "\n" : ",\n", g->n);
	gh_json__quote(f, l->m[g->first].why);
	json_wait(f, "longest_wait_ns", g->longest);
	json_wait(f, "median_wait_ns", g->median);
	fprintf(f, ", \"waits_known\": %zu, \"top\": ", g->known);
	gh_json__quote(f, nf ? v[top_frame(v, nf)].function : "");
	fputs(",\n      \"stack\": [", f);
	for (size_t k = 0; k < nf; k++)
		json_frame(f, &v[k], k == 0);
	fputs(nf ? "\n      ],\n      \"members\": ["
		 : "],\n      \"members\": [",
	      f);
	for (size_t k = 0; k < g->n; k++) {
		const struct gmember *m = &l->m[g->first + k];

		fprintf(f, "%s{\"id\": %" PRIu64 ", \"waitsince\": %" PRId64,
			k ? ", " : "", s->v[m->i].g.goid,
			s->v[m->i].g.waitsince);
		json_wait(f, "wait_ns", m->wait);
		fputs("}", f);
	}
	fputs("]}", f);
}

static void json_head(FILE *f, const struct gsnap *s, const struct gleak *l,
		      const struct gleak_opts *o, const struct gstates *st,
		      size_t shown)
{
	fprintf(f, "{\n  \"pid\": %d,\n  \"runtime_version\": ", o->pid);
	gh_json__quote(f, o->go_version);
	fprintf(f,
		",\n  \"kind\": \"goroutine\",\n  \"view\": \"leak\",\n  "
		"\"status\": \"%s\",\n  \"status_reason\": ",
		s->partial ? "partial" : "complete");
	gh_json__quote(f, s->partial ? s->reason : "");
	fprintf(f,
		",\n  \"now_ns\": %" PRId64 ",\n  \"min_wait_ns\": %" PRId64
		",\n  \"goroutines\": %zu,\n  \"states\": ",
		s->now_ns, o->min_wait_ns > 0 ? o->min_wait_ns : 0, s->n);
	json_put_states(f, st);
	fprintf(f,
		",\n  \"waiting\": %zu,\n  \"groups_total\": %zu,\n  "
		"\"output_truncated\": %s,\n  \"groups\": [",
		l->nm, l->ng, shown < l->ng ? "true" : "false");
}

static int write_all(const struct gtext_env *e, const struct gleak *l,
		     const struct gleak_opts *o, const struct gstates *st,
		     FILE *f)
{
	size_t shown = o->top_n && o->top_n < l->ng ? o->top_n : l->ng, nf;
	struct framer fr;
	int rc = 0;

	if (o->json)
		json_head(f, l->s, l, o, st, shown);
	else
		text_head(f, l->s, l, o, st);
	framer__init(&fr, e->sc, e->bias, e->layout->frame_names);
	for (size_t k = 0; k < shown; k++) {
		const struct ggroup *g = &l->g[k];

		if (frames(&fr, e, &l->s->v[l->m[g->first].i], &nf) < 0) {
			rc = (errno = ENOMEM, -1);
			break;
		}
		if (o->json)
			json_group(f, l, g, fr.v, nf, k == 0);
		else
			text_group(f, l, g, fr.v, nf);
	}
	framer__free(&fr);
	if (!rc && o->json)
		fputs(shown ? "\n  ]\n}\n" : "]\n}\n", f);
	if (!rc && (fflush(f) || ferror(f)))
		rc = -1;
	return rc;
}

int gleak_write(const struct gtext_env *e, const struct gsnap *s,
		const struct gleak_opts *o, FILE *f)
{
	struct gstates st;
	struct gleak l;
	int rc;

	if (gstates__count(s, e->L, &st))
		return -1;
	if (gleak__build(&l, s, e->L, o->min_wait_ns)) {
		gleak__free(&l);
		gstates__free(&st);
		return errno = ENOMEM, -1;
	}
	rc = write_all(e, &l, o, &st, f);
	gleak__free(&l);
	gstates__free(&st);
	return rc;
}
