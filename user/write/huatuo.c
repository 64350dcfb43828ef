/* huatuo.c - see huatuo.h. It streams: an entry is all that is kept of
 * its samples, and an entry's stack is kept hash-consed (see struct
 * huatuo_entries), so that a million distinct stacks take 38 MB while the
 * build lasts, 31 MB once it is over (the order to write them in
 * included), not the GB of their text. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/pairset.h"
#include "base/u64map.h"
#include "profile/refs.h"
#include "write/huatuo.h"

#define NONE HUATUO_NONE

static bool is_runtime(const char *name)
{
	return strncmp(name, "runtime.", 8) == 0 ||
	       strncmp(name, "internal/runtime/", 17) == 0;
}

/* Whether s may be let in: its locations, and their lines, name entries of
 * p (JSON never reads a mapping, so a broken one does not keep it out). */
static bool valid_refs(const struct gh_profile *p, const struct gh_sample *s)
{
	for (uint32_t i = 0; i < s->nlocs; i++)
		if (s->locs[i] >= p->nlocations ||
		    !refs_lines_ok(p, &p->locations[s->locs[i]]))
			return false;
	return true;
}

bool huatuo_location__frames(const struct gh_profile *p,
			     const struct gh_location *l, huatuo_frame_fn fn,
			     void *ctx)
{
	struct huatuo_frame fr = {.pc = l->address};
	uint32_t j;

	if (!refs_lines_ok(p, l))
		return false;
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

/* ---- entries, as samples arrive ---- */

/* The sums of an entry, two 4-byte cells each (objects, bytes): a sum
 * that does not fit, or is BIG itself, moves to big for good, its cell
 * holding BIG. Heap profile values rarely need it. */
#define BIG INT32_MIN

struct cells {
	int32_t *v;
	size_t cap;
	struct u64map big_of; /* 1 + cell -> its index in big */
	int64_t *big;
	size_t nbig, cap_big;
};

static int64_t cell_get(const struct cells *c, size_t i)
{
	uint32_t b;

	if (c->v[i] != BIG)
		return c->v[i];
	u64map__get(&c->big_of, i + 1, NULL, NULL, &b);
	return c->big[b];
}

/* Two's complement wrap, as an int64_t sum does in practice. */
static int64_t add64(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int cell_add(struct cells *c, size_t i, int64_t d)
{
	int64_t sum = add64(cell_get(c, i), d);
	uint32_t b;

	if (c->v[i] == BIG) {
		u64map__get(&c->big_of, i + 1, NULL, NULL, &b);
		c->big[b] = sum;
	} else if (sum > INT32_MIN && sum <= INT32_MAX) {
		c->v[i] = (int32_t)sum;
	} else {
		if (c->nbig == c->cap_big) {
			size_t cap = c->cap_big ? c->cap_big * 2 : 64;
			int64_t *grown = realloc(c->big, cap * sizeof(*grown));

			if (!grown)
				return -1;
			c->big = grown;
			c->cap_big = cap;
		}
		if (c->nbig >= UINT32_MAX ||
		    u64map__put(&c->big_of, i + 1, (uint32_t)c->nbig))
			return -1;
		c->big[c->nbig++] = sum;
		c->v[i] = BIG;
	}
	return 0;
}

/* Cells for n entries, new ones 0. */
static int cells__reserve(struct cells *c, size_t n)
{
	size_t cap = c->cap ? c->cap : 1024;
	int32_t *grown;

	if (2 * n <= c->cap)
		return 0;
	while (cap < 2 * n)
		cap *= 2;
	grown = bigmem_grow(c->v, c->cap * sizeof(*grown),
			    cap * sizeof(*grown));
	if (!grown)
		return -1;
	c->v = grown;
	c->cap = cap;
	return 0;
}

static void cells__free(struct cells *c)
{
	bigmem_free(c->v, c->cap * sizeof(*c->v));
	free(c->big);
	u64map__free(&c->big_of);
	*c = (struct cells){0};
}

/* The entries. A stack is its leaf location below its callers, and
 * the callers are a trie of location ids: a node is (its caller's node,
 * or NONE at the root; its location). An entry is (its callers' node or
 * NONE, its leaf location or NONE for an empty stack). The million stacks
 * of tools/bench/benchgen make 1.33 million nodes and a million entries,
 * 8 bytes each, 8 more an entry for its sums, and the indexes of both
 * sets (about 5 bytes a pair) while the build lasts. Entries are numbered
 * as their first samples come (zero ones too), which is the order that
 * breaks ties. */
struct huatuo_entries {
	struct pairset callers; /* (caller node or NONE, location) */
	struct pairset entries; /* (callers node or NONE, leaf or NONE) */
	struct cells sums;	/* per entry: objects, bytes */
	bool bad_refs;		/* a sample refers to nothing */
	/* The last sample's callers, root first: (location, node) each. */
	uint32_t (*last)[2];
	size_t nlast, cap_last;
	/* Once ordered: the entries to write, in order, and how many had
	 * something (top_n may cut them). */
	uint32_t *order;
	size_t nshown, nnonzero;
};

int64_t huatuo_entries__objects(const struct huatuo_entries *r, uint32_t e)
{
	return cell_get(&r->sums, 2 * (size_t)e);
}

int64_t huatuo_entries__bytes(const struct huatuo_entries *r, uint32_t e)
{
	return cell_get(&r->sums, 2 * (size_t)e + 1);
}

/* The callers node of s's stack (NONE: no callers), root first. Samples
 * come in allnext order, newest bucket first, and neighbours share most
 * of their callers: those the last sample had need no lookup. */
static int callers_of(struct huatuo_entries *r, const struct gh_sample *s,
		      uint32_t *node)
{
	size_t n = s->nlocs ? s->nlocs - 1 : 0, k = 0, cap;
	uint32_t loc, (*grown)[2];

	if (n > r->cap_last) {
		cap = n > 2 * r->cap_last ? n : 2 * r->cap_last;
		grown = realloc(r->last, cap * sizeof(*r->last));
		if (!grown)
			return -1;
		r->last = grown;
		r->cap_last = cap;
	}
	*node = NONE;
	while (k < r->nlast && k < n &&
	       r->last[k][0] == s->locs[s->nlocs - 1 - k])
		*node = r->last[k++][1];
	for (; k < n; k++) {
		loc = s->locs[s->nlocs - 1 - k];
		if (pairset__add(&r->callers, *node, loc, node) < 0) {
			r->nlast = 0;
			return -1;
		}
		r->last[k][0] = loc;
		r->last[k][1] = *node;
	}
	r->nlast = n;
	return 0;
}

int huatuo_entries__add(struct huatuo_entries *r, const struct gh_profile *p,
			const struct gh_sample *s, bool alloc)
{
	uint32_t node, e;
	int added;

	if (r->bad_refs || !valid_refs(p, s)) {
		r->bad_refs = true;
		return 0;
	}
	if (callers_of(r, s, &node))
		return -1;
	added = pairset__add(&r->entries, node, s->nlocs ? s->locs[0] : NONE,
			     &e);
	if (added < 0 || (added && cells__reserve(&r->sums, (size_t)e + 1)))
		return -1;
	if (cell_add(&r->sums, 2 * (size_t)e,
		     s->value[alloc ? GH_ALLOC_OBJECTS : GH_INUSE_OBJECTS]) ||
	    cell_add(&r->sums, 2 * (size_t)e + 1,
		     s->value[alloc ? GH_ALLOC_SPACE : GH_INUSE_SPACE]))
		return -1;
	return 0;
}

bool huatuo_entries__bad_refs(const struct huatuo_entries *es)
{
	return es->bad_refs;
}

/* ---- names and order, from the final profile ---- */

struct name_pick {
	struct huatuo_names *ln;
	size_t loc;
};

static bool pick_name(void *ctx, const struct huatuo_frame *fr)
{
	struct name_pick *np = ctx;
	struct huatuo_names *ln = np->ln;
	const char *name = fr->fn ? fr->fn->name : ln->pc[np->loc];

	if (!fr->fn)
		snprintf(ln->pc[np->loc], sizeof(ln->pc[np->loc]), "0x%" PRIx64,
			 fr->pc);
	if (!ln->first[np->loc])
		ln->first[np->loc] = name;
	if (fr->fn && is_runtime(name))
		return false;
	ln->own[np->loc] = name;
	return true;
}

int huatuo_names__build(struct huatuo_names *ln, const struct gh_profile *p)
{
	size_t n = p->nlocations ? p->nlocations : 1;
	struct name_pick np = {ln, 0};

	ln->own = calloc(n, sizeof(*ln->own));
	ln->first = calloc(n, sizeof(*ln->first));
	ln->pc = calloc(n, sizeof(*ln->pc));
	if (!ln->own || !ln->first || !ln->pc)
		return -1;
	for (np.loc = 0; np.loc < p->nlocations; np.loc++)
		huatuo_location__frames(p, &p->locations[np.loc], pick_name,
					&np);
	return 0;
}

void huatuo_names__free(struct huatuo_names *ln)
{
	free(ln->own);
	free(ln->first);
	free(ln->pc);
}

const char *huatuo_entries__name(const struct huatuo_entries *r,
				 const struct huatuo_names *ln, uint32_t e)
{
	uint32_t node = pairset__a(&r->entries, e);
	uint32_t loc = pairset__b(&r->entries, e);
	const char *first;

	if (loc == NONE)
		return "";
	first = ln->first[loc];
	while (!ln->own[loc]) {
		if (node == NONE)
			return first;
		loc = pairset__b(&r->callers, node);
		node = pairset__a(&r->callers, node);
	}
	return ln->own[loc];
}

struct entry_order {
	const struct huatuo_entries *r;
	const struct huatuo_names *ln;
};

static int cmp3(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* Bytes, objects descending, then name, then first-sample order. */
static int cmp_entry(const void *a, const void *b, void *ctx)
{
	const struct entry_order *sc = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const char *nx, *ny;
	int c = cmp3(huatuo_entries__bytes(sc->r, y),
		     huatuo_entries__bytes(sc->r, x));

	if (!c)
		c = cmp3(huatuo_entries__objects(sc->r, y),
			 huatuo_entries__objects(sc->r, x));
	if (!c) {
		nx = huatuo_entries__name(sc->r, sc->ln, x);
		ny = huatuo_entries__name(sc->r, sc->ln, y);
		c = nx == ny ? 0 : strcmp(nx, ny);
	}
	return c ? c : cmp3(x, y);
}

int huatuo_entries__order(struct huatuo_entries *r, const struct gh_profile *p,
			  size_t top_n)
{
	struct huatuo_names ln = {0};
	struct entry_order sc = {r, &ln};
	uint32_t e, *shrunk;
	int rc = -1;
	size_t n;

	pairset__freeze(&r->callers);
	pairset__freeze(&r->entries);
	n = r->entries.n;
	r->order = malloc((n ? n : 1) * sizeof(*r->order));
	if (!r->order || huatuo_names__build(&ln, p))
		goto out;
	for (e = 0; e < n; e++)
		if (huatuo_entries__bytes(r, e) ||
		    huatuo_entries__objects(r, e))
			r->order[r->nnonzero++] = e;
	qsort_r(r->order, r->nnonzero, sizeof(*r->order), cmp_entry, &sc);
	r->nshown = top_n && top_n < r->nnonzero ? top_n : r->nnonzero;
	shrunk = realloc(r->order,
			 (r->nshown ? r->nshown : 1) * sizeof(*r->order));
	if (shrunk)
		r->order = shrunk;
	rc = 0;
out:
	huatuo_names__free(&ln);
	return rc;
}

size_t huatuo_entries__shown(const struct huatuo_entries *es)
{
	return es->nshown;
}

uint32_t huatuo_entries__at(const struct huatuo_entries *es, size_t i)
{
	return es->order[i];
}

bool huatuo_entries__cut(const struct huatuo_entries *es)
{
	return es->nshown < es->nnonzero;
}

uint32_t huatuo_entries__leaf(const struct huatuo_entries *es, uint32_t e,
			      uint32_t *node)
{
	*node = pairset__a(&es->entries, e);
	return pairset__b(&es->entries, e);
}

uint32_t huatuo_entries__caller(const struct huatuo_entries *es, uint32_t *node)
{
	uint32_t loc = pairset__b(&es->callers, *node);

	*node = pairset__a(&es->callers, *node);
	return loc;
}

struct huatuo_entries *huatuo_entries__new(void)
{
	return calloc(1, sizeof(struct huatuo_entries));
}

void huatuo_entries__reset(struct huatuo_entries *es)
{
	pairset__free(&es->callers);
	pairset__free(&es->entries);
	cells__free(&es->sums);
	free(es->last);
	free(es->order);
	*es = (struct huatuo_entries){0};
}

void huatuo_entries__free(struct huatuo_entries *es)
{
	if (!es)
		return;
	huatuo_entries__reset(es);
	free(es);
}
