/* top.c - the top renderer: the table `go tool pprof -top -sample_index=X
 * -nodecount=N` prints for the profile, computed the way pprof's
 * internal/graph and internal/report do it with their defaults:
 *
 * - nodes are functions (inlined frames are functions of their own);
 *   a location without symbols is "[binary]" (or "<unknown>");
 * - flat goes to a sample's leaf frame, cum to every function on its
 *   stack once per sample, however often it recurs;
 * - nodes with cum below 0.5% of the total are dropped (nodefraction),
 *   the rest sorted by flat, name, cum and cut to top_n (nodecount);
 * - a node all of whose kept callers reach it through inlining is
 *   "(inline)", with some through calls "(partial-inline)" (callers below
 *   0.1% of the total, edgefraction, do not count);
 * - values use one unit for the whole table, chosen from the smallest
 *   value and the total, and pprof's %.2f / %5.2f%% formatting.
 *
 * It streams: a sample's stack, read as nodes from root to leaf (each
 * marked inlined or not), is a path in a trie whose end holds the summed
 * weight of the samples that take it; nothing else of a sample is kept.
 * Stacks that differ only in lines (call sites, allocation sizes) share
 * their path: the million buckets of tools/bench/benchgen, a recursion
 * through four call sites, make 143 paths. Once the build is over the
 * trie gives flat and cum, hence the kept nodes, and then the edges
 * between kept nodes: exactly what newGraph finds sample by sample. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "base/pairset.h"
#include "base/u64map.h"
#include "profile/refs.h"
#include "write/render.h"
#include "write/top.h"

#define NODE_FRACTION 0.005 /* pprof's default -nodefraction */
#define EDGE_FRACTION 0.001 /* pprof's default -edgefraction */
#define NONE	      UINT32_MAX
/* Node ids stay below this: a path's key holds node << 1. */
#define MAX_NODES (UINT32_MAX >> 1)

struct node {
	/* function index; for an obj node, 1 + its mapping's (0: none) */
	uint32_t ref;
	bool obj;    /* unsymbolized: named after its binary */
	char *label; /* printable name of an obj node (owned) */
	int64_t flat, cum;
	uint32_t active; /* paths through it on the branch being walked */
	bool kept;	 /* in the final table */
	bool inl, noinl; /* kept callers reach it inlined / by call */
};

struct edge {
	int64_t weight;
	uint32_t active; /* times it occurs on the branch being walked */
	bool inl;	 /* every first occurrence on a path is inlined */
};

struct top {
	struct render_head h;
	struct node *nodes;
	size_t nnodes, cap_nodes;
	struct u64map bykey; /* node key hash -> node */
	/* The nodes of each location seen so far, one per line, leaf
	 * (innermost inlined) first: loc_node[loc_off[i]..loc_off[i + 1]). */
	uint32_t *loc_off, *loc_node;
	size_t nlocs, cap_off, nlines, cap_lines;
	/* Paths: (parent path or NONE, node << 1 | inlined line). A parent
	 * is always added before its children: ids grow from root to leaf. */
	struct pairset paths;
	int64_t *weight; /* per path: samples ending there, summed */
	size_t cap_weight;
	int64_t total;	   /* sum of |value| over all samples */
	int64_t graph_sum; /* sum of flat over all nodes */
	bool bad_refs;	   /* a sample or location refers to nothing */
	/* The table, once the build is finished. */
	bool finished;
	uint32_t *order; /* kept nodes, in table order */
	size_t nkept, dropped, orig;
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
static const char *node_key(const struct gh_profile *p, const struct node *n)
{
	const char *file;

	if (!n->obj)
		return p->functions[n->ref].name;
	file = n->ref ? p->mappings[n->ref - 1].file : NULL;
	return file ? file : "";
}

static const char *node_name(const struct gh_profile *p, const struct node *n)
{
	return n->obj ? n->label : node_key(p, n);
}

struct key_probe {
	const struct top *t;
	const struct gh_profile *p;
	const char *key;
	bool obj;
};

static bool key_eq(void *ctx, uint32_t val)
{
	const struct key_probe *kp = ctx;
	const struct node *n = &kp->t->nodes[val];

	return n->obj == kp->obj && strcmp(node_key(kp->p, n), kp->key) == 0;
}

/* The last element of a non-empty path, as Go's filepath.Base finds it:
 * trailing slashes ignored, "/" for a path of slashes only. */
static int base_name(const char *path, const char **start)
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
	n = base_name(file, &base);
	label = malloc((size_t)n + 3);
	if (label)
		snprintf(label, (size_t)n + 3, "[%.*s]", n, base);
	return label;
}

