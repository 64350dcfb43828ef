/* view.c - from raw buckets to the heap profile runtime/pprof would write
 * (gh_profile__build): the counters Go's MemProfile would publish at this
 * instant, scaled by scaleHeapSample with the target's own exp, and stacks
 * turned into locations the way runtime/pprof's protomem.go does it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "goexp.h"
#include "locations.h"
#include "mappings.h"
#include "snapshot.h"
#include "target.h"

/* One bucket's published counters (runtime.MemProfileRecord). */
struct counts {
	uint64_t allocs, frees, alloc_bytes, free_bytes;
};

struct view {
	const struct gh_target *t;
	const struct gh_snapshot *s;
	const struct gh_layout *L;
	struct gh_profile *p;
	uint32_t cycle;    /* mProfCycle's cycle number */
	bool all_futures;  /* nothing published yet: add every future cycle */
	int64_t rate;
	bool use_fma;
	size_t torn;       /* buckets caught mid-flush */
};

static void add_cycle(struct counts *c, const uint64_t *w, uint32_t cw)
{
	c->allocs += w[0];
	c->frees += w[1];
	if (cw == 4) {
		c->alloc_bytes += w[2];
		c->free_bytes += w[3];
	}
}

/* memProfileInternal first flushes future[cycle%3] into active; when no
 * bucket has anything active after that (no GC has published yet) it adds
 * all three future cycles instead. */
static struct counts bucket_counts(const struct view *v,
				   const struct gh_bucket *b, bool all)
{
	uint32_t cw = v->L->cycle_words, c;
	struct counts r = {0};

	add_cycle(&r, b->rec, cw);
	for (c = 0; c < 3; c++)
		if (all || c == v->cycle % 3)
			add_cycle(&r, b->rec + cw * (1 + c), cw);
	if (cw == 2) {
		r.alloc_bytes = r.allocs * b->size;
		r.free_bytes = r.frees * b->size;
	}
	return r;
}

static bool nothing_published(const struct view *v)
{
	size_t i;

	for (i = 0; i < v->s->nbuckets; i++) {
		struct counts c = bucket_counts(v, &v->s->buckets[i], false);

		if (c.allocs || c.frees)
			return false;
	}
	return true;
}

/* A flush racing with our read can show frees ahead of allocs for a
 * moment; Go never publishes that, so neither do we. */
static void untear(struct view *v, struct counts *c)
{
	if (c->frees <= c->allocs && c->free_bytes <= c->alloc_bytes)
		return;
	v->torn++;
	c->frees = c->frees <= c->allocs ? c->frees : c->allocs;
	if (c->free_bytes > c->alloc_bytes)
		c->free_bytes = c->alloc_bytes;
}

static void sample_values(const struct view *v, const struct gh_bucket *b,
			  const struct counts *c, struct gh_sample *smp)
{
	int64_t allocs = (int64_t)c->allocs, inuse = allocs - (int64_t)c->frees;
	int64_t *val = smp->value;

	if (v->L->scale_by_size) {
		int64_t size = (int64_t)b->size;

		gh_scale_heap_sample_by_size(allocs, size, v->rate, v->use_fma,
					     &val[0], &val[1]);
		gh_scale_heap_sample_by_size(inuse, size, v->rate, v->use_fma,
					     &val[2], &val[3]);
	} else {
		gh_scale_heap_sample(allocs, (int64_t)c->alloc_bytes, v->rate,
				     v->use_fma, &val[0], &val[1]);
		gh_scale_heap_sample(inuse,
				     (int64_t)(c->alloc_bytes - c->free_bytes),
				     v->rate, v->use_fma, &val[2], &val[3]);
	}
	if (v->L->bytes_label_always) {
		smp->bytes_label = (int64_t)b->size;
		smp->has_bytes_label = true;
	} else if (allocs > 0) {
		smp->bytes_label = (int64_t)c->alloc_bytes / allocs;
		smp->has_bytes_label = smp->bytes_label != 0;
	}
}

/* protomem.go: hide leading runtime frames; if that leaves no location,
 * try again with every frame. */
