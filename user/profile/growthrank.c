/* growthrank.c - gh_profile__growth: a diff's stacks ranked by in-use
 * growth (a goroutine profiles' diff: by the growth in goroutines). A stack is
 * a distinct sequence of the diff's locations: NEW's samples and OLD's negated
 * ones with the same stack (Merge keeps them apart by their pprof::base label)
 * add up to its difference, NEW's alone to what it holds now. Stacks whose
 * in-use bytes and objects did not change are left out. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/u64map.h"
#include "profile/growth.h"
#include "profile/summary.h"

struct stack_probe {
	const struct gh_profile *p;
	const struct gh_growth *g;
	const struct gh_sample *s;
};

static bool stack_eq(void *ctx, uint32_t val)
{
	const struct stack_probe *pr = ctx;
	const struct gh_sample *a = &pr->p->samples[pr->g->rows[val].sample];

	return a->nlocs == pr->s->nlocs &&
	       (!a->nlocs ||
		memcmp(a->locs, pr->s->locs, a->nlocs * sizeof(*a->locs)) == 0);
}

static uint64_t stack_hash(const struct gh_sample *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (uint32_t j = 0; j < s->nlocs; j++)
		h = (h ^ s->locs[j]) * 0x100000001b3ULL;
	return h;
}

/* Go's int64 +=, which wraps: a hostile profile's sums are no
 * undefined behaviour. */
static int64_t add_wrap(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* A new row for sample i's stack, named by its site. */
static struct gh_growth_row *new_row(struct gh_growth *g, size_t *cap,
				     const struct gh_profile *p, size_t i)
{
	const struct gh_sample *s = &p->samples[i];
	const struct gh_location *l;
	struct gh_growth_row *r;
	uint32_t loc, line;

	if (g->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;

		if (!(r = realloc(g->rows, ncap * sizeof(*r))))
			return NULL;
		g->rows = r;
		*cap = ncap;
	}
	r = &g->rows[g->n++];
	memset(r, 0, sizeof(*r));
	r->sample = (uint32_t)i;
	summary_site(p, s, r->site, sizeof(r->site));
	if (summary_site_frame(p, s, &loc, &line) && line != UINT32_MAX) {
		l = &p->locations[s->locs[loc]];
		snprintf(r->file, sizeof(r->file), "%s",
			 p->functions[l->lines[line].function].filename);
		r->line = l->lines[line].line;
	}
	return r;
}

static int add_samples(struct gh_growth *g, const struct gh_profile *p)
{
	struct u64map index = {0};
	struct gh_growth_row *r;
	size_t cap = 0;
	uint32_t at;
	int rc = 0;

	for (size_t i = 0; i < p->nsamples && !rc; i++) {
		const struct gh_sample *s = &p->samples[i];
		struct stack_probe pr = {p, g, s};
		uint64_t h = stack_hash(s);

		if (u64map__get(&index, h, stack_eq, &pr, &at))
			r = &g->rows[at];
		else if (!(r = new_row(g, &cap, p, i)) ||
			 u64map__put(&index, h, (uint32_t)(g->n - 1)))
			rc = -1;
		for (int v = 0; !rc && v < GH_NVALUES; v++) {
			r->delta[v] = add_wrap(r->delta[v], s->value[v]);
			if (!s->base)
				r->now[v] = add_wrap(r->now[v], s->value[v]);
		}
	}
	u64map__free(&index);
	return rc;
}

/* The values a kind's rows are ranked by, first and second: in-use bytes
 * and objects; a goroutine profile's one value. */
static void rank_values(enum gh_kind k, int *first, int *second)
{
	*first = k == GH_KIND_GOROUTINE ? 0 : GH_INUSE_SPACE;
	*second = k == GH_KIND_GOROUTINE ? 0 : GH_INUSE_OBJECTS;
}

/* Largest growth first; then more objects; then by name, and in sample
 * order, so that the ranking never depends on hashing. */
static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct gh_growth_row *x = a, *y = b;
	const int *v = ctx;
	int c;

	for (int i = 0; i < 2; i++)
		if (x->delta[v[i]] != y->delta[v[i]])
			return x->delta[v[i]] > y->delta[v[i]] ? -1 : 1;
	if ((c = strcmp(x->site, y->site)))
		return c;
	return x->sample < y->sample ? -1 : x->sample > y->sample;
}

/* Leave out the stacks whose ranked values did not change. */
static void drop_unchanged(struct gh_growth *g, const int v[2])
{
	size_t kept = 0;

	for (size_t i = 0; i < g->n; i++)
		if (g->rows[i].delta[v[0]] || g->rows[i].delta[v[1]])
			g->rows[kept++] = g->rows[i];
	g->n = kept;
}

int gh_profile__growth(const struct gh_profile *diff, struct gh_growth **out,
		       struct gh_err *err)
{
	struct growth_x *gx = calloc(1, sizeof(*gx));
	struct gh_growth *g = gx ? &gx->g : NULL;
	int v[2];

	*out = NULL;
	if (!g || add_samples(g, diff)) {
		gh_growth__free(g);
		return err_set(err, GH_E_FAILED,
			       "out of memory ranking the stacks");
	}
	memcpy(g->total, diff->total, sizeof(g->total));
	gx->kind = gh_profile__kind(diff);
	rank_values(gx->kind, &v[0], &v[1]);
	drop_unchanged(g, v);
	if (g->n)
		qsort_r(g->rows, g->n, sizeof(*g->rows), cmp_rows, v);
	*out = g;
	return 0;
}

enum gh_kind gh_growth__kind(const struct gh_growth *g)
{
	return ((const struct growth_x *)g)->kind;
}

void gh_growth__free(struct gh_growth *g)
{
	if (!g)
		return;
	free(g->rows);
	free(g);
}
