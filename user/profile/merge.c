/* merge.c - profile.Merge of google/pprof (profile/merge.go), step for
 * step: samples keyed by their merged locations and labels and summed
 * (int64, wrapping), all-zero samples dropped (the merge run again over
 * its own result when any sum came to zero, which also drops what no
 * sample refers to any more); locations keyed by merged mapping, address
 * within it and lines; functions by name, file and start line; mappings by
 * size rounded up to 4 KiB, offset and build ID (else file). Tables grow
 * in the order Merge meets their entries, so the result numbers them as
 * Merge does. A source may be scaled by -1 and labelled pprof::base
 * first, as serveDeltaProfile and go tool pprof -diff_base do. A
 * goroutine profile's string labels are part of its samples' keys (as a
 * set: sampleKey sorts them) and go with the merged sample, the first
 * source sample's, as mapSample copies them. */
#include <stdlib.h>
#include <string.h>

#include "base/u64map.h"
#include "profile/goexp.h"
#include "profile/labelset.h"
#include "profile/merge.h"
#include "profile/sink.h"

/* A source mapping's place in the result: mapInfo. */
struct mapinfo {
	uint32_t m;	/* 1 + the result mapping; 0: none */
	int64_t offset; /* add to the source's addresses */
	bool known;
};

/* One Merge: the result being built, and the source being merged. */
struct merger {
	struct gh_profile *p;
	size_t sample_cap, loc_cap, func_cap, map_cap, label_cap;
	struct u64map samples, locs, funcs, maps; /* key hash -> index */
	/* the source being merged: its tables' places in the result
	 * (locationsByID, functionsByID, mappingsByID) */
	const struct merge_src *src;
	uint32_t *loc_of, *func_of; /* 1 + the result's index; 0: not yet */
	struct mapinfo *map_of;
	uint32_t *ids; /* one sample's merged location ids */
};

static const char *str(const char *s)
{
	return s ? s : "";
}

static uint64_t mix(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ h >> 29;
}