static int sample_stack(struct gh_locbuilder *lb, struct gh_symcache *sc,
			const uint64_t *stk, size_t n, struct gh_sample *smp)
{
	bool hide = true;
	int tries;

	for (tries = 0; tries < 2; tries++, hide = false) {
		size_t i = 0;

		while (hide && i < n) {
			const struct gh_pcframe *f = gh_symcache_get(sc, stk[i]);

			if (!f)
				return -1;
			if (!f->hide)
				break;
			i++;
		}
		if (i == n)
			i = 0; /* all runtime: keep them all */
		if (gh_locbuilder_append(lb, stk + i, n - i))
			return -1;
		if (lb->nout)
			break;
	}
	smp->nlocs = (uint32_t)lb->nout;
	smp->locs = malloc((lb->nout ? lb->nout : 1) * sizeof(*smp->locs));
	if (!smp->locs)
		return -1;
	memcpy(smp->locs, lb->out, lb->nout * sizeof(*smp->locs));
	return 0;
}

/* Stacks hold runtime return PCs; pclntab speaks link-time addresses. */
static const uint64_t *unbias(const struct view *v, const struct gh_bucket *b,
			      uint64_t *buf)
{
	const uint64_t *stk = gh_bucket__stack(v->s, b);
	uint32_t i;

	for (i = 0; i < b->nstk; i++)
		buf[i] = stk[i] - v->t->bias;
	return buf;
}

static int build_samples(struct view *v, struct gh_locbuilder *lb,
			 struct gh_symcache *sc)
{
	struct gh_profile *p = v->p;
	uint64_t buf[GH_MAX_STACK];
	size_t i;

	p->samples = calloc(v->s->nbuckets ? v->s->nbuckets : 1,
			    sizeof(*p->samples));
	if (!p->samples)
		return -1;
	for (i = 0; i < v->s->nbuckets; i++) {
		const struct gh_bucket *b = &v->s->buckets[i];
		struct gh_sample *smp = &p->samples[p->nsamples++];
		struct counts c = bucket_counts(v, b, v->all_futures);

		untear(v, &c);
		sample_values(v, b, &c, smp);
		if (smp->value[GH_INUSE_OBJECTS] > 0)
			p->nbuckets_inuse++;
		if (b->nstk > GH_MAX_STACK ||
		    sample_stack(lb, sc, unbias(v, b, buf), b->nstk, smp))
			return -1;
	}
	return 0;
}

static bool var_ok(const struct gh_target *t, const struct gh_snapshot *s,
		   enum gh_var i)
{
	return t->vars[i] && !(s->var_err & (1u << i));
}

/* The reasons a process has no heap profile to give. */
static int check_profiling(const struct view *v, struct gh_err *err)
{
	const struct gh_snapshot *s = v->s;

	if (!var_ok(v->t, s, GH_VAR_RATE) || !var_ok(v->t, s, GH_VAR_CYCLE))
		return gh_err_set(err, GH_E_FAILED,
				  "cannot read runtime.MemProfileRate or the "
				  "profile cycle of process %d",
				  v->t->pid);
	if (var_ok(v->t, s, GH_VAR_DISABLE) && (s->vars[GH_VAR_DISABLE] & 0xff))
		return gh_err_set(err, GH_E_DISABLED,
				  "memory profiling is disabled in process %d: "
				  "the linker removed it because nothing in the "
				  "program imports runtime/pprof; import "
				  "runtime/pprof (or net/http/pprof) in the "
				  "program and rebuild it",
				  v->t->pid);
	if (v->rate == 0)
		return gh_err_set(err, GH_E_DISABLED,
				  "memory profiling is off in process %d "
				  "(runtime.MemProfileRate is 0); the program "
				  "must leave MemProfileRate > 0 (and not set "
				  "GODEBUG=memprofilerate=0)",
				  v->t->pid);
	if (!s->nbuckets && !s->partial)
		return gh_err_set(err, GH_E_NODATA,
				  "process %d has not sampled any allocation "
				  "yet (runtime.mbuckets is empty); try again "
				  "once it has allocated about MemProfileRate "
				  "(%lld) bytes",
				  v->t->pid, (long long)v->rate);
	return 0;
}

