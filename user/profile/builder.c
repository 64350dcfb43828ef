/* builder.c - from buckets to the heap profile runtime/pprof would write: the
 * counters Go's MemProfile would publish at this instant (counts.c), and
 * stacks turned into locations the way runtime/pprof's protomem.go does it
 * (locations.c), one bucket at a time in allnext order.
 *
 * Whether any bucket has published counters decides how every bucket is
 * read (memProfileInternal's "clear" case), and it is known only once one
 * is seen: buckets before the first published one wait in a queue. In a
 * process that has run a GC that is the few newest buckets. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/err.h"
#include "profile/builder.h"
#include "profile/countcycle.h"
#include "profile/counts.h"
#include "profile/frames.h"
#include "profile/locations.h"
#include "profile/locmemo.h"
#include "profile/mappings.h"
#include "profile/profile.h"
#include "profile/summary.h"
#include "profile/targetmath.h"
#include "target/target.h"

/* A bucket waiting for the published/not-yet decision. */
struct pending {
	struct bucket b;
	uint64_t *stk;
};

struct view {
	const struct target *t;
	enum gh_kind kind; /* heap: streamed; block, mutex: queued, sorted */
	const struct contention_layout *cl;
	bool keep;
	struct psink *sinks;
	size_t nsinks;
	struct buildids *ids;
	struct gh_profile *p;
	struct symcache *sc; /* the target's, kept across snapshots */
	struct locbuilder lb;
	struct memouse mu; /* the process's kept locations, and their use */
	struct publish pub;
	bool started;	/* pub taken from the snapshot's variables */
	bool published; /* a bucket with published counters was seen */
	size_t samples_cap;
	struct pending *pend;
	size_t npend, pend_cap;
	size_t torn; /* buckets caught mid-flush */
	struct summary sum;
	/* for sinks that want each bucket raw (psink_ops.raw) */
	bool want_raw;
	struct framer fr;
	struct ptext_rules rules;
};

static int init_profile(struct view *v, struct gh_err *err)
{
	bool fake;

	v->p = calloc(1, sizeof(*v->p));
	if (!v->p || !(v->p->x = calloc(1, sizeof(*v->p->x))))
		return err_set(err, GH_E_FAILED, "out of memory");
	/* The sinks ask the kind (gh_profile__kind) as samples arrive. */
	v->p->x->kind = v->kind;
	if (mappings_build(v->t->pid, &v->t->maps, v->ids, v->p, err))
		return -1;
	fake = !v->p->nmappings;
	if (fake && mappings_add_fake(v->p, err))
		return -1;
	if (locbuilder__init(&v->lb, v->p, v->sc, v->t->go->pcln,
			     v->t->go->layout, v->t->bias))
		return err_set(err, GH_E_FAILED, "out of memory");
	v->lb.fake_mapping = fake;
	memouse__start(&v->mu, v->p, &v->lb);
	return 0;
}

int view__new(const struct target *t, const struct view_opts *o,
	      struct view **out, struct gh_err *err)
{
	struct view *v = calloc(1, sizeof(*v));