/* The node of n's key, added if new; NONE when out of memory. */
static uint32_t node_for(struct top *t, const struct gh_profile *p,
			 struct node n)
{
	struct key_probe kp = {t, p, node_key(p, &n), n.obj};
	uint64_t h = hash_str(kp.key) ^ (n.obj ? 0x9e3779b97f4a7c15ULL : 0);
	uint32_t val;
	struct node *grown;

	if (u64map_get(&t->bykey, h, key_eq, &kp, &val))
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
	if (u64map_put(&t->bykey, h, (uint32_t)t->nnodes)) {
		free(n.label);
		return NONE;
	}
	t->nodes[t->nnodes] = n;
	return (uint32_t)t->nnodes++;
}

/* A line's node: its function by name, or the location's binary when the
 * function has no name (pprof's nodeInfo then shows the object file). */
static uint32_t line_node(struct top *t, const struct gh_profile *p,
			  const struct gh_location *l, const struct gh_line *ln)
{
	const char *name = ln ? p->functions[ln->function].name : NULL;
	uint32_t map = 0;

	if (name && name[0])
		return node_for(t, p, (struct node){.ref = ln->function});
	if (l->mapping && p->mappings[l->mapping - 1].file)
		map = l->mapping;
	return node_for(t, p, (struct node){.ref = map, .obj = true});
}

static int add_line_node(struct top *t, uint32_t node)
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
static int index_locations(struct top *t, const struct gh_profile *p)
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

/* One step from path *path to node (inlined: not its location's
 * outermost line). */
static int step(struct top *t, uint32_t *path, uint32_t node, bool inl)
{
	int64_t *grown;
	uint32_t id;
	int added = pairset_add(&t->paths, *path, node << 1 | inl, &id);

	if (added < 0)
		return -1;
	if (added) {
		grown = reserve(t->weight, &t->cap_weight, (size_t)id + 1,
				sizeof(*t->weight));
		if (!grown)
			return -1;
		t->weight = grown;
		t->weight[id] = 0;
	}
	*path = id;
	return 0;
}

/* A sample's weight goes to the end of its path, root to leaf as
 * newGraph walks a stack; total and graph_sum as newGraph adds them. */
static int top_sample(void *st, const struct gh_profile *p,
		      const struct gh_sample *s)
{
	struct top *t = st;
	int64_t w = s->value[t->h.o.index];
	uint32_t path = NONE, j, k;

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
	for (j = s->nlocs; j-- > 0;) {
		uint32_t lo = t->loc_off[s->locs[j]];
		uint32_t hi = t->loc_off[s->locs[j] + 1];

		for (k = hi; k-- > lo;)
			if (step(t, &path, t->loc_node[k], k != hi - 1))
				return -1;
	}
	t->weight[path] += w;
	return 0;
}

/* ---- the table from the paths ---- */

/* The paths as a tree to walk: first child and next sibling of each, and
 * the first root. */
struct tree {
	uint32_t *child, *sibling;
	uint32_t root;
};

static int tree_build(const struct pairset *paths, struct tree *tr)
{
	size_t n = paths->n;
	uint32_t i, parent;

	tr->child = malloc((n ? n : 1) * sizeof(*tr->child));
	tr->sibling = malloc((n ? n : 1) * sizeof(*tr->sibling));
	if (!tr->child || !tr->sibling)
		return -1;
	tr->root = NONE;
	for (i = 0; i < n; i++)
		tr->child[i] = NONE;
	for (i = (uint32_t)n; i-- > 0;) {
		parent = pairset_a(paths, i);
		if (parent == NONE) {
			tr->sibling[i] = tr->root;
			tr->root = i;
		} else {
			tr->sibling[i] = tr->child[parent];
			tr->child[parent] = i;
		}
	}
	return 0;
}

static void tree_free(struct tree *tr)
{
	free(tr->child);
	free(tr->sibling);
}

struct walker {
	int (*enter)(void *ctx, uint32_t path);
	void (*leave)(void *ctx, uint32_t path);
	void *ctx;
};

/* Visit every path depth first: enter it, its subtree, leave it. The
 * branch being walked is a stack of paths; a path leaves it when the
 * next one entered is not its child. */
