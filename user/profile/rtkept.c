/* rtkept.c - the runtime's counters a collector read with a profile:
 * kept in the library's part of it (gh_profile_x), so that gh_profile's
 * frozen layout stays as it is, and handed out by the size the caller's
 * header declares (gh_runtime_stats.sz). */
#include <stddef.h>
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

/* Each has bit and the end of the last field it covers. */
static const struct {
	unsigned bit;
	size_t end;
} has_ends[] = {
#define END(f) (offsetof(struct gh_runtime_stats, f) + sizeof(uint64_t))
	{GH_RT_GOROUTINES, END(sched_goroutines)},
	{GH_RT_GC_CYCLES, END(gc_cycles)},
	{GH_RT_HEAP_LIVE, END(heap_live)},
	{GH_RT_HEAP_GOAL, END(heap_goal)},
	{GH_RT_GOMAXPROCS, END(gomaxprocs)},
	{GH_RT_GOGC, END(gogc)},
	{GH_RT_MEMORY_LIMIT, END(memory_limit)},
	{GH_RT_GSTATES, END(goroutines_not_in_go)},
	{GH_RT_GCREATED, END(goroutines_created)},
#undef END
};

void runtime_stats__copy(struct gh_runtime_stats *out,
			 const struct gh_runtime_stats *in, size_t n)
{
	memcpy((char *)out + sizeof(out->sz), (const char *)in + sizeof(in->sz),
	       n - sizeof(out->sz));
	for (size_t i = 0; i < sizeof(has_ends) / sizeof(has_ends[0]); i++)
		if (has_ends[i].end > n)
			out->has &= ~has_ends[i].bit;
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
	if (n < sizeof(out->sz) + sizeof(out->has))
		return err_set(err, GH_E_USAGE,
			       "gh_profile__runtime_stats: its sz is %zu: set "
			       "it to sizeof(struct gh_runtime_stats)",
			       out->sz);
	/* The fields the caller's struct has; its sz stays its own. */
	runtime_stats__copy(out, &p->x->rt, n);
	return 0;
}
