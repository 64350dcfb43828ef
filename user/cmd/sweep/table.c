/* table.c - a sweep's summary table. Rows with a profile come first, by
 * the sample index, largest first: in-use bytes by default (as
 * runtime/pprof's own profile scales them; allocs: allocated bytes);
 * block, mutex: delay, or contentions; goroutine: goroutines; then the
 * rest, by PID. Byte counts and
 * delays are shown as go tool pprof shows them (1024-based, or ns to
 * hrs, two decimals); the last column takes what the terminal's width
 * leaves. A process that never turned the block or mutex profile on is
 * "disabled", not an empty profile. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/sweep/table.h"

static const char *status_word(const struct gh_result *r)
{
	static const char *const words[] = {
		[GH_SNAP_COMPLETE] = "complete",
		[GH_SNAP_PARTIAL] = "partial",
		[GH_SNAP_UNAVAILABLE] = "unavailable",
		[GH_SNAP_FAILED] = "failed",
		[GH_SNAP_MIXED] = "mixed",
	};

	const struct gh_profile *p = r->profile;

	if (r->err.code == GH_E_DISABLED)
		return "disabled";
	return (unsigned)p->status <= GH_SNAP_MIXED ? words[p->status]
						    : "failed";
}

int table__add(struct table *t, const struct gh_result *r, int64_t goroutines)
{
	const struct gh_profile *p = r->profile;
	struct table_row *w;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		void *v = realloc(t->v, cap * sizeof(*t->v));

		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	w = &t->v[t->n++];
	memset(w, 0, sizeof(*w));
	w->pid = r->pid;
	w->runtime = p->runtime;
	w->data = r->err.code == GH_OK || r->err.code == GH_E_PARTIAL;
	snprintf(w->comm, sizeof(w->comm), "%s", p->comm[0] ? p->comm : "?");
	snprintf(w->container, sizeof(w->container), "%.12s",
		 p->container_id[0] ? p->container_id : "-");
	snprintf(w->go, sizeof(w->go), "%s",
		 p->go_version[0] ? p->go_version : "-");
	memcpy(w->total, p->total, sizeof(w->total));
	w->rank = p->total[t->kind == GH_KIND_GOROUTINE ? 0 : t->index];
	w->buckets = p->nbuckets;
	w->goroutines = goroutines;
	snprintf(w->status, sizeof(w->status), "%s", status_word(r));
	snprintf(w->site, sizeof(w->site), "%s", w->data ? p->top_site : "");
	return 0;
}

static int by_rank(const void *a, const void *b)
{
	const struct table_row *x = a, *y = b;

	if (x->data != y->data)
		return x->data ? -1 : 1;
	if (x->data && x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->runtime > y->runtime) - (x->runtime < y->runtime);
}

/* v as go tool pprof shows bytes: "1.50MB". */
static void bytes_text(int64_t v, char *buf, size_t size)
{
	static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
	double x = (double)v;
	size_t u = 0;

	while ((x >= 1024 || x <= -1024) && u + 1 < 6) {
		x /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%" PRId64 "B", v);
	else
		snprintf(buf, size, "%.2f%s", x, units[u]);
}

/* v nanoseconds as go tool pprof shows a delay: "1.50s", "250ms". */
static void nanos_text(int64_t v, char *buf, size_t size)
{
	static const char *const units[] = {"ns", "us", "ms", "s", "hrs"};
	static const double div[] = {1, 1e3, 1e6, 1e9, 3.6e12};
	size_t u = 0, n;

	for (size_t i = 1; i < 5; i++)
		if ((double)(v < 0 ? -v : v) / div[i] >= 1.0)
			u = i;
	snprintf(buf, size, "%.2f", (double)v / div[u]);
	n = strlen(buf);
	if (n > 3 && !strcmp(buf + n - 3, ".00"))
		buf[n -= 3] = '\0';
	if (strcmp(buf, "0"))
		snprintf(buf + n, size - n, "%s", units[u]);
}

enum {
	C_PID,
	C_COMM,
	C_CONTAINER,
	C_GO,
	C_INUSE,
	C_OBJECTS,
	C_ALLOC,
	C_DELAY,
	C_CONTENTIONS,
	C_BUCKETS,
	C_GOROUTINES,
	C_STATUS,
	C_SITE,
	NCOLS
};

static const char *const heads[NCOLS] = {
	"PID",	      "COMM",	"CONTAINER", "GO",	    "INUSE",
	"OBJECTS",    "ALLOC",	"DELAY",     "CONTENTIONS", "BUCKETS",
	"GOROUTINES", "STATUS", "TOP SITE"};

/* The columns a kind's table shows, in order, ending with NCOLS. */
static const int *columns(const struct table *t)
{
	static const int heap[] = {
		C_PID,	 C_COMM,    C_CONTAINER,  C_GO,	    C_INUSE, C_OBJECTS,
		C_ALLOC, C_BUCKETS, C_GOROUTINES, C_STATUS, C_SITE,  NCOLS};
	static const int contention[] = {
		C_PID,	       C_COMM,	  C_CONTAINER,	C_GO,	  C_DELAY,
		C_CONTENTIONS, C_BUCKETS, C_GOROUTINES, C_STATUS, NCOLS};
	static const int goroutine[] = {C_PID,	  C_COMM,	C_CONTAINER,
					C_GO,	  C_GOROUTINES, C_BUCKETS,
					C_STATUS, NCOLS};

	if (t->kind == GH_KIND_GOROUTINE)
		return goroutine;
	return t->kind == GH_KIND_HEAP ? heap : contention;
}

/* A column's heading: a goroutine profile's samples are its stacks. */
static const char *head(const struct table *t, int col)
{
	if (col == C_BUCKETS && t->kind == GH_KIND_GOROUTINE)
		return "STACKS";
	return heads[col];
}

/* The value cells, from sums v (a row's profile, or the total row's). */
static void value_cells(const int64_t *v, size_t buckets, char c[NCOLS][256])
{
	bytes_text(v[GH_INUSE_SPACE], c[C_INUSE], 256);
	snprintf(c[C_OBJECTS], 256, "%" PRId64, v[GH_INUSE_OBJECTS]);
	bytes_text(v[GH_ALLOC_SPACE], c[C_ALLOC], 256);
	nanos_text(v[GH_DELAY], c[C_DELAY], 256);
	snprintf(c[C_CONTENTIONS], 256, "%" PRId64, v[GH_CONTENTIONS]);
	snprintf(c[C_BUCKETS], 256, "%zu", buckets);
}

/* Row w's cells. */
static void cells(const struct table_row *w, char c[NCOLS][256])
{
	if (w->runtime > 1)
		snprintf(c[C_PID], 256, "%d/%zu", w->pid, w->runtime);
	else
		snprintf(c[C_PID], 256, "%d", w->pid);
	snprintf(c[C_COMM], 256, "%s", w->comm);
	snprintf(c[C_CONTAINER], 256, "%s", w->container);
	snprintf(c[C_GO], 256, "%s", w->go);
	if (w->data)
		value_cells(w->total, w->buckets, c);
	else
		for (int i = C_INUSE; i <= C_BUCKETS; i++)
			snprintf(c[i], 256, "-");
	/* read apart from the heap: a process with no heap profile may
	 * still have its goroutines counted */
	if (w->goroutines >= 0)
		snprintf(c[C_GOROUTINES], 256, "%" PRId64, w->goroutines);
	else
		snprintf(c[C_GOROUTINES], 256, "-");
	snprintf(c[C_STATUS], 256, "%s", w->status);
	snprintf(c[C_SITE], 256, "%s", w->site);
}

/* The total row's cells: sums over the rows with a profile; goroutines
 * over the rows that have a count. */
static void total_cells(const struct table *t, char c[NCOLS][256])
{
	int64_t sum[GH_NVALUES] = {0}, goroutines = 0;
	size_t buckets = 0, n = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].goroutines > 0)
			goroutines += t->v[i].goroutines;
		if (!t->v[i].data)
			continue;
		for (int k = 0; k < GH_NVALUES; k++)
			sum[k] += t->v[i].total[k];
		buckets += t->v[i].buckets;
		n++;
	}
	memset(c, 0, NCOLS * 256);
	snprintf(c[C_COMM], 256, "total");
	snprintf(c[C_GO], 256, "%zu of %zu", n, t->n);
	value_cells(sum, buckets, c);
	snprintf(c[C_GOROUTINES], 256, "%" PRId64, goroutines);
}

