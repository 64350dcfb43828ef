/* topgraph.c - see topgraph.h. It streams as newGraph does sample by
 * sample, keeping per-function sums only: a sample adds its weight to
 * the cum of each function on its stack (once, however often it recurs)
 * and to the flat of its leaf. Which nodes are kept is known only once
 * every sample is in, and the inline marks come from the edges between
 * kept nodes (a dropped node in between is skipped over): pprof builds
 * its graph a second time for them, and so does this, from the samples'
 * compressed log (toplog.c), a few bytes a sample. */
#include <stdlib.h>
#include <string.h>

#include "base/pairset.h"
#include "base/u64map.h"
#include "profile/refs.h"
#include "write/measure.h"
#include "write/topgraph.h"

#define EDGE_FRACTION 0.001 /* pprof's default -edgefraction */
#define NONE	      UINT32_MAX
/* Node ids stay below NONE. */
#define MAX_NODES (UINT32_MAX - 1)

struct top_edge {
	int64_t weight;
	uint64_t seen; /* the last sample that added to it */
	bool inl;      /* every sample's first occurrence is inlined */
};

/* Room for need elements of size at v, doubling its capacity *cap; NULL
 * when out of memory (v is left as it was). */
static void *reserve(void *v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 64;

	if (need <= *cap)
		return v;
	while (c < need)
		c *= 2;
	v = realloc(v, c * size);
	if (v)
		*cap = c;
	return v;
}

/* A node's identity: the function's name, or the obj node's file. */
static const char *node_key(const struct gh_profile *p,
			    const struct top_node *n)
{
	const char *file;

	if (!n->obj)
		return p->functions[n->ref].name;
	file = n->ref ? p->mappings[n->ref - 1].file : NULL;
	return file ? file : "";
}

const char *top_node__name(const struct gh_profile *p, const struct top_node *n)
{
	return n->obj ? n->label : node_key(p, n);
}

struct key_probe {
	const struct top_graph *t;
	const struct gh_profile *p;
	const char *key;
	bool obj;
};

static bool key_eq(void *ctx, uint32_t val)
{
	const struct key_probe *kp = ctx;
	const struct top_node *n = &kp->t->nodes[val];

	return n->obj == kp->obj && strcmp(node_key(kp->p, n), kp->key) == 0;
}

int top_base_name(const char *path, const char **start)
{
	size_t n = strlen(path);
	const char *b;

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (b = path + n; b > path && b[-1] != '/';)
		b--;
	if (b == path + n) /* path is "/" */
		b = path;
	*start = b;
	return (int)(path + n - b);
}

/* "[base name]" of an object file, or "<unknown>", as NodeInfo prints it. */
static char *obj_label(const char *file)
{
	const char *base;
	char *label;
	int n;

	if (!file[0])
		return strdup("<unknown>");
	n = top_base_name(file, &base);
	label = malloc((size_t)n + 3);
	if (label)
		snprintf(label, (size_t)n + 3, "[%.*s]", n, base);
	return label;
}

/* The node of n's key, added if new; NONE when out of memory. */
static uint32_t node_for(struct top_graph *t, const struct gh_profile *p,
			 struct top_node n)
{
	struct key_probe kp = {t, p, node_key(p, &n), n.obj};
	uint64_t h = hash_str(kp.key) ^ (n.obj ? 0x9e3779b97f4a7c15ULL : 0);
	uint32_t val;
	struct top_node *grown;

	if (u64map__get(&t->bykey, h, key_eq, &kp, &val))
		return val;
	if (t->nnodes >= MAX_NODES)
		return NONE;
	grown = reserve(t->nodes, &t->cap_nodes, t->nnodes + 1,
			sizeof(*t->nodes));
	if (!grown)
		return NONE;
	t->nodes = grown;
	if (n.obj && !(n.label = obj_label(kp.key)))
		return NONE;
	if (u64map__put(&t->bykey, h, (uint32_t)t->nnodes)) {
		free(n.label);
		return NONE;
	}
	t->nodes[t->nnodes] = n;
	return (uint32_t)t->nnodes++;
}

/* A line's node: its function by name, or the location's binary when the
 * function has no name (pprof's nodeInfo then shows the object file). */
static uint32_t line_node(struct top_graph *t, const struct gh_profile *p,
			  const struct gh_location *l, const struct gh_line *ln)
{
	const char *name = ln ? p->functions[ln->function].name : NULL;
	uint32_t map = 0;

	if (name && name[0])
		return node_for(t, p, (struct top_node){.ref = ln->function});
	if (l->mapping && p->mappings[l->mapping - 1].file)
		map = l->mapping;
	return node_for(t, p, (struct top_node){.ref = map, .obj = true});
}