/* Room for one more entry in *v (n used of *cap, each size bytes). */
static int grow(void **v, size_t n, size_t *cap, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	void *nv;

	if (n < *cap)
		return 0;
	if (ncap > UINT32_MAX || !(nv = realloc(*v, ncap * size)))
		return -1;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* ---- mappings ---- */

/* Mapping.key: size rounded up to 4 KiB, offset, build ID or file. */
struct mapkey {
	uint64_t size, offset;
	const char *id;
};

static struct mapkey mapkey_of(const struct gh_mapping *m)
{
	uint64_t size = m->limit - m->start + 0xfff;

	return (struct mapkey){size - size % 0x1000, m->offset,
			       *str(m->build_id) ? m->build_id : str(m->file)};
}

struct map_probe {
	const struct gh_profile *p;
	const struct mapkey *k;
};

static bool map_eq(void *ctx, uint32_t i)
{
	const struct map_probe *pr = ctx;
	struct mapkey k = mapkey_of(&pr->p->mappings[i]);

	return k.size == pr->k->size && k.offset == pr->k->offset &&
	       strcmp(k.id, pr->k->id) == 0;
}

static int add_mapping(struct merger *mg, const struct gh_mapping *sm,
		       uint64_t h)
{
	struct gh_profile *p = mg->p;
	struct gh_mapping *m;

	if (grow((void **)&p->mappings, p->nmappings, &mg->map_cap, sizeof(*m)))
		return -1;
	m = &p->mappings[p->nmappings];
	*m = *sm;
	m->file = strdup(str(sm->file));
	m->build_id = strdup(str(sm->build_id));
	if (!m->file || !m->build_id) {
		free(m->file);
		free(m->build_id);
		return -1;
	}
	p->nmappings++;
	return u64map__put(&mg->maps, h, (uint32_t)(p->nmappings - 1));
}

/* mapMapping for the source's mapping j (1-based; 0: none). */
static int map_mapping(struct merger *mg, uint32_t j, struct mapinfo *out)
{
	const struct gh_mapping *sm;
	struct mapkey k;
	struct map_probe pr = {mg->p, &k};
	uint64_t h;
	uint32_t i;

	*out = (struct mapinfo){0};
	if (!j)
		return 0;
	if (mg->map_of[j - 1].known) {
		*out = mg->map_of[j - 1];
		return 0;
	}
	sm = &mg->src->p->mappings[j - 1];
	k = mapkey_of(sm);
	h = mix(mix(hash_str(k.id), k.size), k.offset);
	if (u64map__get(&mg->maps, h, map_eq, &pr, &i)) {
		/* int64(m.Start) - int64(src.Start), wrapping as Go does */
		out->offset = (int64_t)(mg->p->mappings[i].start - sm->start);
	} else {
		if (add_mapping(mg, sm, h))
			return -1;
		i = (uint32_t)(mg->p->nmappings - 1);
	}
	out->m = i + 1;
	out->known = true;
	mg->map_of[j - 1] = *out;
	return 0;
}

/* ---- functions ---- */

struct func_probe {
	const struct gh_profile *p;
	const struct gh_function *f;
};

static bool func_eq(void *ctx, uint32_t i)
{
	const struct func_probe *pr = ctx;
	const struct gh_function *a = &pr->p->functions[i], *b = pr->f;

	return a->start_line == b->start_line &&
	       strcmp(a->name, str(b->name)) == 0 &&
	       strcmp(a->filename, str(b->filename)) == 0;
}

static int add_function(struct merger *mg, const struct gh_function *sf,
			uint64_t h, uint32_t *out)
{
	struct gh_profile *p = mg->p;
	struct gh_function *f;

	if (grow((void **)&p->functions, p->nfunctions, &mg->func_cap,
		 sizeof(*f)))
		return -1;
	f = &p->functions[p->nfunctions];
	f->name = strdup(str(sf->name));
	f->filename = strdup(str(sf->filename));
	f->start_line = sf->start_line;
	if (!f->name || !f->filename) {
		free(f->name);
		free(f->filename);
		return -1;
	}
	*out = (uint32_t)p->nfunctions++;
	return u64map__put(&mg->funcs, h, *out);
}

/* mapFunction: the result's index of the source's function j. */
static int map_function(struct merger *mg, uint32_t j, uint32_t *out)
{
	const struct gh_function *sf = &mg->src->p->functions[j];
	struct func_probe pr = {mg->p, sf};
	uint64_t h;

	if (mg->func_of[j]) {
		*out = mg->func_of[j] - 1;
		return 0;
	}
	h = mix(mix(hash_str(str(sf->name)), hash_str(str(sf->filename))),
		(uint64_t)sf->start_line);
	if (!u64map__get(&mg->funcs, h, func_eq, &pr, out) &&
	    add_function(mg, sf, h, out))
		return -1;
	mg->func_of[j] = *out + 1;
	return 0;
}

/* ---- locations ---- */

/* Location.key of l: address within its mapping, the mapping, lines. */
static uint64_t loc_hash(const struct gh_profile *p,
			 const struct gh_location *l)
{
	uint64_t addr = l->address, h;

	if (l->mapping)
		addr -= p->mappings[l->mapping - 1].start;
	h = mix(mix(addr, l->mapping), l->nlines);
	for (uint32_t i = 0; i < l->nlines; i++)
		h = mix(mix(h, l->lines[i].function),
			(uint64_t)l->lines[i].line);
	return h;
}

struct loc_probe {
	const struct gh_profile *p;
	const struct gh_location *l;
};

/* Of one mapping, the same address within it is the same address. */
static bool loc_eq(void *ctx, uint32_t i)
{
	const struct loc_probe *pr = ctx;
	const struct gh_location *a = &pr->p->locations[i], *b = pr->l;

	return a->mapping == b->mapping && a->address == b->address &&
	       a->nlines == b->nlines &&
	       !memcmp(a->lines, b->lines, a->nlines * sizeof(*a->lines));
}

/* The location Merge makes of the source's location sl: lines[] holds
 * its lines, mapped. */
static int mapped_location(struct merger *mg, const struct gh_location *sl,
			   struct gh_location *l)
{
	struct mapinfo mi;

	*l = (struct gh_location){0};
	if (map_mapping(mg, sl->mapping, &mi))
		return -1;
	*l = (struct gh_location){
		.address = sl->address + (uint64_t)mi.offset,
		.mapping = mi.m,
		.nlines = sl->nlines,
		.lines = calloc(sl->nlines ? sl->nlines : 1, sizeof(*l->lines)),
	};
	if (!l->lines)
		return -1;
	for (uint32_t k = 0; k < sl->nlines; k++) {
		l->lines[k].line = sl->lines[k].line;
		if (map_function(mg, sl->lines[k].function,
				 &l->lines[k].function))
			return -1;
	}
	return 0;
}

/* mapLocation: the result's index of the source's location j. */
static int map_location(struct merger *mg, uint32_t j, uint32_t *out)
{
	struct gh_profile *p = mg->p;
	struct gh_location l;
	struct loc_probe pr = {p, &l};
	uint64_t h;

	if (mg->loc_of[j]) {
		*out = mg->loc_of[j] - 1;
		return 0;
	}
	if (mapped_location(mg, &mg->src->p->locations[j], &l)) {
		free(l.lines);
		return -1;
	}
	h = loc_hash(p, &l);
	if (u64map__get(&mg->locs, h, loc_eq, &pr, out)) {
		free(l.lines);
	} else {
		if (grow((void **)&p->locations, p->nlocations, &mg->loc_cap,
			 sizeof(l))) {
			free(l.lines);
			return -1;
		}
		p->locations[p->nlocations] = l;
		*out = (uint32_t)p->nlocations++;
		if (u64map__put(&mg->locs, h, *out))
			return -1;
	}
	mg->loc_of[j] = *out + 1;
	return 0;
}

/* ---- samples ---- */

static bool is_zero(const int64_t *v)
{
	for (size_t i = 0; i < GH_NVALUES; i++)
		if (v[i])
			return false;
	return true;
}

/* Scale(-1) of one value, int64(math.Round(float64(v) * -1)) as Go
 * computes it on the host that runs go tool pprof: math.Round of an
 * integral float64 is itself; exact below 2^53, rounded above, and out
 * of range (v = INT64_MIN) what the host's int64(float64) gives. */
static int64_t negated(int64_t v)
{
#if defined(__aarch64__)
	return go_f64_to_i64((double)v * -1.0, GOMATH_ARM64);
#else
	return go_f64_to_i64((double)v * -1.0, GOMATH_AMD64_SSE2);
#endif
}

/* Go's int64 += wraps. */
static int64_t wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* The "bytes" label a sample is keyed by, 0 for none: runtime/pprof may
 * write one of value 0, and profile's decoder drops a numeric label
 * without a value or unit (encode.go), so to Merge a label of 0 is no
 * label. */
static int64_t label_of(const struct gh_sample *s)
{
	return s->has_bytes_label ? s->bytes_label : 0;
}

struct sample_probe {
	const struct gh_profile *p;
	const struct gh_sample *s; /* locs: merged ids */
	struct labelset l;	   /* its string labels */
};

/* sampleKey: merged locations, string labels, the "bytes" label,
 * pprof::base. */
static bool sample_eq(void *ctx, uint32_t i)
{
	const struct sample_probe *pr = ctx;
	const struct gh_sample *a = &pr->p->samples[i], *b = pr->s;

	return a->nlocs == b->nlocs && a->base == b->base &&
	       !memcmp(a->locs, b->locs, a->nlocs * sizeof(*a->locs)) &&
	       label_of(a) == label_of(b) &&
	       labelset__eq(labelset_of(pr->p, a), pr->l);
}

static uint64_t sample_hash(const struct gh_sample *s, struct labelset l)
{
	uint64_t h =
		mix(mix(labelset__hash(l), (uint64_t)label_of(s)), s->base);

	for (uint32_t k = 0; k < s->nlocs; k++)
		h = mix(h, s->locs[k]);
	return h;
}

/* Room for the labels of one more sample, in step with p->samples. */
static int grow_labels(struct merger *mg)
{
	struct gh_profile_x *x = mg->p->x;
	size_t n = mg->p->nsamples, cap = mg->label_cap;
	void *kv;

	if (n < cap)
		return 0;
	cap = cap ? cap * 2 : 64;
	kv = realloc(x->labels, cap * sizeof(*x->labels));
	if (!kv)
		return -1;
	x->labels = kv;
	kv = realloc(x->nlabels, cap * sizeof(*x->nlabels));
	if (!kv)
		return -1;
	x->nlabels = kv;
	mg->label_cap = cap;
	return 0;
}

static int add_sample(struct merger *mg, const struct gh_sample *s,
		      struct labelset l, uint64_t h)
{
	struct gh_profile *p = mg->p;
	struct gh_sample *n;

	if (grow((void **)&p->samples, p->nsamples, &mg->sample_cap,
		 sizeof(*n)) ||
	    grow_labels(mg))
		return -1;
	p->x->labels[p->nsamples] = NULL;
	p->x->nlabels[p->nsamples] = 0;
	n = &p->samples[p->nsamples];
	*n = *s;
	n->locs = malloc((s->nlocs ? s->nlocs : 1) * sizeof(*n->locs));
	if (!n->locs)
		return -1;
	memcpy(n->locs, s->locs, s->nlocs * sizeof(*n->locs));
	p->nsamples++;
	if (labelset__copy_to(l, p, p->nsamples - 1))
		return -1;
	return u64map__put(&mg->samples, h, (uint32_t)(p->nsamples - 1));
}

/* The source's sample ss as its caller hands it to Merge: Scale(-1)d
 * and labelled when the source is to be. */
static struct gh_sample prepared(const struct merge_src *src,
				 const struct gh_sample *ss)
{
	struct gh_sample s = *ss;

	for (size_t v = 0; src->negate && v < GH_NVALUES; v++)
		s.value[v] = negated(ss->value[v]);
	s.base = ss->base || src->base;
	return s;
}

/* mapSample: the source's sample ss summed into the result's sample of
 * the same key, or added as a new one; none when all zero (Scale drops
 * it, and so does Merge's isZeroSample). */
static int map_sample(struct merger *mg, const struct gh_sample *ss)
{
	struct gh_sample s = prepared(mg->src, ss);
	struct sample_probe pr = {mg->p, &s, labelset_of(mg->src->p, ss)};
	uint64_t h;
	uint32_t i;

	if (is_zero(s.value))
		return 0;
	s.locs = mg->ids;
	for (uint32_t k = 0; k < ss->nlocs; k++)
		if (map_location(mg, ss->locs[k], &mg->ids[k]))
			return -1;
	h = sample_hash(&s, pr.l);
	if (!u64map__get(&mg->samples, h, sample_eq, &pr, &i))
		return add_sample(mg, &s, pr.l, h);
	for (size_t v = 0; v < GH_NVALUES; v++)
		mg->p->samples[i].value[v] =
			wrap_add(mg->p->samples[i].value[v], s.value[v]);
	return 0;
}

/* ---- Merge ---- */

static void merger__end_source(struct merger *mg)
{
	free(mg->loc_of);
	free(mg->func_of);
	free(mg->map_of);
	free(mg->ids);
	mg->loc_of = mg->func_of = mg->ids = NULL;
	mg->map_of = NULL;
}

static uint32_t deepest(const struct gh_profile *src)
{
	uint32_t n = 1;

	for (size_t i = 0; i < src->nsamples; i++)
		if (src->samples[i].nlocs > n)
			n = src->samples[i].nlocs;
	return n;
}

/* One source into the merge, with fresh ...ByID tables. */
static int merge_source(struct merger *mg, const struct merge_src *src)
{
	const struct gh_profile *sp = src->p;
	struct mapinfo first;
	int rc = -1;

	mg->src = src;
	mg->loc_of = calloc(sp->nlocations + 1, sizeof(*mg->loc_of));
	mg->func_of = calloc(sp->nfunctions + 1, sizeof(*mg->func_of));
	mg->map_of = calloc(sp->nmappings + 1, sizeof(*mg->map_of));
	mg->ids = calloc(deepest(sp), sizeof(*mg->ids));
	if (!mg->loc_of || !mg->func_of || !mg->map_of || !mg->ids)
		goto out;
	/* The first mapping is the main binary's: Merge takes it first. */
	if (!mg->p->nmappings && sp->nmappings && map_mapping(mg, 1, &first))
		goto out;
	for (size_t i = 0; i < sp->nsamples; i++)
		if (map_sample(mg, &sp->samples[i]))
			goto out;
	rc = 0;
out:
	merger__end_source(mg);
	return rc;
}

static void merger__free(struct merger *mg)
{
	merger__end_source(mg);
	u64map__free(&mg->samples);
	u64map__free(&mg->locs);
	u64map__free(&mg->funcs);
	u64map__free(&mg->maps);
}

/* combineHeaders' time and period: the earliest time (with its quirk: a
 * later one wins over 0), the largest period (the same quirk). */
static void combine_headers(struct gh_profile *p, const struct merge_src *srcs,
			    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!p->time_ns || srcs[i].p->time_ns < p->time_ns)
			p->time_ns = srcs[i].p->time_ns;
		if (!p->period || p->period < srcs[i].p->period)
			p->period = srcs[i].p->period;
	}
}

static bool any_zero(const struct gh_profile *p)
{
	for (size_t i = 0; i < p->nsamples; i++)
		if (is_zero(p->samples[i].value))
			return true;
	return false;
}

struct gh_profile *merge_profiles(const struct merge_src *srcs, size_t n)
{
	struct merger mg = {0};
	struct gh_profile *again;

	mg.p = calloc(1, sizeof(*mg.p));
	if (!mg.p || !(mg.p->x = calloc(1, sizeof(*mg.p->x)))) {
		free(mg.p);
		return NULL;
	}
	/* its samples at hand, of the sources' kind */
	mg.p->x->kept = true;
	mg.p->x->kind = n ? gh_profile__kind(srcs[0].p) : GH_KIND_HEAP;
	combine_headers(mg.p, srcs, n);
	for (size_t i = 0; i < n; i++)
		if (merge_source(&mg, &srcs[i])) {
			merger__free(&mg);
			gh_profile__free(mg.p);
			return NULL;
		}
	merger__free(&mg);
	if (!any_zero(mg.p))
		return mg.p;
	/* Re-merged to drop the zero samples and what only they used. */
	again = merge_profiles(&(struct merge_src){mg.p, false, false}, 1);
	gh_profile__free(mg.p);
	return again;
}
