/* diff.c - gh_profile__diff: NEW minus OLD as `go tool pprof -diff_base
 * OLD NEW` computes it (google/pprof internal/driver/fetch.go): OLD's
 * samples labelled pprof::base=true (SetLabel) and scaled by -1 (Scale:
 * int64(math.Round(float64(v) * -1))), then profile.Merge([NEW, OLD])
 * (profile/merge.go), step for step: samples keyed by their merged
 * locations and labels and summed, so that OLD's, labelled, never cancel
 * NEW's and each stack's difference is what a report aggregates;
 * locations keyed by merged mapping, address within it and lines;
 * functions by name, file and start line; mappings by size rounded up to
 * 4 KiB, offset and build ID (else file). Tables grow in the order Merge
 * meets their entries, and a merge whose sums came to all zero is merged
 * again alone, as Merge does, to drop those and what only they used. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/u64map.h"
#include "profile/sink.h"
#include "profile/summary.h"

/* Where a source mapping went in the result: mapInfo. */
struct mapinfo {
	uint32_t m;	 /* 1 + the result's index; 0: none */
	uint64_t offset; /* added to the source's addresses */
	bool known;
};

/* The result being built, and the source being merged into it. */
struct merger {
	struct gh_profile *p;
	size_t sample_cap, loc_cap, func_cap, map_cap;
	struct u64map samples, locs, funcs, maps; /* key hash -> index */
	const struct gh_profile *src;
	bool base;		    /* OLD: negated and labelled */
	uint32_t *loc_of, *func_of; /* 1 + the result's index; 0: not yet */
	struct mapinfo *map_of;
	uint32_t *ids; /* one sample's merged locations */
};

static uint64_t mix(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ h >> 29;
}

/* Room for one more of n entries of size bytes in *v. */
static int room(void *v, size_t n, size_t *cap, size_t size)
{
	void **pv = v, *grown;
	size_t ncap = *cap ? 2 * *cap : 64;

	if (n < *cap)
		return 0;
	if (ncap > UINT32_MAX || !(grown = realloc(*pv, ncap * size)))
		return -1;
	*pv = grown;
	*cap = ncap;
	return 0;
}

/* Profile.Scale(-1) of one value: math.Round of an integer is itself; a
 * float64 out of int64's range converts, on amd64, to INT64_MIN. */
static int64_t go_negate(int64_t v)
{
	double d = -(double)v;

	if (d >= 9223372036854775808.0 || d < -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)d;
}