	*out = NULL;
	if (!v) {
		psinks_free(o->sinks, o->nsinks);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	v->t = t;
	v->kind = o->kind;
	v->cl = o->cl;
	v->keep = o->keep;
	v->sinks = o->sinks;
	v->nsinks = o->nsinks;
	v->ids = o->ids;
	v->mu.m = o->kind == GH_KIND_HEAP ? o->memo : NULL;
	v->sc = &t->bin->sc;
	for (size_t i = 0; i < v->nsinks; i++)
		v->want_raw |= v->sinks[i].ops->raw != NULL;
	framer__init(&v->fr, v->sc, t->bias, t->go->layout->frame_names);
	v->rules = (struct ptext_rules){
		.ascending = t->go->layout->text_ascending,
		.pdqsort = t->go->layout->text_pdqsort,
		.xorshift_7_17 = t->go->layout->text_xorshift_7_17,
		.alloc_bump = t->go->layout->text_alloc_bump,
		.hide_internal = t->go->layout->hide_internal_runtime,
	};
	if (init_profile(v, err)) {
		view__free(v);
		return -1;
	}
	*out = v;
	return 0;
}

static void drop_pending(struct view *v)
{
	size_t i;

	for (i = 0; i < v->npend; i++)
		free(v->pend[i].stk);
	v->npend = 0;
}

/* Forget everything built so far; the symbol cache stays (it is the
 * binary's and knows nothing of this profile), and so do the sinks. */
static void drop_profile(struct view *v)
{
	memouse__drop(&v->mu, v->p, &v->lb);
	locbuilder__free(&v->lb);
	gh_profile__free(v->p);
	v->p = NULL;
	drop_pending(v);
	v->samples_cap = 0;
	v->started = v->published = false;
	v->torn = 0;
	summary__reset(&v->sum);
}

void view__free(struct view *v)
{
	if (!v)
		return;
	drop_profile(v);
	psinks_free(v->sinks, v->nsinks);
	framer__free(&v->fr);
	free(v->pend);
	free(v);
}

void view__restart(void *view)
{
	struct view *v = view;
	struct gh_err err;

	if (v->p && !v->started)
		return; /* nothing added yet */
	drop_profile(v);
	for (size_t i = 0; i < v->nsinks; i++)
		if (v->sinks[i].ops->reset)
			v->sinks[i].ops->reset(v->sinks[i].st);
	/* Out of memory here leaves v->p NULL: the next add fails. */
	init_profile(v, &err);
}

/* The variables are read before the first bucket arrives. */
static void start(struct view *v, const struct snapshot *s)
{
	const struct layout *L = v->t->go->layout;

	v->pub.layout = L;
	v->pub.rate = (int64_t)s->vars[GH_VAR_RATE];
	v->pub.cycle = counts_cycle(L, s->vars[GH_VAR_CYCLE]);
	v->pub.math = target__math(v->t, s);
	v->pub.all_futures = false;
	v->started = true;
}

/* The sample's location ids: ids[0..n) itself when the sample goes to
 * the sinks at once (scratch ids, or the memo's, will do), else a copy. */
static int set_locs(const struct view *v, struct gh_sample *smp, uint32_t *ids,
		    uint32_t n)
{
	smp->nlocs = n;
	if (!v->keep) {
		smp->locs = ids;
		return 0;
	}
	smp->locs = malloc((n ? n : 1) * sizeof(*smp->locs));
	if (!smp->locs)
		return -1;
	memcpy(smp->locs, ids, n * sizeof(*ids));
	return 0;
}

/* The sample's locations, built from link-time stack stk[0..n), leading
 * runtime frames hidden (heap) or not (block, mutex). */
static int sample_stack(struct view *v, const uint64_t *stk, size_t n,
			struct gh_sample *smp, bool hide)
{
	if (locbuilder__sample(&v->lb, stk, n, hide))
		return -1;
	return set_locs(v, smp, v->lb.out, (uint32_t)v->lb.nout);
}

/* Bucket b's sample's locations (buf: its stack, link-time): the memo's
 * for a bucket the memo has, built otherwise. */
static int locate(struct view *v, const struct bucket *b, const uint64_t *buf,
		  struct gh_sample *smp)
{
	uint32_t *ids, n;
	if (memouse__take(&v->mu, b->addr, &ids, &n))
		return set_locs(v, smp, ids, n);
	if (sample_stack(v, buf, b->nstk, smp, true))
		return -1;
	memouse__built(&v->mu, b->addr, smp->locs, smp->nlocs);
	return 0;
}

/* Where the next sample goes: the profile, or a scratch one to pass on. */
static struct gh_sample *next_sample(struct view *v, struct gh_sample *tmp)
{
	struct gh_profile *p = v->p;