static int add_line_node(struct top_graph *t, uint32_t node)
{
	uint32_t *grown;

	if (node == NONE)
		return -1;
	grown = reserve(t->loc_node, &t->cap_lines, t->nlines + 1,
			sizeof(*t->loc_node));
	if (!grown)
		return -1;
	t->loc_node = grown;
	t->loc_node[t->nlines++] = node;
	return 0;
}

/* Map the locations p added since the last call to their nodes, one per
 * line (at least one). A location that refers to nothing stops it (and
 * fails the table). */
static int index_locations(struct top_graph *t, const struct gh_profile *p)
{
	uint32_t *grown;
	uint32_t j;

	grown = reserve(t->loc_off, &t->cap_off, p->nlocations + 1,
			sizeof(*t->loc_off));
	if (!grown)
		return -1;
	t->loc_off = grown;
	for (; t->nlocs < p->nlocations; t->nlocs++) {
		const struct gh_location *l = &p->locations[t->nlocs];

		if (!refs_location_ok(p, l)) {
			t->bad_refs = true;
			return 0;
		}
		if (t->nlines + l->nlines + 1 >= UINT32_MAX)
			return -1;
		t->loc_off[t->nlocs] = (uint32_t)t->nlines;
		if (!l->nlines && add_line_node(t, line_node(t, p, l, NULL)))
			return -1;
		for (j = 0; j < l->nlines; j++)
			if (add_line_node(t, line_node(t, p, l, &l->lines[j])))
				return -1;
		t->loc_off[t->nlocs + 1] = (uint32_t)t->nlines;
	}
	return 0;
}

/* A sample's weight to its nodes, walked root to leaf as newGraph walks
 * a stack: cum to each once, flat to the last; total and graph_sum as
 * newGraph adds them. */
int top_graph__add(struct top_graph *t, const struct gh_profile *p,
		   const struct gh_sample *s)
{
	int64_t w = s->value[t->index];
	uint32_t node = NONE, j, k;

	t->total += w < 0 ? -w : w;
	for (j = 0; j < s->nlocs && !t->bad_refs; j++) {
		if (s->locs[j] >= p->nlocations)
			t->bad_refs = true;
		else if (s->locs[j] >= t->nlocs && index_locations(t, p))
			return -1;
	}
	if (t->bad_refs || !w || !s->nlocs)
		return 0;
	t->graph_sum += w;
	t->nsamples++;
	for (j = s->nlocs; j-- > 0;) {
		uint32_t lo = t->loc_off[s->locs[j]];

		for (k = t->loc_off[s->locs[j] + 1]; k-- > lo;) {
			node = t->loc_node[k];
			if (t->nodes[node].seen != t->nsamples) {
				t->nodes[node].seen = t->nsamples;
				t->nodes[node].cum += w;
			}
		}
	}
	t->nodes[node].flat += w;
	return toplog__add(&t->log, w, s->locs, s->nlocs);
}

/* ---- the table ---- */

struct node_order {
	const struct top_graph *t;
	const struct gh_profile *p;
};

/* pprof's FlatNameOrder: |flat| desc, name, |cum| desc, then identity. */
static int cmp_flat_name(const void *a, const void *b, void *ctx)
{
	const struct node_order *sc = ctx;
	const struct top_node *x = &sc->t->nodes[*(const uint32_t *)a];
	const struct top_node *y = &sc->t->nodes[*(const uint32_t *)b];
	int c;

	if (measure_abs64(x->flat) != measure_abs64(y->flat))
		return measure_abs64(x->flat) > measure_abs64(y->flat) ? -1 : 1;
	c = strcmp(top_node__name(sc->p, x), top_node__name(sc->p, y));
	if (c)
		return c;
	if (measure_abs64(x->cum) != measure_abs64(y->cum))
		return measure_abs64(x->cum) > measure_abs64(y->cum) ? -1 : 1;
	return strcmp(node_key(sc->p, x), node_key(sc->p, y));
}

/* Drop nodes below the cum cutoff, sort, keep the first top_n. Nodes no
 * sample weighs on take no part (newGraph never makes them), and the
 * order is total: the order nodes were made in does not show. */