/* math.useFMA picks the exp the target runs; without the variable, exp
 * takes the FMA path exactly when the CPU has FMA and AVX. */
static bool target_uses_fma(const struct gh_target *t,
			    const struct gh_snapshot *s)
{
	if (var_ok(t, s, GH_VAR_USEFMA))
		return s->vars[GH_VAR_USEFMA] & 0xff;
	return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx");
}

static int add_mappings(struct view *v, struct gh_err *err)
{
	struct gh_profile *p = v->p;

	if (gh_mappings_build(v->t->pid, &v->t->maps, p, err))
		return -1;
	if (p->nmappings)
		return 0;
	/* pprof expects a mapping: runtime/pprof fakes one. */
	p->mappings[0].file = strdup("");
	p->mappings[0].build_id = strdup("");
	p->nmappings = 1;
	if (!p->mappings[0].file || !p->mappings[0].build_id)
		return gh_err_set(err, GH_E_FAILED, "out of memory");
	return 0;
}

static void set_status(struct view *v)
{
	struct gh_profile *p = v->p;

	if (v->s->partial) {
		p->status = GH_SNAP_PARTIAL;
		snprintf(p->status_reason, sizeof(p->status_reason), "%s",
			 v->s->reason);
	} else if (v->torn) {
		p->status = GH_SNAP_PARTIAL;
		snprintf(p->status_reason, sizeof(p->status_reason),
			 "the counters of %zu buckets changed while they were "
			 "read (a profile flush was under way)",
			 v->torn);
	}
}

static int build(struct view *v, struct gh_err *err)
{
	const struct gh_target *t = v->t;
	struct gh_locbuilder lb;
	struct gh_symcache sc;
	int rc = 0;

	if (add_mappings(v, err))
		return -1;
	gh_symcache_init(&sc, t->bin->pcln, v->L->hide_internal_runtime);
	if (gh_locbuilder_init(&lb, v->p, &sc, t->bin->pcln, v->L, t->bias) ||
	    build_samples(v, &lb, &sc))
		rc = gh_err_set(err, GH_E_FAILED,
				"out of memory building the profile");
	else
		gh_locbuilder_finish(&lb);
	gh_locbuilder_free(&lb);
	gh_symcache_free(&sc);
	set_status(v);
	return rc;
}

static void fill_header(struct view *v)
{
	struct gh_profile *p = v->p;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	p->pid = v->t->pid;
	snprintf(p->go_version, sizeof(p->go_version), "%s",
		 v->t->bin->version);
	p->period = v->rate;
	p->time_nanos = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	p->duration_ms = v->s->read_ms;
	p->nbuckets = v->s->nbuckets;
}

int gh_profile__build(const struct gh_target *t, const struct gh_snapshot *s,
		      struct gh_profile **out, struct gh_err *err)
{
	struct view v = {.t = t, .s = s, .L = t->bin->layout};

	*out = NULL;
	v.rate = (int64_t)s->vars[GH_VAR_RATE];
	v.cycle = (uint32_t)s->vars[GH_VAR_CYCLE];
	if (v.L->cycle_has_flag_bit)
		v.cycle >>= 1;
	v.use_fma = target_uses_fma(t, s);
	if (check_profiling(&v, err))
		return -1;
	v.p = calloc(1, sizeof(*v.p));
	if (!v.p)
		return gh_err_set(err, GH_E_FAILED, "out of memory");
	v.all_futures = nothing_published(&v);
	fill_header(&v);
	if (build(&v, err)) {
		gh_profile__free(v.p);
		return -1;
	}
	*out = v.p;
	return 0;
}

void gh_profile__free(struct gh_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nsamples; i++)
		free(p->samples[i].locs);
	for (i = 0; i < p->nlocations; i++)
		free(p->locations[i].lines);
	for (i = 0; i < p->nfunctions; i++) {
		free(p->functions[i].name);
		free(p->functions[i].filename);
	}
	for (i = 0; i < p->nmappings; i++) {
		free(p->mappings[i].file);
		free(p->mappings[i].build_id);
	}
	free(p->samples);
	free(p->locations);
	free(p->functions);
	free(p->mappings);
	free(p);
}