/* Go's int64 +=: two's complement, wrapping. */
static int64_t add_wrap(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* ---- mappings ---- */

struct map_key {
	uint64_t size, offset;
	const char *id; /* build ID, else file, else "" */
};

static struct map_key map_key(const struct gh_mapping *m)
{
	uint64_t size = m->limit - m->start + 0xfff;

	return (struct map_key){size - size % 0x1000, m->offset,
				m->build_id && m->build_id[0] ? m->build_id
				: m->file		      ? m->file
							      : ""};
}

struct map_probe {
	const struct gh_profile *p;
	struct map_key k;
};

static bool map_eq(void *ctx, uint32_t val)
{
	const struct map_probe *pr = ctx;
	struct map_key k = map_key(&pr->p->mappings[val]);

	return k.size == pr->k.size && k.offset == pr->k.offset &&
	       strcmp(k.id, pr->k.id) == 0;
}

static int copy_mapping(struct gh_mapping *to, const struct gh_mapping *from)
{
	*to = *from;
	to->file = strdup(from->file ? from->file : "");
	to->build_id = strdup(from->build_id ? from->build_id : "");
	return to->file && to->build_id ? 0 : -1;
}

/* mapMapping of the source's mapping i; NULL when out of memory. */
static const struct mapinfo *map_mapping(struct merger *g, uint32_t i)
{
	const struct gh_mapping *src = &g->src->mappings[i];
	struct map_probe pr = {g->p, map_key(src)};
	struct mapinfo *mi = &g->map_of[i];
	uint64_t h = mix(mix(hash_str(pr.k.id), pr.k.size), pr.k.offset);
	uint32_t at;

	if (mi->known)
		return mi;
	if (u64map_get(&g->maps, h, map_eq, &pr, &at)) {
		*mi = (struct mapinfo){
			at + 1, g->p->mappings[at].start - src->start, true};
		return mi;
	}
	at = (uint32_t)g->p->nmappings;
	if (room(&g->p->mappings, at, &g->map_cap, sizeof(*g->p->mappings)))
		return NULL;
	g->p->nmappings++;
	if (copy_mapping(&g->p->mappings[at], src) ||
	    u64map_put(&g->maps, h, at))
		return NULL;
	*mi = (struct mapinfo){at + 1, 0, true};
	return mi;
}

/* ---- functions ---- */

struct func_probe {
	const struct gh_profile *p;
	const struct gh_function *f;
};

static const char *str(const char *s)
{
	return s ? s : "";
}

static bool func_eq(void *ctx, uint32_t val)
{
	const struct func_probe *pr = ctx;
	const struct gh_function *a = &pr->p->functions[val], *b = pr->f;

	return a->start_line == b->start_line &&
	       strcmp(str(a->name), str(b->name)) == 0 &&
	       strcmp(str(a->filename), str(b->filename)) == 0;
}

/* mapFunction of the source's function i: the result's index, or -1. */
static int64_t map_function(struct merger *g, uint32_t i)
{
	const struct gh_function *src = &g->src->functions[i];
	struct func_probe pr = {g->p, src};
	uint64_t h =
		mix(mix(hash_str(str(src->name)), hash_str(str(src->filename))),
		    (uint64_t)src->start_line);
	struct gh_function *f;
	uint32_t at;

	if (g->func_of[i])
		return g->func_of[i] - 1;
	if (!u64map_get(&g->funcs, h, func_eq, &pr, &at)) {
		at = (uint32_t)g->p->nfunctions;
		if (room(&g->p->functions, at, &g->func_cap,
			 sizeof(*g->p->functions)))
			return -1;
		f = &g->p->functions[g->p->nfunctions++];
		*f = (struct gh_function){strdup(str(src->name)),
					  strdup(str(src->filename)),
					  src->start_line};
		if (!f->name || !f->filename || u64map_put(&g->funcs, h, at))
			return -1;
	}
	g->func_of[i] = at + 1;
	return at;
}

/* ---- locations ---- */

struct loc_probe {
	const struct gh_profile *p;
	const struct gh_location *l;
};

/* The location key's address: within its mapping, if it has one. */
static uint64_t loc_addr(const struct gh_profile *p,
			 const struct gh_location *l)
{
	return l->address -
	       (l->mapping ? p->mappings[l->mapping - 1].start : 0);
}

static bool loc_eq(void *ctx, uint32_t val)
{
	const struct loc_probe *pr = ctx;
	const struct gh_location *a = &pr->p->locations[val], *b = pr->l;

	if (a->mapping != b->mapping || a->nlines != b->nlines ||
	    loc_addr(pr->p, a) != loc_addr(pr->p, b))
		return false;
	for (uint32_t j = 0; j < a->nlines; j++)
		if (a->lines[j].function != b->lines[j].function ||
		    a->lines[j].line != b->lines[j].line)
			return false;
	return true;
}

static uint64_t loc_hash(const struct gh_profile *p,
			 const struct gh_location *l)
{
	uint64_t h = mix(mix(1, l->mapping), loc_addr(p, l));

	for (uint32_t j = 0; j < l->nlines; j++)
		h = mix(mix(h, l->lines[j].function),
			(uint64_t)l->lines[j].line);
	return h;
}

/* The source's location i as the result has it (mapped mapping and
 * functions, address moved with its mapping): into *l. */
static int remap_location(struct merger *g, uint32_t i, struct gh_location *l)
{
	const struct gh_location *src = &g->src->locations[i];
	const struct mapinfo *mi = NULL;
	int64_t f;

	if (src->mapping && !(mi = map_mapping(g, src->mapping - 1)))
		return -1;
	*l = (struct gh_location){src->address + (mi ? mi->offset : 0),
				  mi ? mi->m : 0, src->nlines, NULL};
	if (src->nlines && !(l->lines = calloc(src->nlines, sizeof(*l->lines))))
		return -1;
	for (uint32_t j = 0; j < src->nlines; j++) {
		if ((f = map_function(g, src->lines[j].function)) < 0)
			return -1;
		l->lines[j] = (struct gh_line){(uint32_t)f, src->lines[j].line};
	}
	return 0;
}

/* mapLocation of the source's location i: the result's index, or -1. */
static int64_t map_location(struct merger *g, uint32_t i)
{
	struct gh_location l;
	struct loc_probe pr = {g->p, &l};
	uint32_t at;
	uint64_t h;

	if (g->loc_of[i])
		return g->loc_of[i] - 1;
	if (remap_location(g, i, &l)) {
		free(l.lines);
		return -1;
	}
	h = loc_hash(g->p, &l);
	if (u64map_get(&g->locs, h, loc_eq, &pr, &at)) {
		free(l.lines);
	} else {
		at = (uint32_t)g->p->nlocations;
		if (room(&g->p->locations, at, &g->loc_cap,
			 sizeof(*g->p->locations)) ||
		    u64map_put(&g->locs, h, at)) {
			free(l.lines);
			return -1;
		}
		g->p->locations[g->p->nlocations++] = l;
	}
	g->loc_of[i] = at + 1;
	return at;
}

/* ---- samples ---- */

struct sample_probe {
	const struct gh_profile *p;
	const struct gh_sample *s;
};

static bool sample_eq(void *ctx, uint32_t val)
{
	const struct sample_probe *pr = ctx;
	const struct gh_sample *a = &pr->p->samples[val], *b = pr->s;

	return a->nlocs == b->nlocs && a->base == b->base &&
	       a->has_bytes_label == b->has_bytes_label &&
	       (!a->has_bytes_label || a->bytes_label == b->bytes_label) &&
	       (!a->nlocs ||
		memcmp(a->locs, b->locs, a->nlocs * sizeof(*a->locs)) == 0);
}

static uint64_t sample_hash(const struct gh_sample *s)
{
	uint64_t h = mix(mix(2, s->base), s->has_bytes_label);

	if (s->has_bytes_label)
		h = mix(h, (uint64_t)s->bytes_label);
	for (uint32_t j = 0; j < s->nlocs; j++)
		h = mix(h, s->locs[j]);
	return h;
}

static bool is_zero(const int64_t *v)
{
	for (int i = 0; i < GH_NVALUES; i++)
		if (v[i])
			return false;
	return true;
}

/* A new result sample: s, its locations copied. */
static int add_sample(struct merger *g, const struct gh_sample *s, uint64_t h)
{
	uint32_t at = (uint32_t)g->p->nsamples;
	struct gh_sample *to;

	if (room(&g->p->samples, at, &g->sample_cap, sizeof(*g->p->samples)))
		return -1;
	to = &g->p->samples[g->p->nsamples++];
	*to = *s;
	to->locs = NULL;
	if (s->nlocs && !(to->locs = malloc(s->nlocs * sizeof(*s->locs))))
		return -1;
	if (s->nlocs)
		memcpy(to->locs, s->locs, s->nlocs * sizeof(*s->locs));
	return u64map_put(&g->samples, h, at);
}

/* mapSample of src (negated and labelled first when it is OLD's). */
static int map_sample(struct merger *g, const struct gh_sample *src)
{
	struct gh_sample s = *src;
	struct sample_probe pr = {g->p, &s};
	int64_t at;
	uint32_t found;
	uint64_t h;

	if (g->base) {
		for (int i = 0; i < GH_NVALUES; i++)
			s.value[i] = go_negate(s.value[i]);
		s.base = true;
	}
	if (is_zero(s.value))
		return 0; /* Scale and Merge both leave it out */
	for (uint32_t j = 0; j < s.nlocs; j++) {
		if ((at = map_location(g, src->locs[j])) < 0)
			return -1;
		g->ids[j] = (uint32_t)at;
	}
	s.locs = g->ids;
	h = sample_hash(&s);
	if (!u64map_get(&g->samples, h, sample_eq, &pr, &found))
		return add_sample(g, &s, h);
	for (int i = 0; i < GH_NVALUES; i++)
		g->p->samples[found].value[i] =
			add_wrap(g->p->samples[found].value[i], s.value[i]);
	return 0;
}

/* ---- the merge ---- */

static void source_free(struct merger *g)
{
	free(g->loc_of);
	free(g->func_of);
	free(g->map_of);
	free(g->ids);
	g->loc_of = g->func_of = g->ids = NULL;
	g->map_of = NULL;
}

/* Merge src's samples into g->p; base: it is OLD. */
static int merge_source(struct merger *g, const struct gh_profile *src,
			bool base)
{
	uint32_t depth = 0;
	size_t i;
	int rc = 0;

	for (i = 0; i < src->nsamples; i++)
		if (src->samples[i].nlocs > depth)
			depth = src->samples[i].nlocs;
	g->src = src;
	g->base = base;
	g->loc_of = calloc(src->nlocations + 1, sizeof(*g->loc_of));
	g->func_of = calloc(src->nfunctions + 1, sizeof(*g->func_of));
	g->map_of = calloc(src->nmappings + 1, sizeof(*g->map_of));
	g->ids = calloc((size_t)depth + 1, sizeof(*g->ids));
	if (!g->loc_of || !g->func_of || !g->map_of || !g->ids)
		rc = -1;
	/* The first mapping stands for the main binary: Merge takes it
	 * first, whatever the samples use. */
	if (!rc && !g->p->nmappings && src->nmappings && !map_mapping(g, 0))
		rc = -1;
	for (i = 0; !rc && i < src->nsamples; i++)
		rc = map_sample(g, &src->samples[i]);
	source_free(g);
	return rc;
}

static void merger_free(struct merger *g)
{
	source_free(g);
	u64map_free(&g->samples);
	u64map_free(&g->locs);
	u64map_free(&g->funcs);
	u64map_free(&g->maps);
}

/* Merge the n sources (the last one OLD when with_base) into a new
 * profile, merged again alone while a sum came to zero. */
static struct gh_profile *merge(const struct gh_profile *const *srcs, size_t n,
				bool with_base)
{
	struct merger g = {0};
	struct gh_profile *p = calloc(1, sizeof(*p));
	bool zero = false;
	size_t i;
	int rc = p ? 0 : -1;

	g.p = p;
	for (i = 0; !rc && i < n; i++)
		rc = merge_source(&g, srcs[i], with_base && i == n - 1);
	merger_free(&g);
	if (rc) {
		gh_profile__free(p);
		return NULL;
	}
	for (i = 0; i < p->nsamples && !zero; i++)
		zero = is_zero(p->samples[i].value);
	if (zero) {
		struct gh_profile *again =
			merge((const struct gh_profile *[]){p}, 1, false);

		gh_profile__free(p);
		return again;
	}
	return p;
}

/* combineHeaders: the earliest time (with Merge's quirk: a later 0
 * wins), the largest period. */
static void combine_headers(struct gh_profile *p, const struct gh_profile *now,
			    const struct gh_profile *old)
{
	const struct gh_profile *srcs[] = {now, old};

	for (size_t i = 0; i < 2; i++) {
		if (!p->time_nanos || srcs[i]->time_nanos < p->time_nanos)
			p->time_nanos = srcs[i]->time_nanos;
		if (!p->period || p->period < srcs[i]->period)
			p->period = srcs[i]->period;
	}
}

static bool samples_at_hand(const struct gh_profile *p)
{
	return !p->x || p->x->kept;
}

int gh_profile__diff(const struct gh_profile *old, const struct gh_profile *now,
		     struct gh_profile **out, struct gh_err *err)
{
	struct summary sum = {0};
	struct gh_profile *p;

	*out = NULL;
	if (!samples_at_hand(old) || !samples_at_hand(now))
		return err_set(err, GH_E_USAGE,
			       "a profile to diff must hold its samples: read "
			       "it with gh_profile__read, or take it with "
			       "keep_samples");
	p = merge((const struct gh_profile *[]){now, old}, 2, true);
	if (!p)
		return err_set(err, GH_E_FAILED,
			       "out of memory computing the difference");
	combine_headers(p, now, old);
	for (size_t i = 0; i < p->nsamples; i++)
		summary_add(&sum, p, &p->samples[i]);
	summary_fill(&sum, p);
	summary_free(&sum);
	*out = p;
	return 0;
}
