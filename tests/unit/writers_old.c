/* writers_old.c - the top and JSON writers as they were before they
 * streamed (commit 97f8f18, user/write/top.c and json.c, their renderers
 * left out): whole-profile code that sees every sample at once. Kept
 * only as the reference test_writers.c holds the streaming renderers to,
 * byte for byte; included by it, not built on its own. */

/* ---- top.c ---- */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "base/u64map.h"
#include "write/render.h"

#define NODE_FRACTION 0.005 /* pprof's default -nodefraction */
#define EDGE_FRACTION 0.001 /* pprof's default -edgefraction */
#define NONE	      SIZE_MAX

struct node {
	const char *key; /* function name, or mapping file for obj nodes */
	bool obj;	 /* unsymbolized: named after its binary */
	char *label;	 /* printable name of an obj node (owned) */
	int64_t flat, cum;
	size_t seen;	 /* last sample (+1) that added to cum */
	bool kept;	 /* in the final table */
	bool inl, noinl; /* kept callers reach it inlined / by call */
	size_t first_in; /* first edge into this node */
};

struct edge {
	size_t src, next_in;
	int64_t weight;
	bool inl;
	size_t seen; /* last sample (+1) that added to weight */
};

struct top {
	const struct gh_profile *p;
	int ix;
	struct node *nodes;
	size_t nnodes;
	struct u64map bykey;
	size_t *loc_off;  /* nodes of location i: loc_node[loc_off[i]..[i+1]] */
	size_t *loc_node; /* leaf (innermost inlined) first, as lines */
	struct edge *edges;
	size_t nedges, cap_edges;
	size_t *order; /* kept nodes, in table order */
	size_t nkept;
	int64_t total;	   /* sum of |value| over all samples */
	int64_t graph_sum; /* sum of flat over all nodes */
	size_t dropped, orig;
};

static const char *node_name(const struct node *n)
{
	return n->obj ? n->label : n->key;
}

struct key_probe {
	const struct top *t;
	const char *key;
	bool obj;
};