	memset(tmp, 0, sizeof(*tmp));
	if (!v->keep)
		return tmp;
	if (p->nsamples == v->samples_cap) {
		size_t ncap = v->samples_cap ? v->samples_cap * 2 : 1024;
		void *ns = realloc(p->samples, ncap * sizeof(*p->samples));

		if (!ns)
			return NULL;
		p->samples = ns;
		v->samples_cap = ncap;
	}
	p->samples[p->nsamples] = *tmp;
	return &p->samples[p->nsamples++];
}

/* r to the sinks that want it raw, its frames those of its stack
 * (linktime: r->stk in link-time addresses). */
static int raw_to_sinks(struct view *v, struct praw *r,
			const uint64_t *linktime)
{
	if (framer__frames(&v->fr, linktime, r->nstk, &r->nframes))
		return -1;
	r->frames = v->fr.v;
	for (size_t i = 0; i < v->nsinks; i++)
		if (v->sinks[i].ops->raw &&
		    v->sinks[i].ops->raw(v->sinks[i].st, v->p, r))
			return -1;
	return 0;
}

/* The bucket raw, to the sinks that want it: its published counters,
 * its stack (stk, runtime PCs; buf, link-time) and that stack's frames. */
static int emit_raw(struct view *v, const struct counts *c, const uint64_t *stk,
		    const uint64_t *buf, size_t n)
{
	struct praw r = {
		.alloc_objects = (int64_t)c->allocs,
		.free_objects = (int64_t)c->frees,
		.alloc_bytes = (int64_t)c->alloc_bytes,
		.free_bytes = (int64_t)c->free_bytes,
		.stk = stk,
		.nstk = n,
		.rules = &v->rules,
	};

	return raw_to_sinks(v, &r, buf);
}

/* One bucket becomes one sample, zero ones included. Stacks hold runtime
 * return PCs; pclntab speaks link-time addresses. */
static int emit(struct view *v, const struct bucket *b, const uint64_t *stk)
{
	struct counts c = counts_of(&v->pub, b);
	struct gh_sample tmp, *smp = next_sample(v, &tmp);
	uint64_t buf[GH_MAX_STACK];
	uint32_t i;

	if (!smp || b->nstk > GH_MAX_STACK)
		return -1;
	v->torn += counts__untear(&c);
	counts__sample(&v->pub, b, &c, smp);
	if (smp->value[GH_INUSE_OBJECTS] > 0)
		v->p->nbuckets_inuse++;
	for (i = 0; i < b->nstk; i++)
		buf[i] = stk[i] - v->t->bias;
	if (locate(v, b, buf, smp))
		return -1;
	summary__add(&v->sum, v->p, smp);
	for (i = 0; i < v->nsinks; i++)
		if (v->sinks[i].ops->sample &&
		    v->sinks[i].ops->sample(v->sinks[i].st, v->p, smp))
			return -1;
	return v->want_raw ? emit_raw(v, &c, stk, buf, b->nstk) : 0;
}

static int flush_pending(struct view *v)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < v->npend && !rc; i++)
		rc = emit(v, &v->pend[i].b, v->pend[i].stk);
	drop_pending(v);
	return rc;
}

static int enqueue(struct view *v, const struct bucket *b, const uint64_t *stk)
{
	struct pending *q;

	if (v->npend == v->pend_cap) {
		size_t ncap = v->pend_cap ? v->pend_cap * 2 : 64;
		void *np = realloc(v->pend, ncap * sizeof(*v->pend));

		if (!np)
			return -1;
		v->pend = np;
		v->pend_cap = ncap;
	}
	q = &v->pend[v->npend];
	q->b = *b;
	q->stk = malloc((b->nstk ? b->nstk : 1) * sizeof(*stk));
	if (!q->stk)
		return -1;
	memcpy(q->stk, stk, b->nstk * sizeof(*stk));
	v->npend++;
	return 0;
}

int view__add(void *view, const struct snapshot *s, const struct bucket *b,
	      const uint64_t *stk)
{
	struct view *v = view;
	struct counts c;

	if (!v->p)
		return -1;
	if (!v->started)
		start(v, s);
	if (v->kind != GH_KIND_HEAP)
		return enqueue(v, b, stk); /* sorted once all are in */
	if (v->published)
		return emit(v, b, stk);
	c = counts_of(&v->pub, b);
	if (!c.allocs && !c.frees)
		return enqueue(v, b, stk);
	v->published = true;
	if (flush_pending(v))
		return -1;
	return emit(v, b, stk);
}

/* The reasons a process has no heap profile to give. */
static int check_profiling(const struct view *v, const struct snapshot *s,
			   struct gh_err *err)
{
	const struct target *t = v->t;

