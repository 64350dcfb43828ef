/* table.h - a sweep's summary: one row per Go runtime of each process,
 * ranked by the sample index (in-use bytes by default; block, mutex:
 * delay; goroutine: goroutines), and a total row, in widths that fit the
 * terminal. */
#ifndef GH_CMD_TABLE_H
#define GH_CMD_TABLE_H

#include <stdio.h>

#include "goheap.h"

struct table_row {
	int pid;
	size_t runtime; /* shown when > 1 */
	bool data;	/* a profile was read */
	char comm[32];
	char container[13]; /* short ID, as docker ps shows it */
	char go[64];
	int64_t total[GH_NVALUES]; /* the profile's sums */
	int64_t rank;		   /* the value it is ranked by */
	size_t buckets;
	int64_t goroutines; /* runtime.NumGoroutine(); -1: not read */
	char status[16];
	char site[256];
};

struct table {
	enum gh_kind kind; /* the profile read: which columns */
	int index;	   /* the sample index ranked by (gh_write_opts') */
	struct table_row *v;
	size_t n, cap;
};

/* A row for result r (its profile's header) and its process's goroutines
 * (-1: unknown; of a goroutine profile, its own count); -1 when out of
 * memory. */
int table__add(struct table *t, const struct gh_result *r, int64_t goroutines);
/* The rows ranked, into f; width: the terminal's columns, 0 for none.
 * -1 when out of memory. */
int table__print(struct table *t, FILE *f, int width);
void table__free(struct table *t);

#endif
