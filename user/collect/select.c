/* select.c - which processes a request is about: the PIDs it names, or
 * every process on the host (or of its PIDs taken as a filter) that passes
 * its filters (name, cgroup, not this one), judged from /proc before any
 * binary is read; and which of a process's Go runtimes it wants. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/err.h"
#include "collect/collector.h"
#include "proc/container.h"

struct filter {
	const struct gh_select *sel;
	regex_t comm;
	bool has_comm;
};

static int filter_init(struct filter *f, const struct gh_select *sel,
		       struct gh_err *err)
{
	char why[256];
	int rc;

	memset(f, 0, sizeof(*f));
	f->sel = sel;
	if (!sel->comm)
		return 0;
	rc = regcomp(&f->comm, sel->comm, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, &f->comm, why, sizeof(why));
		return err_set(err, GH_E_USAGE,
			       "bad process-name filter '%s': %s; give an "
			       "extended regular expression",
			       sel->comm, why);
	}
	f->has_comm = true;
	return 0;
}

static void filter_fini(struct filter *f)
{
	if (f->has_comm)
		regfree(&f->comm);
}

/* Does cgroup path cg put the process in a container whose ID starts with
 * prefix? */
static bool in_container(const char *cg, const char *prefix)
{
	struct container c;

	container_of(cg, &c);
	return c.id[0] && !strncmp(c.id, prefix, strlen(prefix));
}

/* Does process pid pass the filters? A process that vanished passes
 * (when named) so that its result says so. */
static bool passes(const struct filter *f, int pid)
{
	char buf[GH_PATH_MAX];
	struct gh_err e;

	if (f->sel->exclude_self && pid == getpid())
		return false;
	if (f->has_comm) {
		if (proc_comm(pid, buf, sizeof(buf), &e))
			return e.code == GH_E_NOPROC && f->sel->npids;
		if (regexec(&f->comm, buf, 0, NULL, 0) != 0)
			return false;
	}
	if (f->sel->cgroup || f->sel->container) {
		if (proc_cgroup(pid, buf, sizeof(buf), &e))
			return e.code == GH_E_NOPROC && f->sel->npids;
		if (f->sel->cgroup &&
		    strncmp(buf, f->sel->cgroup, strlen(f->sel->cgroup)))
			return false;
		if (f->sel->container && !in_container(buf, f->sel->container))
			return false;
	}
	return true;
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
	if (filter_init(&f, sel, err))
		return -1;
	if (sel->npids) {
		v = malloc(sel->npids * sizeof(*v));
		if (v) {
			memcpy(v, sel->pids, sel->npids * sizeof(*v));
			nv = sel->npids;
		}
	} else if (proc_pids(&v, &nv, err)) {
		filter_fini(&f);
		return -1;
	}
	if (!v && sel->npids) {
		filter_fini(&f);
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
		if (passes(&f, pid))
			v[k++] = pid;
	}
	filter_fini(&f);
	*pids = v;
	*n = k;
	return 0;
}

bool collector__admits(const struct gh_select *sel, const struct target *t)
{
	const char *file = t->file, *base = strrchr(file, '/');
	char *end;
	long n;

	if (!sel->runtime)
		return true;
	n = strtol(sel->runtime, &end, 10);
	if (end != sel->runtime && !*end && n > 0)
		return (size_t)n == t->index;
	return strcmp(sel->runtime, file) == 0 ||
	       (base && strcmp(sel->runtime, base + 1) == 0);
}