static int walk(const struct pairset *paths, const struct tree *tr,
		const struct walker *w)
{
	size_t n = paths->n ? paths->n : 1, ntodo = 0, nbranch = 0;
	uint32_t *todo = malloc(n * sizeof(*todo));
	uint32_t *branch = malloc(n * sizeof(*branch));
	uint32_t path, c;
	int rc = todo && branch ? 0 : -1;

	for (c = tr->root; c != NONE && !rc; c = tr->sibling[c])
		todo[ntodo++] = c;
	while (ntodo && !rc) {
		path = todo[--ntodo];
		while (nbranch && branch[nbranch - 1] != pairset_a(paths, path))
			w->leave(w->ctx, branch[--nbranch]);
		rc = w->enter(w->ctx, path);
		branch[nbranch++] = path;
		for (c = tr->child[path]; c != NONE; c = tr->sibling[c])
			todo[ntodo++] = c;
	}
	while (nbranch && !rc)
		w->leave(w->ctx, branch[--nbranch]);
	free(todo);
	free(branch);
	return rc;
}

static uint32_t path_node(const struct top *t, uint32_t path)
{
	return pairset_b(&t->paths, path) >> 1;
}

static bool path_inlined(const struct top *t, uint32_t path)
{
	return pairset_b(&t->paths, path) & 1;
}

/* cum: a path's subtree weight counts for its node unless the node is on
 * the branch above already (recursion counts once per sample). */
static int cum_enter(void *ctx, uint32_t path)
{
	struct top *t = ctx;
	struct node *n = &t->nodes[path_node(t, path)];

	if (!n->active++)
		n->cum += t->weight[path];
	return 0;
}

static void cum_leave(void *ctx, uint32_t path)
{
	struct top *t = ctx;

	t->nodes[path_node(t, path)].active--;
}

/* Flat from the paths' own weights; then weights become subtree sums
 * (children have higher ids than their parents), and cum comes from
 * those. */
static int add_values(struct top *t, const struct tree *tr)
{
	struct walker cum = {cum_enter, cum_leave, t};
	uint32_t i, parent;

	for (i = 0; i < t->paths.n; i++)
		t->nodes[path_node(t, i)].flat += t->weight[i];
	for (i = (uint32_t)t->paths.n; i-- > 0;) {
		parent = pairset_a(&t->paths, i);
		if (parent != NONE)
			t->weight[parent] += t->weight[i];
	}
	return walk(&t->paths, tr, &cum);
}

/* |v|, wrapping: INT64_MIN stays itself, not undefined behaviour. */
static int64_t abs64(int64_t v)
{
	return v < 0 ? (int64_t)(0 - (uint64_t)v) : v;
}

struct sort_ctx {
	const struct top *t;
	const struct gh_profile *p;
};

/* pprof's FlatNameOrder: |flat| desc, name, |cum| desc, then identity. */
static int cmp_flat_name(const void *a, const void *b, void *ctx)
{
	const struct sort_ctx *sc = ctx;
	const struct node *x = &sc->t->nodes[*(const uint32_t *)a];
	const struct node *y = &sc->t->nodes[*(const uint32_t *)b];
	int c;

	if (abs64(x->flat) != abs64(y->flat))
		return abs64(x->flat) > abs64(y->flat) ? -1 : 1;
	c = strcmp(node_name(sc->p, x), node_name(sc->p, y));
	if (c)
		return c;
	if (abs64(x->cum) != abs64(y->cum))
		return abs64(x->cum) > abs64(y->cum) ? -1 : 1;
	return strcmp(node_key(sc->p, x), node_key(sc->p, y));
}

/* Drop nodes below the cum cutoff, sort, keep the first top_n. Nodes no
 * sample weighs on take no part (newGraph never makes them), and the
 * order is total: the order nodes were made in does not show. */
