/* growthtab.c - gh_growth__write: a diff's stacks ranked by in-use growth
 * (gh_profile__growth) as a table, in go tool pprof -top's units: the
 * change in in-use bytes and objects, what NEW holds, and the site (the
 * first frame outside the runtime, with its file's name and line); of
 * goroutine profiles, the change in goroutines and NEW's count. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/err.h"
#include "write/measure.h"

/* v with its sign always shown: a growth table's deltas. */
static void signed_value(int64_t v, bool bytes, char *buf, size_t len)
{
	buf[0] = '+';
	measure_value(v, bytes, v > 0 ? buf + 1 : buf, v > 0 ? len - 1 : len);
}

static void put_row(FILE *f, enum gh_kind k, const struct gh_growth_row *r)
{
	char space[32], objects[32], now[32];
	const char *base = strrchr(r->file, '/');

	if (k == GH_KIND_GOROUTINE) {
		signed_value(r->delta[0], false, objects, sizeof(objects));
		measure_value(r->now[0], false, now, sizeof(now));
		fprintf(f, "%12s %12s  %s", objects, now, r->site);
	} else {
		signed_value(r->delta[GH_INUSE_SPACE], true, space,
			     sizeof(space));
		signed_value(r->delta[GH_INUSE_OBJECTS], false, objects,
			     sizeof(objects));
		measure_value(r->now[GH_INUSE_SPACE], true, now, sizeof(now));
		fprintf(f, "%12s %12s %12s  %s", space, objects, now, r->site);
	}
	if (r->file[0])
		fprintf(f, " (%s:%" PRId64 ")", base ? base + 1 : r->file,
			r->line);
	fputc('\n', f);
}

int gh_growth__write(const struct gh_growth *g, FILE *f, size_t top_n,
		     struct gh_err *err)
{
	size_t n = top_n && top_n < g->n ? top_n : g->n;
	char space[32], objects[32];

	if (gh_growth__kind(g) == GH_KIND_GOROUTINE) {
		signed_value(g->total[0], false, objects, sizeof(objects));
		fprintf(f,
			"Goroutine growth, NEW minus OLD: %s goroutines; %zu "
			"of %zu changed stacks shown\n",
			objects, n, g->n);
		fprintf(f, "%12s %12s  %s\n", "delta", "new", "site");
	} else {
		signed_value(g->total[GH_INUSE_SPACE], true, space,
			     sizeof(space));
		signed_value(g->total[GH_INUSE_OBJECTS], false, objects,
			     sizeof(objects));
		fprintf(f,
			"In-use growth, NEW minus OLD: %s in %s objects; %zu "
			"of %zu changed stacks shown\n",
			space, objects, n, g->n);
		fprintf(f, "%12s %12s %12s  %s\n", "delta bytes", "delta objs",
			"new inuse", "site");
	}
	for (size_t i = 0; i < n; i++)
		put_row(f, gh_growth__kind(g), &g->rows[i]);
	if (fflush(f) || ferror(f))
		return err_set(err, GH_E_OUTPUT,
			       "cannot write the growth table: %s; check the "
			       "output",
			       strerror(errno));
	return 0;
}
