/* filter.c - judging a process by the request's filters. The container
 * filter reads the container ID off the cgroup path (proc/container.c):
 * a prefix of the ID, as `docker ps` shortens it, selects it. */
#include <string.h>

#include "base/err.h"
#include "collect/filter.h"
#include "proc/container.h"

int filter_init(struct filter *f, const struct gh_select *sel,
		struct gh_err *err)
{
	char why[256];
	int rc;

	memset(f, 0, sizeof(*f));
	f->cgroup = sel->cgroup;
	f->container = sel->container;
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

void filter_fini(struct filter *f)
{
	if (f->has_comm)
		regfree(&f->comm);
	f->has_comm = false;
}

bool filter_wants_comm(const struct filter *f)
{
	return f->has_comm;
}

bool filter_wants_cgroup(const struct filter *f)
{
	return f->cgroup || f->container;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool filter_match(const struct filter *f, const char *comm, const char *cgroup)
{
	struct container c;

	if (f->has_comm && (!comm || regexec(&f->comm, comm, 0, NULL, 0)))
		return false;
	if (!filter_wants_cgroup(f))
		return true;
	if (!cgroup || (f->cgroup && !has_prefix(cgroup, f->cgroup)))
		return false;
	if (!f->container)
		return true;
	container_of(cgroup, &c);
	return c.id[0] && has_prefix(c.id, f->container);
}
