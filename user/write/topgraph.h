/* topgraph.h - the graph behind the top table, as go tool pprof's
 * internal/graph builds it with its defaults (topgraph.c): nodes are
 * functions (inlined frames are functions of their own), a location
 * without symbols is "[binary]" (or "<unknown>"); flat goes to a sample's
 * leaf frame, cum to every function on its stack once per sample; nodes
 * with cum below 0.5% of the total are dropped (nodefraction), the rest
 * sorted by flat, name, cum and cut to top_n (nodecount); a node all of
 * whose kept callers reach it through inlining is "(inline)", with some
 * through calls "(partial-inline)" (callers below 0.1% of the total,
 * edgefraction, do not count). */
#ifndef GH_WRITE_TOPGRAPH_H
#define GH_WRITE_TOPGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/u64map.h"
#include "goheap.h"
#include "write/toplog.h"

#define TOP_NODE_FRACTION 0.005 /* pprof's default -nodefraction */

struct top_node {
	/* function index; for an obj node, 1 + its mapping's (0: none) */
	uint32_t ref;
	bool obj;    /* unsymbolized: named after its binary */
	char *label; /* printable name of an obj node (owned) */
	int64_t flat, cum;
	uint64_t seen;	 /* the last sample that added to its cum */
	bool kept;	 /* in the final table */
	bool inl, noinl; /* kept callers reach it inlined / by call */
};

/* Set index (the value summed) and top_n (0: all), the rest zero. */
struct top_graph {
	enum gh_value index;
	size_t top_n;
	struct top_node *nodes;
	size_t nnodes, cap_nodes;
	struct u64map bykey; /* node key hash -> node */
	/* The nodes of each location seen so far, one per line, leaf
	 * (innermost inlined) first: loc_node[loc_off[i]..loc_off[i + 1]). */
	uint32_t *loc_off, *loc_node;
	size_t nlocs, cap_off, nlines, cap_lines;
	uint64_t nsamples; /* the samples that weighed on nodes */
	struct toplog log; /* those samples, for the edges */
	int64_t total;	   /* sum of |value| over all samples */
	int64_t graph_sum; /* sum of flat over all nodes */
	bool bad_refs;	   /* a sample or location refers to nothing */
	/* The table, once finished. */
	uint32_t *order; /* kept nodes, in table order */
	size_t nkept, dropped, orig;
};

/* A sample's weight to its nodes' flat and cum, and to the log; -1 when
 * out of memory. */
int top_graph__add(struct top_graph *t, const struct gh_profile *p,
		   const struct gh_sample *s);
/* No more samples: the kept nodes in order, their inline marks from the
 * log, which is dropped. -1 when out of memory. */
int top_graph__finish(struct top_graph *t, const struct gh_profile *p);
/* Back to no samples (index and top_n kept). */
void top_graph__reset(struct top_graph *t);

/* n's name as the table prints it. */
const char *top_node__name(const struct gh_profile *p,
			   const struct top_node *n);

/* The last element of a non-empty path, as Go's filepath.Base finds it:
 * trailing slashes ignored, "/" for a path of slashes only. Its length,
 * *start where it starts. */
int top_base_name(const char *path, const char **start);

#endif
