/* leaks.c - the series behind a watch's likely leaks (leaks.h). A
 * snapshot is kept as (stack key, in-use bytes) pairs sorted by key: the
 * key a 64-bit FNV-1a hash of the stack's PCs, which, unlike location
 * indexes, mean the same in every snapshot of one process (a collision,
 * about one in 2^64 / n^2, would add two stacks up). Only the largest
 * LEAKS_MAX_STACKS stacks of each snapshot are kept, so a series costs at
 * most (window + 1) * 16 KiB; a leak worth naming is among them, and a
 * stack missing from a snapshot counts as holding nothing. */
#include <stdlib.h>
#include <string.h>

#include "profile/summary.h"
#include "watch/leaks.h"

struct leak_stack {
	uint64_t key;
	int64_t bytes;
};

struct leak_snap {
	struct leak_stack *v;
	size_t n;
};

struct leak_series {
	size_t cap;  /* window + 1 */
	size_t head; /* the oldest */
	size_t n;
	struct leak_snap snap[];
};

/* A candidate leak while ranking. */
struct leak_cand {
	uint64_t key;
	int64_t inuse, growth;
	struct gh_leak named;
	bool has_name;
};

static uint64_t stack_key(const struct gh_profile *p, const struct gh_sample *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (uint32_t j = 0; j < s->nlocs; j++)
		h = (h ^ p->locations[s->locs[j]].address) * 0x100000001b3ULL;
	return h;
}

static int by_key(const void *a, const void *b)
{
	const struct leak_stack *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* Largest first; of equal ones, by key, so that what is cut is fixed. */
static int by_bytes(const void *a, const void *b)
{
	const struct leak_stack *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return by_key(a, b);
}

/* Samples of one stack (different "bytes" labels) added up. */
static size_t merge_equal(struct leak_stack *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (k && v[k - 1].key == v[i].key)
			v[k - 1].bytes += v[i].bytes;
		else
			v[k++] = v[i];
	return k;
}

static int snap_of(const struct gh_profile *p, struct leak_snap *out)
{
	struct leak_stack *v = malloc((p->nsamples + 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return -1;
	for (size_t i = 0; i < p->nsamples; i++)
		if (p->samples[i].value[GH_INUSE_SPACE] > 0)
			v[n++] = (struct leak_stack){
				stack_key(p, &p->samples[i]),
				p->samples[i].value[GH_INUSE_SPACE]};
	qsort(v, n, sizeof(*v), by_key);
	n = merge_equal(v, n);
	if (n > LEAKS_MAX_STACKS) {
		qsort(v, n, sizeof(*v), by_bytes);
		n = LEAKS_MAX_STACKS;
		qsort(v, n, sizeof(*v), by_key);
	}
	/* the series holds what is kept, not what was read */
	out->v = realloc(v, (n + 1) * sizeof(*v));
	if (!out->v)
		out->v = v;
	out->n = n;
	return 0;
}

int leaks_add(struct leak_series **s, size_t window, const struct gh_profile *p)
{
	struct leak_snap snap;
	struct leak_series *r = *s;

	if (!r) {
		r = calloc(1, sizeof(*r) + (window + 1) * sizeof(r->snap[0]));
		if (!r)
			return -1;
		r->cap = window + 1;
		*s = r;
	}
	if (snap_of(p, &snap))
		return -1;
	if (r->n == r->cap) {
		free(r->snap[r->head].v);
		r->head = (r->head + 1) % r->cap;
		r->n--;
	}
	r->snap[(r->head + r->n++) % r->cap] = snap;
	return 0;
}

static int64_t bytes_in(const struct leak_snap *s, uint64_t key)
{
	struct leak_stack k = {.key = key};
	const struct leak_stack *f = bsearch(&k, s->v, s->n, sizeof(k), by_key);

	return f ? f->bytes : 0;
}

/* Did st grow at every step up to the last snapshot? Its growth then. */
static bool grew(const struct leak_series *s, const struct leak_stack *st,
		 int64_t *growth)
{
	int64_t later = st->bytes, b = 0;

	for (size_t i = s->n - 1; i-- > 0;) {
		b = bytes_in(&s->snap[(s->head + i) % s->cap], st->key);
		if (b >= later)
			return false;
		later = b;
	}
	*growth = st->bytes - b;
	return true;
}

static int cand_key(const void *a, const void *b)
{
	const struct leak_cand *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* Name the candidates by their sites in p. */
static void name(struct leak_cand *c, size_t n, const struct gh_profile *p)
{
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct gh_sample *s = &p->samples[i];
		struct leak_cand k = {.key = stack_key(p, s)}, *f;
		const struct gh_location *l;
		uint32_t loc, line;

		f = bsearch(&k, c, n, sizeof(k), cand_key);
		if (!f || f->has_name)
			continue;
		f->has_name = true;
		summary_site(p, s, f->named.site, sizeof(f->named.site));
		if (!summary_site_frame(p, s, &loc, &line) ||
		    line == UINT32_MAX)
			continue;
		l = &p->locations[s->locs[loc]];
		snprintf(f->named.file, sizeof(f->named.file), "%s",
			 p->functions[l->lines[line].function].filename);
		f->named.line = l->lines[line].line;
	}
}

static int by_growth(const void *a, const void *b)
{
	const struct leak_cand *x = a, *y = b;
	int c;

	if (x->growth != y->growth)
		return x->growth > y->growth ? -1 : 1;
	if (x->inuse != y->inuse)
		return x->inuse > y->inuse ? -1 : 1;
	if ((c = strcmp(x->named.site, y->named.site)))
		return c;
	return cand_key(a, b);
}

size_t leaks_rank(const struct leak_series *s, const struct gh_profile *p,
		  struct gh_leak *out, size_t max)
{
	const struct leak_snap *last;
	struct leak_cand *c;
	size_t n = 0;

	if (!s || s->n < s->cap)
		return 0;
	last = &s->snap[(s->head + s->n - 1) % s->cap];
	if (!(c = calloc(last->n + 1, sizeof(*c))))
		return 0;
	for (size_t i = 0; i < last->n; i++)
		if (grew(s, &last->v[i], &c[n].growth)) {
			c[n].key = last->v[i].key;
			c[n++].inuse = last->v[i].bytes;
		}
	name(c, n, p); /* c is in key order, as last is */
	qsort(c, n, sizeof(*c), by_growth);
	n = n < max ? n : max;
	for (size_t i = 0; i < n; i++) {
		out[i] = c[i].named;
		out[i].inuse_bytes = c[i].inuse;
		out[i].growth_bytes = c[i].growth;
		out[i].snapshots = (unsigned)s->cap;
	}
	free(c);
	return n;
}

size_t leaks_bytes(const struct leak_series *s)
{
	size_t b = 0;

	if (!s)
		return 0;
	b = sizeof(*s) + s->cap * sizeof(s->snap[0]);
	for (size_t i = 0; i < s->n; i++)
		b += s->snap[(s->head + i) % s->cap].n *
		     sizeof(struct leak_stack);
	return b;
}

void leaks_free(struct leak_series *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->snap[(s->head + i) % s->cap].v);
	free(s);
}