	if (!snapshot__var_ok(s, t, GH_VAR_RATE) ||
	    !snapshot__var_ok(s, t, GH_VAR_CYCLE))
		return err_set(err, GH_E_FAILED,
			       "cannot read runtime.MemProfileRate or the "
			       "profile cycle of process %d",
			       t->pid);
	if (snapshot__var_ok(s, t, GH_VAR_DISABLE) &&
	    (s->vars[GH_VAR_DISABLE] & 0xff))
		return err_set(err, GH_E_DISABLED,
			       "memory profiling is disabled in process %d: "
			       "the linker removed it because nothing in the "
			       "program imports runtime/pprof; import "
			       "runtime/pprof (or net/http/pprof) in the "
			       "program and rebuild it",
			       t->pid);
	if (v->pub.rate == 0)
		return err_set(err, GH_E_DISABLED,
			       "memory profiling is off in process %d "
			       "(runtime.MemProfileRate is 0); the program "
			       "must leave MemProfileRate > 0 (and not set "
			       "GODEBUG=memprofilerate=0)",
			       t->pid);
	if (!s->nbuckets && !s->partial)
		return err_set(err, GH_E_NODATA,
			       "process %d has not sampled any allocation "
			       "yet (runtime.mbuckets is empty); try again "
			       "once it has allocated about MemProfileRate "
			       "(%lld) bytes",
			       t->pid, (long long)v->pub.rate);
	return 0;
}

static void fill_header(struct view *v, const struct snapshot *s)
{
	struct gh_profile *p = v->p;

	profile__identify(p, v->t);
	p->period = v->pub.rate;
	p->time_ns = clock_wall_ns();
	p->duration_ms = s->read_ms;
	p->read_bytes = s->read_bytes;
	p->target_cpu_ns = s->target_cpu_ns;
	p->nbuckets = s->nbuckets;
	summary__fill(&v->sum, p);
	if (s->partial) {
		p->status = GH_SNAP_PARTIAL;
		snprintf(p->status_reason, sizeof(p->status_reason), "%s",
			 s->reason);
	} else if (v->torn) {
		p->status = GH_SNAP_PARTIAL;
		snprintf(p->status_reason, sizeof(p->status_reason),
			 "the counters of %zu buckets changed while they were "
			 "read (a profile flush was under way)",
			 v->torn);
	}
}

/* The sinks are done, and pass to the profile: what they aggregated is
 * rendered from there. */
static int finish_sinks(struct view *v, struct gh_err *err)
{
	struct gh_profile_x *x = v->p->x;

	x->kept = v->keep;
	x->sinks = v->sinks;
	x->nsinks = v->nsinks;
	v->sinks = NULL;
	v->nsinks = 0;
	for (size_t i = 0; i < x->nsinks; i++)
		if (x->sinks[i].ops->finish &&
		    x->sinks[i].ops->finish(x->sinks[i].st, v->p, err))
			return -1;
	return 0;
}

/* printCountCycleProfile's largest stack: profstackdepth's default (a
 * GODEBUG that changes it is not read). */
#define PROFSTACKDEPTH 128

/* The record raw, to the sinks that want it (the legacy text): its
 * count and cycles, and its stack stk[0..n) (link-time) as
 * writeProfileInternal prints it, in the target's addresses. */
static int emit_contention_raw(struct view *v, const struct crec *c,
			       const uint64_t *stk, size_t n)
{
	uint64_t pcs[GH_MAX_STACK];
	struct praw r = {.count = c->count,
			 .cycles = c->cycles,
			 .stk = pcs,
			 .nstk = n,
			 .rules = &v->rules};

	for (size_t i = 0; i < n; i++)
		pcs[i] = stk[i] + v->t->bias;
	return raw_to_sinks(v, &r, stk);
}

/* One block or mutex record (r: its bucket, in pprof's order) becomes a
 * sample: stacks as pprof takes them, no runtime frame hidden. */
static int emit_contention(struct view *v, const struct crec *r, int64_t rate,
			   int64_t tps, enum gomath m)
{
	const struct pending *q = &v->pend[r->bucket];
	struct gh_sample tmp, *smp = next_sample(v, &tmp);
	uint64_t buf[GH_MAX_STACK], xbuf[PROFSTACKDEPTH];
	const uint64_t *stk = buf;
	size_t n = q->b.nstk;

	if (!smp || n > GH_MAX_STACK)
		return -1;
	contention_values(v->cl, v->kind, rate, tps, m, r, smp->value);
	for (size_t i = 0; i < n; i++)
		buf[i] = q->stk[i] - v->t->bias;
	if (v->cl->expand_frames) {
		n = pcln__callers_frames(v->t->go->pcln, buf, n, xbuf,
					 PROFSTACKDEPTH);
		stk = xbuf;
	}
	if (sample_stack(v, stk, n, smp, false))
		return -1;
	v->p->total[GH_CONTENTIONS] += smp->value[GH_CONTENTIONS];
	v->p->total[GH_DELAY] += smp->value[GH_DELAY];
	for (size_t i = 0; i < v->nsinks; i++)
		if (v->sinks[i].ops->sample &&
		    v->sinks[i].ops->sample(v->sinks[i].st, v->p, smp))
			return -1;
	return v->want_raw ? emit_contention_raw(v, r, stk, n) : 0;
}

