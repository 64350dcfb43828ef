/* gsnap.c - the goroutine profile's goroutines, read from outside.
 * Which ones: what goroutineProfileWithLabels keeps, every g not _Gdead
 * (nor 1.26's _Gdeadextra) and not a system goroutine (isSystemGoroutine
 * with fixed=false, traceback.go: by its start function). Each g is read,
 * its stack unwound, and the g read again: when what says where it is
 * (status, ID, saved SP and PC, ...) changed in between, the stack may be
 * torn, and it is tried again, then left out and counted. A goroutine
 * running while read has no saved registers to unwind from: it is a
 * sample without a stack (its creation site in its place, a label
 * "state":"running" on it), counted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "goroutine/glabels.h"
#include "goroutine/gsnap.h"

#define TRIES 3
/* traceback prints 100 frames at most (50 innermost, 50 outermost). */
#define TRACE_MAX	256
#define FING_RUNNING_FN 2 /* mfinal.go fingRunningFinalizer */

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* isSystemGoroutine(gp, false). */
static bool is_system(const struct gsnap_env *e, const struct grec *g)
{
	const struct glayout *L = e->u.L;
	struct gofunc f;
	uint32_t fing = 0;

	if (!pcln__func_at(e->u.pcln, g->startpc - e->u.bias, &f))
		return false;
	if (!strcmp(f.name, "runtime.main") ||
	    !strcmp(f.name, "runtime.handleAsyncEvent") ||
	    (L->corostart_user && !strcmp(f.name, "runtime.corostart")))
		return false;
	if (!strcmp(f.name, L->finalizer_fn)) {
		if (!e->fing_var ||
		    e->u.fetch->read(e->u.fetch->ctx, e->fing_var, &fing,
				     L->fing == GFING_BOOL ? 1 : 4) < 0)
			return true;
		return L->fing == GFING_BOOL ? !(fing & 0xff)
					     : !(fing & FING_RUNNING_FN);
	}
	if (L->cleanup_fn && !strcmp(f.name, L->cleanup_fn))
		return !g->running_cleanups;
	return has_prefix(f.name, "runtime.");
}

static void gsample__free_trace(struct gsample *g)
{
	for (size_t i = 0; i < g->ntrace; i++)
		free(g->trace[i].args);
	free(g->trace);
	g->trace = NULL;
	g->ntrace = 0;
}

static void gsample__free_labels(struct gsample *g)
{
	for (size_t i = 0; i < 2 * g->nkv; i++)
		free(g->kv[i]);
	free(g->kv);
	free(g->labels);
	free(g->header_labels);
	g->kv = NULL;
	g->nkv = 0;
	g->labels = g->header_labels = NULL;
}

static bool dead(const struct glayout *L, uint32_t st)
{
	return st == GST_DEAD || (L->has_leaked && st == GST_DEADEXTRA);
}

enum outcome { KEEP, SKIP_DEAD, SKIP_SYSTEM, MOVED, BROKEN, NOLABELS };

/* One goroutine at addr: read, unwind, read again; tried again while it
 * moves. */
