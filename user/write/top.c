/* top.c - the top renderer: the table `go tool pprof -top -sample_index=X
 * -nodecount=N` prints for the profile, computed the way pprof's
 * internal/graph and internal/report do it with their defaults (the graph
 * is topgraph.c's, the values' form measure.c's):
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
 *   value and the total, and pprof's %.2f / %5.2f%% formatting. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "profile/refs.h"
#include "write/measure.h"
#include "write/render.h"
#include "write/topgraph.h"

struct top {
	struct render_head h;
	struct top_graph g;
	bool finished; /* the table is made */
};

static int top_sample(void *st, const struct gh_profile *p,
		      const struct gh_sample *s)
{
	struct top *t = st;

	return top_graph__add(&t->g, p, s);
}

/* ProfileLabels' line for a profile that spans a time (a delta): its
 * duration and the total. The ratio pprof adds after it is for samples
 * in time units only, which a heap profile has none of: a space stands
 * where it would. */
static void put_duration(FILE *f, const struct gh_profile *p,
			 const struct top_graph *t,
			 const struct measure_fmt *fm)
{
	char dur[32], total[32];

	if (!p->duration_ns)
		return;
	measure_duration(p->duration_ns, dur, sizeof(dur));
	measure_fmt__value(fm, t->total, total, sizeof(total));
	fprintf(f, "Duration: %s, Total samples = %s \n", dur, total);
}

/* selectOutputUnit over the kept nodes' values. */
static void choose_unit(const struct top_graph *t, struct measure_fmt *fm)
{
	int64_t min = 0;
	size_t i;

	if ((!fm->bytes && !fm->nanos) || !t->nkept)
		return;
	for (i = 0; i < t->nkept; i++) {
		const struct top_node *n = &t->nodes[t->order[i]];
		int64_t v = n->flat ? measure_abs64(n->flat)
				    : measure_abs64(n->cum);

		if (v > 0 && (!min || v < min))
			min = v;
	}
	measure_fmt__choose(fm, min, t->total);
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
		n = top_base_name(p->mappings[0].file, &base);
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

static void put_report_labels(FILE *f, const struct top_graph *t,
			      const struct measure_fmt *fm)
{
	char shown[32], total[32], pct[16], cut[32];
	const char *trimmed = pct;
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < t->nkept; i++)
		sum += t->nodes[t->order[i]].flat;
	measure_fmt__value(fm, sum, shown, sizeof(shown));
	measure_fmt__value(fm, t->total, total, sizeof(total));
	measure_pct(sum, t->total, pct, sizeof(pct));
	while (*trimmed == ' ')
		trimmed++;
	fprintf(f, "Showing nodes accounting for %s, %s of %s total\n", shown,
		trimmed, total);
	if (!t->total)
		return;
	if (t->dropped) {
		measure_fmt__value(fm,
				   measure_abs64((int64_t)((double)t->total *
							   TOP_NODE_FRACTION)),
				   cut, sizeof(cut));
		fprintf(f, "Dropped %zu node%s (cum <= %s)\n", t->dropped,
			t->dropped > 1 ? "s" : "", cut);
	}
	if (t->nkept && t->nkept < t->orig)
		fprintf(f, "Showing top %zu nodes out of %zu\n", t->nkept,
			t->orig);
}

static void put_table(FILE *f, const struct gh_profile *p,
		      const struct top_graph *t, const struct measure_fmt *fm)
{
	char flat[32], cum[32], pf[16], ps[16], pc[16];
	int64_t sum = 0;
	size_t i;

	fprintf(f, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum",
		"cum", "cum");
	for (i = 0; i < t->nkept; i++) {
		const struct top_node *n = &t->nodes[t->order[i]];
		const char *inl = "";

		if (n->inl)
			inl = n->noinl ? " (partial-inline)" : " (inline)";
		sum += n->flat;
		measure_fmt__value(fm, n->flat, flat, sizeof(flat));
		measure_fmt__value(fm, n->cum, cum, sizeof(cum));
		measure_pct(n->flat, t->total, pf, sizeof(pf));
		measure_pct(sum, t->total, ps, sizeof(ps));
		measure_pct(n->cum, t->total, pc, sizeof(pc));
		fprintf(f, "%10s %s %s %10s %s  %s%s\n", flat, pf, ps, cum, pc,
			top_node__name(p, n), inl);
	}
}

static void top_reset(void *st)
{
	struct top *t = st;

	top_graph__reset(&t->g);
	t->finished = false;
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
	t->g.index = o->index;
	t->g.top_n = o->top_n;
	return 0;
}

/* The table from the paths, which are dropped: only the table is kept to
 * be written. */
static int top_finish(void *st, const struct gh_profile *p, struct gh_err *err)
{
	struct top *t = st;
	int rc = 0;
	size_t i;

	for (i = 0; i < p->nlocations && !t->g.bad_refs; i++)
		t->g.bad_refs = !refs_location_ok(p, &p->locations[i]);
	if (t->g.bad_refs)
		return err_set(err, GH_E_FAILED,
			       "internal error: the profile refers to a "
			       "missing location, mapping or function; "
			       "please report it");
	if (top_graph__finish(&t->g, p))
		rc = err_set(err, GH_E_FAILED,
			     "out of memory writing the top table");
	t->finished = !rc;
	return rc;
}

static int top_write(void *st, const struct gh_profile *p, FILE *f,
		     struct gh_err *err)
{
	const struct top *t = st;
	enum gh_value index = t->h.o.index;
	enum gh_kind k = gh_profile__kind(p);
	bool heap = k == GH_KIND_HEAP;
	struct measure_fmt fm = {.bytes = heap && (index == GH_ALLOC_SPACE ||
						   index == GH_INUSE_SPACE),
				 .nanos = !heap && (int)index == GH_DELAY};
	const char *type = profile__value_name(k, (int)index, false);

	if (!t->finished)
		return err_set(err, GH_E_FAILED,
			       "internal error: the top table was not "
			       "finished; please report it");
	choose_unit(&t->g, &fm);
	put_profile_labels(f, p, type ? type : "?");
	put_duration(f, p, &t->g, &fm);
	put_report_labels(f, &t->g, &fm);
	put_table(f, p, &t->g, &fm);
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
