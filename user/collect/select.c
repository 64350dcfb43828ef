/* select.c - which processes a request is about: the PIDs it names, or
 * every process on the host (or of its PIDs taken as a filter) that passes
 * its filters (name, cgroup, container, not this one), judged from /proc
 * before any binary is read; and which of a process's Go runtimes it
 * wants. */
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/err.h"
#include "collect/collector.h"
#include "collect/filter.h"
#include "proc/proc.h"

/* Does process pid pass the filters? A process that vanished passes
 * (when named) so that its result says so. */
static bool passes(const struct filter *f, const struct gh_select *sel, int pid)
{
	char comm[64], cg[GH_PATH_MAX];
	struct gh_err e;

	if (sel->exclude_self && pid == getpid())
		return false;
	if (filter__wants_comm(f) && proc_comm(pid, comm, sizeof(comm), &e))
		return e.code == GH_E_NOPROC && sel->npids;
	if (filter__wants_cgroup(f) && proc_cgroup(pid, cg, sizeof(cg), &e))
		return e.code == GH_E_NOPROC && sel->npids;
	return filter__match(f, comm, cg);
}

static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int collector__select(const struct gh_select *sel, int **pids, size_t *n,
		      bool *enumerated, struct gh_err *err)
{
	struct filter f;
	int *v = NULL;
	size_t nv = 0, k = 0;
	int prev = 0;

	*pids = NULL;
	*n = 0;
	*enumerated = !sel->npids || sel->pids_filter;
	if (filter__init(&f, sel, err))
		return -1;
	if (sel->npids) {
		v = malloc(sel->npids * sizeof(*v));
		if (v) {
			memcpy(v, sel->pids, sel->npids * sizeof(*v));
			nv = sel->npids;
		}
	} else if (proc_pids(&v, &nv, err)) {
		filter__fini(&f);
		return -1;
	}
	if (!v && sel->npids) {
		filter__fini(&f);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	if (*enumerated)
		qsort(v, nv, sizeof(*v), by_value);
	for (size_t i = 0; i < nv; i++) {
		int pid = v[i];

		/* A PID named twice in a filter is one process. */
		if (*enumerated && i && pid == prev)
			continue;
		prev = pid;
		if (passes(&f, sel, pid))
			v[k++] = pid;
	}
	filter__fini(&f);
	*pids = v;
	*n = k;
	return 0;
}

bool collector__admits(const struct gh_select *sel, const struct target *t)
{
	return target__named(t, sel->runtime);
}