/* The block or mutex profile, from every bucket queued: the records
 * sorted as writeProfileInternal sorts them, then one sample each. */
static int finish_contention(struct view *v, const struct snapshot *s,
			     struct gh_profile **out, struct gh_err *err)
{
	const struct target *t = v->t;
	bool arm64 = elffile__machine(t->go->elf) == EM_AARCH64;
	enum gomath m = arm64 ? GOMATH_ARM64 : GOMATH_AMD64_SSE2;
	bool block = v->kind == GH_KIND_BLOCK;
	int64_t rate = (int64_t)s->vars[GH_VAR_BM_RATE], tps, tot[2];
	const char *how = "";
	struct crec *r;
	int rc = 0;

	if (s->var_err & (1u << GH_VAR_BM_RATE))
		return err_set(err, GH_E_FAILED,
			       "cannot read runtime.%s of process %d; try "
			       "again, or with --backend procmem",
			       block ? "blockprofilerate" : "mutexprofilerate",
			       t->pid);
	if (!rate && !v->npend && !s->partial)
		return err_set(
			err, GH_E_DISABLED,
			"%s profiling is not enabled in process %d (runtime.%s "
			"is 0 and it has no records); the program must call "
			"%s with a rate above 0 to turn it on",
			block ? "block" : "mutex", t->pid,
			block ? "blockprofilerate" : "mutexprofilerate",
			block ? "runtime.SetBlockProfileRate"
			      : "runtime.SetMutexProfileFraction");
	if (contention_ticks(v->cl, s->vars, s->var_err, arm64, &tps, &how,
			     err))
		return -1;
	r = malloc((v->npend ? v->npend : 1) * sizeof(*r));
	if (!r)
		return err_set(err, GH_E_FAILED, "out of memory");
	for (size_t i = 0; i < v->npend; i++)
		r[i] = crec_of(v->pend[i].b.rec, v->kind, m, i);
	contention_sort(r, v->npend, t->go->layout);
	for (size_t i = 0; i < v->npend && !rc; i++)
		rc = emit_contention(v, &r[i], rate, tps, m);
	free(r);
	drop_pending(v);
	if (rc || locbuilder__finish(&v->lb))
		return err_set(err, GH_E_FAILED,
			       "out of memory building the profile");
	tot[0] = v->p->total[0];
	tot[1] = v->p->total[1];
	fill_header(v, s);
	v->p->total[0] = tot[0];
	v->p->total[1] = tot[1];
	v->p->period = 1; /* printCountCycleProfile's */
	v->p->x->cycles_per_second = tps;
	v->p->x->rate = rate;
	snprintf(v->p->x->notes, sizeof(v->p->x->notes), "%s", how);
	if (finish_sinks(v, err))
		return -1;
	*out = v->p;
	v->p = NULL;
	return 0;
}

int view__finish(struct view *v, const struct snapshot *s,
		 struct gh_profile **out, struct gh_err *err)
{
	*out = NULL;
	if (!v->p)
		return err_set(err, GH_E_FAILED, "out of memory");
	if (!v->started)
		start(v, s);
	if (v->kind != GH_KIND_HEAP)
		return finish_contention(v, s, out, err);
	if (check_profiling(v, s, err))
		return -1;
	/* No bucket has published counters: Go adds every future cycle. */
	v->pub.all_futures = !v->published;
	if (flush_pending(v) || memouse__finish(&v->mu, v->p, &v->lb))
		return err_set(err, GH_E_FAILED,
			       "out of memory building the profile");
	fill_header(v, s);
	if (finish_sinks(v, err))
		return -1;
	*out = v->p;
	v->p = NULL;
	return 0;
}
