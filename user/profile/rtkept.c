/* rtkept.c - the runtime's counters a collector read with a profile:
 * kept in the library's part of it (gh_profile_x), so that gh_profile's
 * frozen layout stays as it is, and handed out by the size the caller's
 * header declares (gh_runtime_stats.sz). */
#include <string.h>

#include "base/err.h"
#include "profile/rtkept.h"
#include "profile/sink.h"

void profile__set_runtime(struct gh_profile *p,
			  const struct gh_runtime_stats *rt,
			  const struct gh_err *err)
{
	if (!p || !p->x)
		return;
	p->x->rt = *rt;
	p->x->rt_err = *err;
}

int gh_profile__runtime_stats(const struct gh_profile *p,
			      struct gh_runtime_stats *out, struct gh_err *err)
{
	size_t n;

	if (!out || out->sz < sizeof(out->sz))
		return err_set(err, GH_E_USAGE,
			       "gh_profile__runtime_stats: declare the struct "
			       "with GH_OPTS (its sz is not set)");
	n = out->sz < sizeof(*out) ? out->sz : sizeof(*out);
	if (!p || !p->x || p->x->rt_err.code == GH_E_NODATA ||
	    (!p->x->rt_err.code && !p->x->rt.sz))
		return err_set(err, GH_E_NODATA,
			       "this profile carries no runtime counters: "
			       "only profiles a collector took do");
	if (p->x->rt_err.code)
		return err_set(err, p->x->rt_err.code, "%s", p->x->rt_err.msg);
	/* The fields the caller's struct has; its sz stays its own. */
	memcpy((char *)out + sizeof(out->sz),
	       (const char *)&p->x->rt + sizeof(out->sz), n - sizeof(out->sz));
	return 0;
}