static bool key_eq(void *ctx, uint32_t val)
{
	const struct key_probe *kp = ctx;
	const struct node *n = &kp->t->nodes[val];

	return n->obj == kp->obj && strcmp(n->key, kp->key) == 0;
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

/* The node for key, created if new; NONE when out of memory. */
static size_t node_for(struct top *t, const char *key, bool obj)
{
	struct key_probe kp = {t, key, obj};
	uint64_t h = hash_str(key) ^ (obj ? 0x9e3779b97f4a7c15ULL : 0);
	uint32_t val;
	struct node *n;

	if (u64map_get(&t->bykey, h, key_eq, &kp, &val))
		return val;
	n = &t->nodes[t->nnodes];
	*n = (struct node){.key = key, .obj = obj, .first_in = NONE};
	if (obj && !(n->label = obj_label(key)))
		return NONE;
	if (u64map_put(&t->bykey, h, (uint32_t)t->nnodes)) {
		free(n->label);
		return NONE;
	}
	return t->nnodes++;
}

/* A line's node: its function by name, or the location's binary when the
 * function has no name (pprof's nodeInfo then shows the object file). */
static size_t line_node(struct top *t, const struct gh_location *l,
			const struct gh_line *ln)
{
	const struct gh_profile *p = t->p;
	const char *file = "";

	if (ln && p->functions[ln->function].name &&
	    p->functions[ln->function].name[0])
		return node_for(t, p->functions[ln->function].name, false);
	if (l->mapping && p->mappings[l->mapping - 1].file)
		file = p->mappings[l->mapping - 1].file;
	return node_for(t, file, true);
}

static int check_refs(const struct gh_profile *p)
{
	size_t i, j;

	for (i = 0; i < p->nsamples; i++)
		for (j = 0; j < p->samples[i].nlocs; j++)
			if (p->samples[i].locs[j] >= p->nlocations)
				return -1;
	for (i = 0; i < p->nlocations; i++) {
		if (p->locations[i].mapping > p->nmappings)
			return -1;
		for (j = 0; j < p->locations[i].nlines; j++)
			if (p->locations[i].lines[j].function >= p->nfunctions)
				return -1;
	}
	return 0;
}

/* Map every location to its nodes, one per line (at least one). */
static int index_nodes(struct top *t)
{
	const struct gh_profile *p = t->p;
	size_t i, j, n = 0;

	for (i = 0; i < p->nlocations; i++)
		n += p->locations[i].nlines ? p->locations[i].nlines : 1;
	if (n >= UINT32_MAX)
		return -1;
	t->nodes = calloc(n ? n : 1, sizeof(*t->nodes));
	t->loc_node = calloc(n ? n : 1, sizeof(*t->loc_node));
	t->loc_off = calloc(p->nlocations + 1, sizeof(*t->loc_off));
	if (!t->nodes || !t->loc_node || !t->loc_off)
		return -1;
	n = 0;
	for (i = 0; i < p->nlocations; i++) {
		const struct gh_location *l = &p->locations[i];

		t->loc_off[i] = n;
		if (!l->nlines &&
		    (t->loc_node[n++] = line_node(t, l, NULL)) == NONE)
			return -1;
		for (j = 0; j < l->nlines; j++)
			if ((t->loc_node[n++] =
				     line_node(t, l, &l->lines[j])) == NONE)
				return -1;
	}
	t->loc_off[i] = n;
	return 0;
}

/* Flat and cum of every node, as graph.newGraph adds them up. */
static void add_values(struct top *t)
{
	const struct gh_profile *p = t->p;
	size_t i, j, k;

	for (i = 0; i < p->nsamples; i++) {
		const struct gh_sample *s = &p->samples[i];
		int64_t w = s->value[t->ix];

		t->total += w < 0 ? -w : w;
		if (!w || !s->nlocs)
			continue;
		for (j = 0; j < s->nlocs; j++) {
			for (k = t->loc_off[s->locs[j]];
			     k < t->loc_off[s->locs[j] + 1]; k++) {
				struct node *n = &t->nodes[t->loc_node[k]];

				if (n->seen != i + 1) {
					n->seen = i + 1;
					n->cum += w;
				}
			}
		}
		t->nodes[t->loc_node[t->loc_off[s->locs[0]]]].flat += w;
		t->graph_sum += w;
	}
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* pprof's FlatNameOrder: |flat| desc, name, |cum| desc, then identity. */
static int cmp_flat_name(const void *a, const void *b, void *ctx)
{
	const struct top *t = ctx;
	const struct node *x = &t->nodes[*(const size_t *)a];
	const struct node *y = &t->nodes[*(const size_t *)b];
	int c;

	if (abs64(x->flat) != abs64(y->flat))
		return abs64(x->flat) > abs64(y->flat) ? -1 : 1;
	c = strcmp(node_name(x), node_name(y));
	if (c)
		return c;
	if (abs64(x->cum) != abs64(y->cum))
		return abs64(x->cum) > abs64(y->cum) ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Drop nodes below the cum cutoff, sort, keep the first top_n. */
static int select_nodes(struct top *t, size_t top_n)
{
	int64_t cutoff = abs64((int64_t)((double)t->graph_sum * NODE_FRACTION));
	size_t i;

	t->order = calloc(t->nnodes ? t->nnodes : 1, sizeof(*t->order));
	if (!t->order)
		return -1;
	for (i = 0; i < t->nnodes; i++) {
		const struct node *n = &t->nodes[i];

		if (!n->flat && !n->cum)
			continue;
		if (abs64(n->cum) < cutoff)
			t->dropped++;
		else
			t->order[t->nkept++] = i;
	}
	t->orig = t->nkept;
	qsort_r(t->order, t->nkept, sizeof(*t->order), cmp_flat_name, t);
	if (top_n && top_n < t->nkept)
		t->nkept = top_n;
	for (i = 0; i < t->nkept; i++)
		t->nodes[t->order[i]].kept = true;
	return 0;
}

/* Add w to edge src -> dst once per sample; inl stays set only while
 * every occurrence is an inlined call. */
static int add_edge(struct top *t, size_t src, size_t dst, int64_t w, bool inl,
		    size_t sample)
{
	struct node *d = &t->nodes[dst];
	struct edge *e;
	size_t i;

	for (i = d->first_in; i != NONE; i = t->edges[i].next_in)
		if (t->edges[i].src == src)
			break;
	if (i == NONE) {
		if (t->nedges == t->cap_edges) {
			size_t cap = t->cap_edges ? t->cap_edges * 2 : 256;
			struct edge *grown =
				realloc(t->edges, cap * sizeof(*t->edges));

			if (!grown)
				return -1;
			t->edges = grown;
			t->cap_edges = cap;
		}
		i = t->nedges++;
		t->edges[i] = (struct edge){src, d->first_in, 0, true, 0};
		d->first_in = i;
	}
	e = &t->edges[i];
	if (e->seen == sample + 1)
		return 0;
	e->seen = sample + 1;
	e->weight += w;
	e->inl = e->inl && inl;
	return 0;
}

/* The edges between kept nodes, root to leaf as newGraph walks a stack:
 * dropped nodes in between are skipped over (pprof's residual edges). */
static int add_edges(struct top *t)
{
	const struct gh_profile *p = t->p;
	size_t i, j, k;

	for (i = 0; i < p->nsamples; i++) {
		const struct gh_sample *s = &p->samples[i];
		size_t parent = NONE;

		if (!s->value[t->ix])
			continue;
		for (j = s->nlocs; j-- > 0;) {
			size_t lo = t->loc_off[s->locs[j]];
			size_t hi = t->loc_off[s->locs[j] + 1];

			for (k = hi; k-- > lo;) {
				size_t n = t->loc_node[k];

				if (!t->nodes[n].kept)
					continue;
				if (parent != NONE && parent != n &&
				    add_edge(t, parent, n, s->value[t->ix],
					     k != hi - 1, i))
					return -1;
				parent = n;
			}
		}
	}
	return 0;
}

/* Mark each kept node inline / called from its edges above the cutoff. */
static void mark_inline(struct top *t)
{
	int64_t cutoff = abs64((int64_t)((double)t->graph_sum * EDGE_FRACTION));
	size_t i, e;

	for (i = 0; i < t->nkept; i++) {
		struct node *n = &t->nodes[t->order[i]];

		for (e = n->first_in; e != NONE; e = t->edges[e].next_in) {
			if (abs64(t->edges[e].weight) < cutoff)
				continue;
			if (t->edges[e].inl)
				n->inl = true;
			else
				n->noinl = true;
		}
	}
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

/* measurement's autoScale: the largest unit that keeps v at least 1. */
static const struct unit *auto_unit(int64_t v)
{
	const struct unit *u = &byte_units[0];
	size_t i;

	for (i = 0; i < sizeof(byte_units) / sizeof(byte_units[0]); i++)
		if ((double)abs64(v) / byte_units[i].factor >= 1.0)
			u = &byte_units[i];
	return u;
}

static const struct unit count_unit = {"", 1};

struct fmt {
	bool bytes;	       /* else a plain count */
	const struct unit *to; /* NULL: scale each value by itself */
};

/* ScaledLabel: "%.2f" in the unit, ".00" dropped, "0" for zero. */
static void format_value(const struct fmt *fm, int64_t v, char *buf, size_t len)
{
	const struct unit *u = fm->to ? fm->to : auto_unit(v);
	size_t n;

	if (!fm->bytes)
		u = &count_unit;
	snprintf(buf, len, "%.2f", (double)v / u->factor);
	n = strlen(buf);
	if (n > 3 && strcmp(buf + n - 3, ".00") == 0)
		buf[n -= 3] = '\0';
	if (strcmp(buf, "0") == 0 || strcmp(buf, "-0") == 0)
		return;
	snprintf(buf + n, len - n, "%s", u->name);
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
	if (p->time_nanos) {
		time_t secs = (time_t)(p->time_nanos / 1000000000);
		struct tm tm;

		tzset();
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

static void put_table(FILE *f, const struct top *t, const struct fmt *fm)
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
			node_name(n), inl);
	}
}

static void top_free(struct top *t)
{
	size_t i;

	for (i = 0; i < t->nnodes; i++)
		free(t->nodes[i].label);
	free(t->nodes);
	free(t->loc_off);
	free(t->loc_node);
	free(t->edges);
	free(t->order);
	u64map_free(&t->bykey);
}

static int top_write_profile(FILE *f, const struct gh_profile *p,
			     enum gh_value index, size_t top_n,
			     struct gh_err *err)
{
	struct top t = {.p = p, .ix = (int)index};
	struct fmt fm = {.bytes = index == GH_ALLOC_SPACE ||
				  index == GH_INUSE_SPACE};

	if ((unsigned)index >= GH_NVALUES)
		return err_set(err, GH_E_USAGE,
			       "unknown sample index %d; use one of "
			       "alloc_objects, alloc_space, inuse_objects, "
			       "inuse_space",
			       (int)index);
	if (check_refs(p))
		return err_set(err, GH_E_FAILED,
			       "internal error: the profile refers to a "
			       "missing location, mapping or function; "
			       "please report it");
	if (index_nodes(&t)) {
		top_free(&t);
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the top table");
	}
	add_values(&t);
	if (select_nodes(&t, top_n) || add_edges(&t)) {
		top_free(&t);
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the top table");
	}
	mark_inline(&t);
	choose_unit(&t, &fm);
	put_profile_labels(f, p, gh_value__name(index));
	put_report_labels(f, &t, &fm);
	put_table(f, &t, &fm);
	top_free(&t);
	if (fflush(f) || ferror(f))
		return err_set(err, GH_E_OUTPUT,
			       "cannot write the top output: %s; check the "
			       "output path and free disk space",
			       strerror(errno));
	return 0;
}

/* ---- json.c ---- */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "write/render.h"

/* One output entry: the samples (buckets) sharing one stack, merged. */
struct entry {
	size_t sample; /* first of the merged samples: its stack is theirs */
	int64_t bytes, objects;
	const char *name; /* borrowed from the profile; NULL: see pc */
	char pc[20];	  /* "0x..." when the name frame has no symbol */
};

struct frame {
	const struct gh_function *fn; /* NULL: unsymbolized location */
	int64_t line;
	uint64_t pc;
};

static bool is_runtime(const char *name)
{
	return strncmp(name, "runtime.", 8) == 0 ||
	       strncmp(name, "internal/runtime/", 17) == 0;
}

static bool valid_refs(const struct gh_profile *p, const struct gh_sample *s)
{
	uint32_t i, j;

	for (i = 0; i < s->nlocs; i++) {
		const struct gh_location *l;

		if (s->locs[i] >= p->nlocations)
			return false;
		l = &p->locations[s->locs[i]];
		for (j = 0; j < l->nlines; j++)
			if (l->lines[j].function >= p->nfunctions)
				return false;
	}
	return true;
}

typedef bool (*frame_fn)(void *ctx, const struct frame *fr);

/* Call fn for each frame of location l: every line, or its bare PC when it
 * has none. True when fn did (stop). */
static bool location_frames(const struct gh_profile *p,
			    const struct gh_location *l, frame_fn fn, void *ctx)
{
	struct frame fr = {.pc = l->address};
	uint32_t j;

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

/* Call fn for each frame of s, leaf first. Stops when fn returns true. */
static void each_frame(const struct gh_profile *p, const struct gh_sample *s,
		       frame_fn fn, void *ctx)
{
	for (uint32_t i = 0; i < s->nlocs; i++)
		if (location_frames(p, &p->locations[s->locs[i]], fn, ctx))
			return;
}

struct name_pick {
	bool have_first, done;
	struct frame first, pick;
};

static bool pick_name(void *ctx, const struct frame *fr)
{
	struct name_pick *np = ctx;

	if (!np->have_first) {
		np->first = *fr;
		np->have_first = true;
	}
	if (fr->fn && is_runtime(fr->fn->name))
		return false;
	np->pick = *fr;
	np->done = true;
	return true;
}

static void name_entry(const struct gh_profile *p, struct entry *e)
{
	struct name_pick np = {0};

	each_frame(p, &p->samples[e->sample], pick_name, &np);
	if (!np.done)
		np.pick = np.first;
	if (!np.have_first)
		e->name = "";
	else if (np.pick.fn)
		e->name = np.pick.fn->name;
	else
		snprintf(e->pc, sizeof(e->pc), "0x%" PRIx64, np.pick.pc);
}

/* The pc buffer moves with the entry when sorted; point into it late. */
static const char *entry_name(const struct entry *e)
{
	return e->name ? e->name : e->pc;
}

static int cmp_stack(const struct gh_sample *a, const struct gh_sample *b)
{
	if (a->nlocs != b->nlocs)
		return a->nlocs < b->nlocs ? -1 : 1;
	return a->nlocs ? memcmp(a->locs, b->locs, a->nlocs * sizeof(*a->locs))
			: 0;
}

/* qsort has no context argument: sort pointers to samples instead. */
static int cmp_sample_ptr(const void *a, const void *b)
{
	const struct gh_sample *const *x = a, *const *y = b;
	int c = cmp_stack(*x, *y);

	if (c)
		return c;
	return *x < *y ? -1 : *x > *y;
}

static int cmp3(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* Bytes, objects descending, then name, then profile order. */
static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = cmp3(y->bytes, x->bytes);

	if (!c)
		c = cmp3(y->objects, x->objects);
	if (!c)
		c = strcmp(entry_name(x), entry_name(y));
	if (!c)
		c = x->sample < y->sample ? -1 : x->sample > y->sample;
	return c;
}

/* The entries of p for value pair (objects, bytes) at obj_ix, bytes_ix:
 * samples with equal stacks merged, zero ones dropped, sorted. */
static int build_entries(const struct gh_profile *p, int obj_ix, int bytes_ix,
			 struct entry **out, size_t *nout, struct gh_err *err)
{
	const struct gh_sample **order;
	struct entry *ents;
	size_t i, n = 0;

	order = calloc(p->nsamples ? p->nsamples : 1, sizeof(*order));
	ents = calloc(p->nsamples ? p->nsamples : 1, sizeof(*ents));
	if (!order || !ents) {
		free(order);
		free(ents);
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the JSON output");
	}
	for (i = 0; i < p->nsamples; i++)
		order[i] = &p->samples[i];
	qsort(order, p->nsamples, sizeof(*order), cmp_sample_ptr);
	for (i = 0; i < p->nsamples; i++) {
		const struct gh_sample *s = order[i];

		if (!n || cmp_stack(p->samples + ents[n - 1].sample, s))
			ents[n++] = (struct entry){
				.sample = (size_t)(s - p->samples)};
		ents[n - 1].bytes += s->value[bytes_ix];
		ents[n - 1].objects += s->value[obj_ix];
	}
	free(order);
	*nout = 0;
	for (i = 0; i < n; i++) {
		if (!ents[i].bytes && !ents[i].objects)
			continue;
		ents[*nout] = ents[i];
		name_entry(p, &ents[*nout]);
		(*nout)++;
	}
	qsort(ents, *nout, sizeof(*ents), cmp_entry);
	*out = ents;
	return 0;
}

/* Length of the valid UTF-8 sequence at s, 0 if s does not start one.
 * Never reads past a NUL: each byte is checked before the next is read. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		/* No overlong forms (E0 80..9F), no surrogates (ED A0..BF). */
		if (s[0] == 0xe0)
			lo = 0xa0;
		if (s[0] == 0xed)
			hi = 0x9f;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		/* No overlong forms (F0 80..8F), nothing past U+10FFFF. */
		if (s[0] == 0xf0)
			lo = 0x90;
		if (s[0] == 0xf4)
			hi = 0x8f;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

static const char *short_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	}
	return NULL;
}

/* Bytes at s that go out as they are: valid UTF-8, no control character,
 * quote or backslash, no U+2028/U+2029. */
static size_t plain_run(const unsigned char *s)
{
	size_t len = 0, n;

	while (s[len] >= 0x20 && !short_escape(s[len]) &&
	       (n = utf8_len(s + len)) &&
	       !(n == 3 && s[len] == 0xe2 && s[len + 1] == 0x80 &&
		 (s[len + 2] == 0xa8 || s[len + 2] == 0xa9)))
		len += n;
	return len;
}

/* s escaped for the inside of a JSON string. U+2028 and U+2029 are escaped
 * too, as Go does, so the output is also valid JavaScript. Plain runs go
 * out in one write: a large profile's JSON runs to hundreds of MB. */
static void put_escaped(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n = plain_run(s);
		const char *esc;

		if (n) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		n = utf8_len(s);
		esc = short_escape(*s);
		if (!n) {
			fputs("\xef\xbf\xbd", f); /* U+FFFD for a bad byte */
			n = 1;
		} else if (esc) {
			fputs(esc, f);
		} else if (*s < 0x20) {
			fprintf(f, "\\u%04x", *s);
		} else {
			/* U+2028 or U+2029 */
			fprintf(f, "\\u%04x", s[2] == 0xa8 ? 0x2028 : 0x2029);
		}
		s += n;
	}
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	put_escaped(f, s);
	fputc('"', f);
}

/* The shortest decimal that reads back as x: plain where Go's encoding/json
 * writes plain numbers (1e-6 <= |x| < 1e21), else with an exponent. */
static void put_double(FILE *f, double x)
{
	bool plain = x == 0 || (fabs(x) >= 1e-6 && fabs(x) < 1e21);
	int prec, max = plain ? 30 : 17;
	char buf[128];

	for (prec = plain ? 0 : 1; prec <= max; prec++) {
		snprintf(buf, sizeof(buf), plain ? "%.*f" : "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	fputs(buf, f);
}

struct stack_out {
	FILE *f;
	bool first;
};

static bool put_frame(void *ctx, const struct frame *fr)
{
	struct stack_out *so = ctx;

	fputs(so->first ? "\n        " : ",\n        ", so->f);
	so->first = false;
	if (!fr->fn) {
		fprintf(so->f, "\"0x%" PRIx64 "\"", fr->pc);
		return false;
	}
	fputc('"', so->f);
	put_escaped(so->f, fr->fn->name);
	if (fr->fn->filename && fr->fn->filename[0] && fr->line > 0) {
		fputs(", ", so->f);
		put_escaped(so->f, fr->fn->filename);
		fprintf(so->f, ":%" PRId64, fr->line);
	}
	fputc('"', so->f);
	return false;
}

/* Every location's frames as put_frame writes them, each frame with its
 * ",\n        " in front: written once, copied into every entry that has
 * them (a profile repeats a few thousand locations over all its entries).
 * Location i's text is buf[off[i], off[i + 1]). */
struct loc_text {
	char *buf;
	size_t size;
	long *off;
};

static int loc_text_build(const struct gh_profile *p, struct loc_text *t)
{
	FILE *m = open_memstream(&t->buf, &t->size);
	struct stack_out so = {m, false};
	size_t i;

	t->off = malloc((p->nlocations + 1) * sizeof(*t->off));
	if (!m || !t->off) {
		if (m)
			fclose(m);
		return -1;
	}
	for (i = 0; i < p->nlocations; i++) {
		t->off[i] = ftell(m);
		location_frames(p, &p->locations[i], put_frame, &so);
	}
	t->off[i] = ftell(m);
	return fclose(m) || t->off[i] < 0 ? -1 : 0;
}

static void loc_text_free(struct loc_text *t)
{
	free(t->buf);
	free(t->off);
}

static void put_stack(FILE *f, const struct gh_sample *s,
		      const struct loc_text *t)
{
	bool first = true;

	for (uint32_t i = 0; i < s->nlocs; i++) {
		long a = t->off[s->locs[i]], b = t->off[s->locs[i] + 1];

		if (a == b)
			continue;
		/* The first frame has no comma in front. */
		a += first;
		first = false;
		fwrite(t->buf + a, 1, (size_t)(b - a), f);
	}
	fputs(first ? "]\n    }" : "\n      ]\n    }", f);
}

static void put_entry(FILE *f, const struct gh_profile *p,
		      const struct entry *e, const char *kind,
		      const struct loc_text *t)
{
	fprintf(f, "    {\n      \"kind\": \"%s\",\n      \"name\": ", kind);
	put_string(f, entry_name(e));
	fprintf(f,
		",\n      \"bytes\": %" PRId64 ",\n      \"objects\": %" PRId64
		",\n      \"average_bytes\": ",
		e->bytes, e->objects);
	put_double(f, e->objects ? (double)e->bytes / (double)e->objects : 0);
	fputs(",\n      \"stack\": [", f);
	put_stack(f, &p->samples[e->sample], t);
}

static const char *status_name(enum gh_snap_status s)
{
	switch (s) {
	case GH_SNAP_COMPLETE:
		return "complete";
	case GH_SNAP_PARTIAL:
		return "partial";
	case GH_SNAP_UNAVAILABLE:
		return "unavailable";
	case GH_SNAP_FAILED:
		return "failed";
	}
	return "failed";
}

static void put_header(FILE *f, const struct gh_profile *p, bool alloc,
		       bool truncated)
{
	double ms = p->duration_ms > 0 ? ceil(p->duration_ms) : 0;

	fprintf(f, "{\n  \"pid\": %d,\n  \"runtime_version\": ", p->pid);
	put_string(f, p->go_version);
	fputs(",\n  \"runtime_file\": ", f);
	put_string(f, p->runtime_file);
	fputs(",\n  \"cgroup\": ", f);
	put_string(f, p->cgroup);
	fprintf(f, ",\n  \"status\": \"%s\",\n  \"status_reason\": ",
		status_name(p->status));
	put_string(f, p->status_reason);
	fputs(",\n  \"backend\": ", f);
	put_string(f, p->backend);
	fputs(",\n  \"backend_notes\": ", f);
	put_string(f, p->backend_notes);
	fprintf(f,
		",\n  \"duration_ms\": %.0f,\n  \"output_truncated\": %s,"
		"\n  \"memprofilerate\": %" PRId64
		",\n  \"sample_index\": \"%s\",\n  \"buckets\": %zu,"
		"\n  \"buckets_inuse\": %zu,\n  \"entries\": [",
		ms, truncated ? "true" : "false", p->period,
		alloc ? "alloc_space" : "inuse_space", p->nbuckets,
		p->nbuckets_inuse);
}

static int json_write_profile(FILE *f, const struct gh_profile *p,
			      enum gh_value index, size_t top_n,
			      struct gh_err *err)
{
	bool alloc = index == GH_ALLOC_OBJECTS || index == GH_ALLOC_SPACE;
	struct loc_text t = {0};
	struct entry *ents = NULL;
	size_t i, n = 0, shown;

	if ((unsigned)index >= GH_NVALUES)
		return err_set(err, GH_E_USAGE,
			       "unknown sample index %d; use one of "
			       "alloc_objects, alloc_space, inuse_objects, "
			       "inuse_space",
			       (int)index);
	for (i = 0; i < p->nsamples; i++)
		if (!valid_refs(p, &p->samples[i]))
			return err_set(err, GH_E_FAILED,
				       "internal error: a sample refers to "
				       "a missing location or function; "
				       "please report it");
	if (build_entries(p, alloc ? GH_ALLOC_OBJECTS : GH_INUSE_OBJECTS,
			  alloc ? GH_ALLOC_SPACE : GH_INUSE_SPACE, &ents, &n,
			  err))
		return -1;
	if (loc_text_build(p, &t)) {
		loc_text_free(&t);
		free(ents);
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the JSON output");
	}
	shown = top_n && top_n < n ? top_n : n;
	put_header(f, p, alloc, shown < n);
	for (i = 0; i < shown; i++) {
		fputs(i ? ",\n" : "\n", f);
		put_entry(f, p, &ents[i],
			  alloc ? "alloc_space_objects" : "inuse_space_objects",
			  &t);
	}
	fputs(shown ? "\n  ]\n}\n" : "]\n}\n", f);
	loc_text_free(&t);
	free(ents);
	if (fflush(f) || ferror(f))
		return err_set(err, GH_E_OUTPUT,
			       "cannot write the JSON output: %s; check the "
			       "output path and free disk space",
			       strerror(errno));
	return 0;
}