static int select_nodes(struct top *t, const struct gh_profile *p)
{
	int64_t cutoff = abs64((int64_t)((double)t->graph_sum * NODE_FRACTION));
	struct sort_ctx sc = {t, p};
	size_t i, top_n = t->h.o.top_n;

	t->order = malloc((t->nnodes ? t->nnodes : 1) * sizeof(*t->order));
	if (!t->order)
		return -1;
	for (i = 0; i < t->nnodes; i++) {
		const struct node *n = &t->nodes[i];

		if (!n->flat && !n->cum)
			continue;
		if (abs64(n->cum) < cutoff)
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
	struct top *t;
	struct pairset ids; /* (src, dst) */
	struct edge *v;
	size_t cap;
	/* per path: the last kept node at or above it, and the edge it
	 * occurs in (NONE: none) */
	uint32_t *last_kept, *edge_of;
};

static int edge_enter(void *ctx, uint32_t path)
{
	struct edge_walk *ew = ctx;
	struct top *t = ew->t;
	uint32_t parent = pairset_a(&t->paths, path);
	uint32_t src = parent == NONE ? NONE : ew->last_kept[parent];
	uint32_t dst = path_node(t, path), e;
	struct edge *grown;
	int added;

	ew->edge_of[path] = NONE;
	ew->last_kept[path] = t->nodes[dst].kept ? dst : src;
	if (!t->nodes[dst].kept || src == NONE || src == dst)
		return 0;
	added = pairset_add(&ew->ids, src, dst, &e);
	if (added < 0)
		return -1;
	if (added) {
		grown = reserve(ew->v, &ew->cap, (size_t)e + 1, sizeof(*ew->v));
		if (!grown)
			return -1;
		ew->v = grown;
		ew->v[e] = (struct edge){0, 0, true};
	}
	if (!ew->v[e].active++) {
		ew->v[e].weight += t->weight[path];
		ew->v[e].inl = ew->v[e].inl && path_inlined(t, path);
	}
	ew->edge_of[path] = e;
	return 0;
}

static void edge_leave(void *ctx, uint32_t path)
{
	struct edge_walk *ew = ctx;

	if (ew->edge_of[path] != NONE)
		ew->v[ew->edge_of[path]].active--;
}

/* Mark each kept node inline / called from its edges above the cutoff. */
static void mark_inline(struct top *t, const struct edge_walk *ew)
{
	int64_t cutoff = abs64((int64_t)((double)t->graph_sum * EDGE_FRACTION));
	struct node *n;
	uint32_t e;

	for (e = 0; e < ew->ids.n; e++) {
		if (abs64(ew->v[e].weight) < cutoff)
			continue;
		n = &t->nodes[pairset_b(&ew->ids, e)];
		if (ew->v[e].inl)
			n->inl = true;
		else
			n->noinl = true;
	}
}

static int add_edges(struct top *t, const struct tree *tr)
{
	size_t n = t->paths.n ? t->paths.n : 1;
	struct edge_walk ew = {.t = t};
	struct walker w = {edge_enter, edge_leave, &ew};
	int rc = -1;

	ew.last_kept = malloc(n * sizeof(*ew.last_kept));
	ew.edge_of = malloc(n * sizeof(*ew.edge_of));
	if (ew.last_kept && ew.edge_of && !walk(&t->paths, tr, &w)) {
		mark_inline(t, &ew);
		rc = 0;
	}
	pairset_free(&ew.ids);
	free(ew.v);
	free(ew.last_kept);
	free(ew.edge_of);
	return rc;
}

/* ---- formatting, as internal/measurement does it ---- */

struct unit {
	const char *name;
	double factor;
};

static const struct unit byte_units[] = {
	{"B", 1},
	{"kB", 1024.0},
	{"MB", 1024.0 * 1024},
	{"GB", 1024.0 * 1024 * 1024},
	{"TB", 1024.0 * 1024 * 1024 * 1024},
	{"PB", 1024.0 * 1024 * 1024 * 1024 * 1024},
};

/* measurement's autoScale: the largest of n units that keeps v at
 * least 1 (the first when none does). */
static const struct unit *scale_in(const struct unit *units, size_t n,
				   int64_t v)
{
	const struct unit *u = &units[0];

	for (size_t i = 0; i < n; i++)
		if ((double)abs64(v) / units[i].factor >= 1.0)
			u = &units[i];
	return u;
}

static const struct unit *auto_unit(int64_t v)
{
	return scale_in(byte_units, sizeof(byte_units) / sizeof(byte_units[0]),
			v);
}

static const struct unit count_unit = {"", 1};

struct fmt {
	bool bytes;	       /* else a plain count */
	const struct unit *to; /* NULL: scale each value by itself */
};

/* ScaledLabel: "%.2f" in the unit, ".00" dropped, "0" for zero. */
static void scaled_label(int64_t v, const struct unit *u, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%.2f", (double)v / u->factor);
	n = strlen(buf);
	if (n > 3 && strcmp(buf + n - 3, ".00") == 0)
		buf[n -= 3] = '\0';
	if (strcmp(buf, "0") == 0 || strcmp(buf, "-0") == 0)
		return;
	snprintf(buf + n, len - n, "%s", u->name);
}

static void format_value(const struct fmt *fm, int64_t v, char *buf, size_t len)
{
	const struct unit *u = fm->to ? fm->to : auto_unit(v);

	scaled_label(v, fm->bytes ? u : &count_unit, buf, len);
}

/* measurement's time units, as Label scales nanoseconds ("auto"). */
static const struct unit time_units[] = {
	{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"hrs", 3.6e12},
};

/* ProfileLabels' line for a profile that spans a time (a delta): its
 * duration and the total. The ratio pprof adds after it is for samples
 * in time units only, which a heap profile has none of: a space stands
 * where it would. */
static void put_duration(FILE *f, const struct gh_profile *p,
			 const struct top *t, const struct fmt *fm)
{
	char dur[32], total[32];

	if (!p->duration_ns)
		return;
	scaled_label(p->duration_ns,
		     scale_in(time_units,
			      sizeof(time_units) / sizeof(time_units[0]),
			      p->duration_ns),
		     dur, sizeof(dur));
	format_value(fm, t->total, total, sizeof(total));
	fprintf(f, "Duration: %s, Total samples = %s \n", dur, total);
}

void top_value(int64_t v, bool bytes, char *buf, size_t len)
{
	const struct fmt fm = {bytes, NULL};

	format_value(&fm, v, buf, len);
}

/* measurement.Percentage, with its 6-column padding. */
static void format_pct(int64_t v, int64_t total, char *buf, size_t len)
{
	double r = total ? (double)v / (double)total : 0;

	r = (r < 0 ? -r : r) * 100;
	if (r >= 99.95 && r <= 100.05)
		snprintf(buf, len, "  100%%");
	else if (r >= 1.0)
		snprintf(buf, len, "%5.2f%%", r);
	else
		snprintf(buf, len, "%5.2g%%", r);
}

/* selectOutputUnit: the unit of the smallest value, or of 100 times it
 * when the total is more than 100 times bigger and in another unit. */
static void choose_unit(const struct top *t, struct fmt *fm)
{
	int64_t min = 0, max = t->total;
	const struct unit *lo, *hi;
	size_t i;

	if (!fm->bytes || !t->nkept)
		return;
	for (i = 0; i < t->nkept; i++) {
		const struct node *n = &t->nodes[t->order[i]];
		int64_t v = n->flat ? abs64(n->flat) : abs64(n->cum);

		if (v > 0 && (!min || v < min))
			min = v;
	}
	if (!min)
		min = max;
	lo = auto_unit(min);
	hi = auto_unit(max);
	fm->to = lo != hi && min * 100 < max ? auto_unit(100 * min) : lo;
}

static pthread_once_t tz_once = PTHREAD_ONCE_INIT;

/* ProfileLabels: binary, build ID, sample type, time. */
static void put_profile_labels(FILE *f, const struct gh_profile *p,
			       const char *type)
{
	const char *base;
	char buf[128];
	int n;

	if (p->nmappings && p->mappings[0].file && p->mappings[0].file[0]) {
		n = base_name(p->mappings[0].file, &base);
		fprintf(f, "File: %.*s\n", n, base);
	}
	if (p->nmappings && p->mappings[0].build_id &&
	    p->mappings[0].build_id[0])
		fprintf(f, "Build ID: %s\n", p->mappings[0].build_id);
	fprintf(f, "Type: %s\n", type);
	if (p->time_ns) {
		time_t secs = (time_t)(p->time_ns / 1000000000);
		struct tm tm;

		/* Once per process: tzset frees and rebuilds the zone data,
		 * which a concurrent localtime_r on another thread reads. */
		pthread_once(&tz_once, tzset);
		if (localtime_r(&secs, &tm) &&
		    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %Z", &tm))
			fprintf(f, "Time: %s\n", buf);
	}
}

static void put_report_labels(FILE *f, const struct top *t,
			      const struct fmt *fm)
{
	char shown[32], total[32], pct[16], cut[32];
	const char *trimmed = pct;
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < t->nkept; i++)
		sum += t->nodes[t->order[i]].flat;
	format_value(fm, sum, shown, sizeof(shown));
	format_value(fm, t->total, total, sizeof(total));
	format_pct(sum, t->total, pct, sizeof(pct));
	while (*trimmed == ' ')
		trimmed++;
	fprintf(f, "Showing nodes accounting for %s, %s of %s total\n", shown,
		trimmed, total);
	if (!t->total)
		return;
	if (t->dropped) {
		format_value(fm,
			     abs64((int64_t)((double)t->total * NODE_FRACTION)),
			     cut, sizeof(cut));
		fprintf(f, "Dropped %zu node%s (cum <= %s)\n", t->dropped,
			t->dropped > 1 ? "s" : "", cut);
	}
	if (t->nkept && t->nkept < t->orig)
		fprintf(f, "Showing top %zu nodes out of %zu\n", t->nkept,
			t->orig);
}

static void put_table(FILE *f, const struct gh_profile *p, const struct top *t,
		      const struct fmt *fm)
{
	char flat[32], cum[32], pf[16], ps[16], pc[16];
	int64_t sum = 0;
	size_t i;

	fprintf(f, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum",
		"cum", "cum");
	for (i = 0; i < t->nkept; i++) {
		const struct node *n = &t->nodes[t->order[i]];
		const char *inl = "";

		if (n->inl)
			inl = n->noinl ? " (partial-inline)" : " (inline)";
		sum += n->flat;
		format_value(fm, n->flat, flat, sizeof(flat));
		format_value(fm, n->cum, cum, sizeof(cum));
		format_pct(n->flat, t->total, pf, sizeof(pf));
		format_pct(sum, t->total, ps, sizeof(ps));
		format_pct(n->cum, t->total, pc, sizeof(pc));
		fprintf(f, "%10s %s %s %10s %s  %s%s\n", flat, pf, ps, cum, pc,
			node_name(p, n), inl);
	}
}

/* Everything but the table: the paths and the node index. */
static void drop_aggregate(struct top *t)
{
	pairset_free(&t->paths);
	free(t->weight);
	t->weight = NULL;
	t->cap_weight = 0;
	free(t->loc_off);
	free(t->loc_node);
	t->loc_off = t->loc_node = NULL;
	t->nlocs = t->cap_off = t->nlines = t->cap_lines = 0;
	u64map_free(&t->bykey);
}

static void top_reset(void *st)
{
	struct top *t = st;
	size_t i;

	drop_aggregate(t);
	for (i = 0; i < t->nnodes; i++)
		free(t->nodes[i].label);
	free(t->nodes);
	free(t->order);
	*t = (struct top){.h = t->h};
}

static int top_open(void **st, const struct gh_write_opts *o, bool own_thread,
		    struct gh_err *err)
{
	struct top *t = calloc(1, sizeof(*t));

	(void)own_thread;
	*st = t;
	if (!t)
		return err_set(err, GH_E_FAILED, "out of memory");
	t->h = (struct render_head){&render_top, *o};
	return 0;
}

/* The table from the paths, which are dropped: only the table is kept to
 * be written. */
static int top_finish(void *st, const struct gh_profile *p, struct gh_err *err)
{
	struct top *t = st;
	struct tree tr = {0};
	int rc = 0;
	size_t i;

	for (i = 0; i < p->nlocations && !t->bad_refs; i++)
		t->bad_refs = !refs_location_ok(p, &p->locations[i]);
	if (t->bad_refs)
		return err_set(err, GH_E_FAILED,
			       "internal error: the profile refers to a "
			       "missing location, mapping or function; "
			       "please report it");
	if (tree_build(&t->paths, &tr) || add_values(t, &tr) ||
	    select_nodes(t, p) || add_edges(t, &tr))
		rc = err_set(err, GH_E_FAILED,
			     "out of memory writing the top table");
	tree_free(&tr);
	drop_aggregate(t);
	t->finished = !rc;
	return rc;
}

static int top_write(void *st, const struct gh_profile *p, FILE *f,
		     struct gh_err *err)
{
	const struct top *t = st;
	enum gh_value index = t->h.o.index;
	struct fmt fm = {.bytes = index == GH_ALLOC_SPACE ||
				  index == GH_INUSE_SPACE};

	if (!t->finished)
		return err_set(err, GH_E_FAILED,
			       "internal error: the top table was not "
			       "finished; please report it");
	choose_unit(t, &fm);
	put_profile_labels(f, p, gh_value__name(index));
	put_duration(f, p, t, &fm);
	put_report_labels(f, t, &fm);
	put_table(f, p, t, &fm);
	if (fflush(f) || ferror(f))
		return err_set(err, GH_E_OUTPUT,
			       "cannot write the top output: %s; check the "
			       "output path and free disk space",
			       strerror(errno));
	return 0;
}

static void top_free(void *st)
{
	if (!st)
		return;
	top_reset(st);
	free(st);
}

const struct render_ops render_top = {
	.format = GH_FORMAT_TOP,
	.open = top_open,
	.sink = {.sample = top_sample,
		 .reset = top_reset,
		 .finish = top_finish,
		 .free = top_free},
	.write = top_write,
};