static int select_nodes(struct top_graph *t, const struct gh_profile *p)
{
	double cut = (double)t->graph_sum * TOP_NODE_FRACTION;
	int64_t cutoff = measure_abs64((int64_t)cut);
	struct node_order sc = {t, p};
	size_t i, top_n = t->top_n;

	t->order = malloc((t->nnodes ? t->nnodes : 1) * sizeof(*t->order));
	if (!t->order)
		return -1;
	for (i = 0; i < t->nnodes; i++) {
		const struct top_node *n = &t->nodes[i];

		if (!n->flat && !n->cum)
			continue;
		if (measure_abs64(n->cum) < cutoff)
			t->dropped++;
		else
			t->order[t->nkept++] = (uint32_t)i;
	}
	t->orig = t->nkept;
	qsort_r(t->order, t->nkept, sizeof(*t->order), cmp_flat_name, &sc);
	if (top_n && top_n < t->nkept)
		t->nkept = top_n;
	for (i = 0; i < t->nkept; i++)
		t->nodes[t->order[i]].kept = true;
	return 0;
}

/* The edges between kept nodes, as newGraph makes them walking a stack
 * from root to leaf: each kept node's caller is the last kept node above
 * it (dropped ones in between are skipped over: pprof's residual edges);
 * an edge counts once per sample, at its first occurrence, whose line
 * says whether it is inlined. */
struct edge_walk {
	struct top_graph *t;
	struct pairset ids; /* (src, dst) */
	struct top_edge *v;
	size_t cap;
	uint64_t sample; /* the one being walked, from 1 */
};

/* The edge from src to dst, added if new; NULL when out of memory. */
static struct top_edge *edge_for(struct edge_walk *ew, uint32_t src,
				 uint32_t dst)
{
	struct top_edge *grown;
	uint32_t e;
	int added = pairset__add(&ew->ids, src, dst, &e);

	if (added < 0)
		return NULL;
	if (added) {
		grown = reserve(ew->v, &ew->cap, (size_t)e + 1, sizeof(*ew->v));
		if (!grown)
			return NULL;
		ew->v = grown;
		ew->v[e] = (struct top_edge){0, 0, true};
	}
	return &ew->v[e];
}

static int edge_sample(void *ctx, int64_t w, const uint32_t *stack, size_t n)
{
	struct edge_walk *ew = ctx;
	const struct top_graph *t = ew->t;
	uint32_t src = NONE, dst, lo, hi, k;
	struct top_edge *e;
	size_t j;

	ew->sample++;
	for (j = 0; j < n; j++) {
		if (stack[j] >= t->nlocs)
			return -1;
		lo = t->loc_off[stack[j]];
		hi = t->loc_off[stack[j] + 1];
		for (k = hi; k-- > lo;) {
			dst = t->loc_node[k];
			if (!t->nodes[dst].kept)
				continue;
			if (src != NONE && src != dst) {
				if (!(e = edge_for(ew, src, dst)))
					return -1;
				if (e->seen != ew->sample) {
					e->seen = ew->sample;
					e->weight += w;
					e->inl = e->inl && k != hi - 1;
				}
			}
			src = dst;
		}
	}
	return 0;
}

/* Mark each kept node inline / called from its edges above the cutoff. */
static void mark_inline(struct top_graph *t, const struct edge_walk *ew)
{
	int64_t cutoff =
		measure_abs64((int64_t)((double)t->graph_sum * EDGE_FRACTION));
	struct top_node *n;
	uint32_t e;

	for (e = 0; e < ew->ids.n; e++) {
		if (measure_abs64(ew->v[e].weight) < cutoff)
			continue;
		n = &t->nodes[pairset__b(&ew->ids, e)];
		if (ew->v[e].inl)
			n->inl = true;
		else
			n->noinl = true;
	}
}

static int add_edges(struct top_graph *t)
{
	struct edge_walk ew = {.t = t};
	int rc = -1;

	if (!toplog__replay(&t->log, edge_sample, &ew)) {
		mark_inline(t, &ew);
		rc = 0;
	}
	pairset__free(&ew.ids);
	free(ew.v);
	return rc;
}

/* Everything but the table: the log and the node index. */
static void drop_aggregate(struct top_graph *t)
{
	toplog__free(&t->log);
	free(t->loc_off);
	free(t->loc_node);
	t->loc_off = t->loc_node = NULL;
	t->nlocs = t->cap_off = t->nlines = t->cap_lines = 0;
	u64map__free(&t->bykey);
}

int top_graph__finish(struct top_graph *t, const struct gh_profile *p)
{
	int rc = 0;

	if (select_nodes(t, p) || add_edges(t))
		rc = -1;
	drop_aggregate(t);
	return rc;
}

void top_graph__reset(struct top_graph *t)
{
	size_t i;

	drop_aggregate(t);
	for (i = 0; i < t->nnodes; i++)
		free(t->nodes[i].label);
	free(t->nodes);
	free(t->order);
	*t = (struct top_graph){.index = t->index, .top_n = t->top_n};
}