static enum outcome read_one(const struct gsnap_env *e, uint64_t addr,
			     struct gsample *out, uint64_t *pcs,
			     struct gtrace *tr, struct gintern *in)
{
	const struct gfetch *f = e->u.fetch;
	const struct gfetch *rf = e->refetch ? e->refetch : f;
	const struct gfetch *lf = e->labels_fetch ? e->labels_fetch : f;
	int tries = e->tries > 0 ? e->tries : TRIES;
	struct grec a, b;
	enum outcome o = MOVED;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	for (int t = 0; t < tries; t++) {
		if (tr)
			gtrace__reset(tr);
		if (grec__read(&a, e->u.L, f, addr) < 0)
			return MOVED;
		if (dead(e->u.L, a.status))
			return SKIP_DEAD;
		if (is_system(e, &a))
			return SKIP_SYSTEM;
		/* Running outside a system call: nothing saved to unwind. */
		out->running = a.status == GST_RUNNING && !a.syscallsp;
		n = 0;
		o = KEEP;
		if (a.status == GST_COPYSTACK)
			o = MOVED; /* its stack is being moved */
		else if (!out->running &&
			 gunwind(&e->u, &a, pcs, e->u.L->max_frames, &n, tr) !=
				 GUNWIND_OK)
			o = BROKEN;
		if (o == KEEP && (a.labels || out->running)) {
			out->labels = glabels_read(
				e->u.L, lf, a.labels, out->running,
				&out->header_labels, &out->kv, &out->nkv);
			if (!out->labels)
				o = NOLABELS;
		}
		if (grec__read(&b, e->u.L, rf, addr) < 0)
			o = MOVED;
		else if (!grec__same(&a, &b))
			o = MOVED;
		/* Unmoved: what was read is what the g holds, so a frame
		 * check that failed failed on a stack that did not change. */
		if (o != MOVED)
			break;
		gsample__free_labels(out);
	}
	if (tr && (o != KEEP || out->running))
		gtrace__reset(tr); /* one given up, or a running one's */
	if (o != KEEP) {
		gsample__free_labels(out);
		return o;
	}
	out->g = a;
	if (out->running) {
		/* Its creation site stands for it (a return PC, as in a
		 * stack). */
		pcs[0] = a.gopc;
		n = 1;
	}
	/* The stack and labels as the store holds them: one copy for
	 * every goroutine parked where this one is. */
	out->pcs = gintern__pcs(in, pcs, n);
	if (out->labels &&
	    gintern__labels(in, &out->labels, &out->header_labels, &out->kv,
			    &out->nkv))
		out->pcs = NULL;
	if (tr && !out->running && tr->n && out->pcs) {
		out->trace = malloc(tr->n * sizeof(*tr->v));
		if (out->trace) {
			/* The argument texts go with them. */
			memcpy(out->trace, tr->v, tr->n * sizeof(*tr->v));
			out->ntrace = tr->n;
			tr->n = 0;
		}
	}
	if (!out->pcs || (tr && !out->running && tr->n && !out->trace)) {
		if (tr)
			gtrace__reset(tr);
		gsample__free_trace(out);
		/* Labels interned are the store's: not freed here. */
		memset(out, 0, sizeof(*out));
		return MOVED;
	}
	out->npcs = n;
	return KEEP;
}

int gsnap__read(struct gsnap *s, const struct gsnap_env *e)
{
	struct gtframe tv[TRACE_MAX];
	struct gtrace tr = {tv, 0, TRACE_MAX};
	struct timespec ts;
	uint64_t *gs, *pcs;
	size_t n;
	bool more;

	memset(s, 0, sizeof(*s));
	if (gread_all(e->u.fetch, e->allglen, e->allgptr, e->max_goroutines,
		      &gs, &n, &more) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->now_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	s->allglen = n;
	if (more) {
		s->partial = true;
		snprintf(s->reason, sizeof(s->reason),
			 "more than --max-goroutines %zu goroutines: the "
			 "first %zu of runtime.allgs were read",
			 e->max_goroutines, n);
	}
	/* One sample per g listed, at most max_goroutines: pages of it
	 * the kept ones never reach are never touched. */
	s->v = calloc(n ? n : 1, sizeof(*s->v));
	s->in = calloc(1, sizeof(*s->in));
	pcs = malloc(e->u.L->max_frames * sizeof(*pcs));
	if (!s->v || !s->in || !pcs) {
		free(gs);
		free(pcs);
		free(s->v);
		free(s->in);
		s->v = NULL;
		s->in = NULL;
		return errno = ENOMEM, -1;
	}
	for (size_t i = 0; i < n; i++) {
		switch (read_one(e, gs[i], &s->v[s->n], pcs,
				 e->want_trace ? &tr : NULL, s->in)) {
		case KEEP:
			s->running += s->v[s->n].running;
			s->n++;
			break;
		case SKIP_DEAD:
			s->dead++;
			break;
		case SKIP_SYSTEM:
			s->system++;
			break;
		case MOVED:
			s->changed++;
			break;
		case BROKEN:
			s->broken++;
			break;
		case NOLABELS:
			s->nolabels++;
			break;
		}
	}
	free(gs);
	free(pcs);
	return 0;
}

void gsnap__free(struct gsnap *s)
{
	for (size_t i = 0; s->v && i < s->n; i++)
		gsample__free_trace(&s->v[i]);
	free(s->v);
	if (s->in) {
		gintern__free(s->in);
		free(s->in);
	}
	memset(s, 0, sizeof(*s));
}
