/* filter.h - a request's process filters (gh_select: name regex, cgroup
 * path prefix, container ID prefix), compiled once and judged on a
 * process's name and cgroup path as /proc gives them. */
#ifndef GH_COLLECT_FILTER_H
#define GH_COLLECT_FILTER_H

#include <regex.h>

#include "goheap.h"

struct filter {
	const char *cgroup, *container; /* prefixes; NULL: any */
	regex_t comm;
	bool has_comm;
};

/* USAGE, naming the fix, for a name filter that is not an extended
 * regular expression. */
int filter__init(struct filter *f, const struct gh_select *sel,
		 struct gh_err *err);
void filter__fini(struct filter *f);

/* Does a process need its name (comm) or cgroup path to be judged? */
bool filter__wants_comm(const struct filter *f);
bool filter__wants_cgroup(const struct filter *f);

/* Does a process with this name and cgroup path pass? Each may be NULL
 * when the filter does not want it. */
bool filter__match(const struct filter *f, const char *comm,
		   const char *cgroup);

#endif