static void widen(size_t w[NCOLS], char c[NCOLS][256])
{
	for (int i = 0; i < NCOLS; i++)
		if (strlen(c[i]) > w[i])
			w[i] = strlen(c[i]);
}

/* One line of the columns cols: numbers right-aligned, text left; the
 * last cell cut to fit what is left of width (0: not cut). */
static void put_line(FILE *f, const int *cols, const size_t w[NCOLS],
		     char c[NCOLS][256], int width)
{
	int used = 0, room, last;

	for (; cols[1] != NCOLS; cols++) {
		bool num = *cols >= C_INUSE && *cols <= C_GOROUTINES;

		used += fprintf(f, num ? "%*s  " : "%-*s  ", (int)w[*cols],
				c[*cols]);
	}
	last = *cols;
	room = width > 0 ? width - used : (int)strlen(c[last]);
	if (room < 0)
		room = 0;
	if ((int)strlen(c[last]) > room && room > 3)
		fprintf(f, "%.*s...\n", room - 3, c[last]);
	else
		fprintf(f, "%.*s\n", room, c[last]);
}

int table__print(struct table *t, FILE *f, int width)
{
	char(*c)[NCOLS][256] = malloc(sizeof(*c));
	const int *cols = columns(t);
	size_t w[NCOLS] = {0}, i;

	if (!c)
		return -1;
	/* No rows: no array (qsort must not be given NULL). */
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), by_rank);
	for (i = 0; i < NCOLS; i++)
		w[i] = strlen(head(t, (int)i));
	for (i = 0; i < t->n; i++) {
		cells(&t->v[i], *c);
		widen(w, *c);
	}
	total_cells(t, *c);
	widen(w, *c);
	for (i = 0; i < NCOLS; i++)
		snprintf((*c)[i], 256, "%s", head(t, (int)i));
	put_line(f, cols, w, *c, width);
	for (i = 0; i < t->n; i++) {
		cells(&t->v[i], *c);
		put_line(f, cols, w, *c, width);
	}
	total_cells(t, *c);
	put_line(f, cols, w, *c, width);
	free(c);
	return 0;
}

void table__free(struct table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
