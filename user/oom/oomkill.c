/* oomkill.c - see oomkill.h. */
#include <stdio.h>
#include <string.h>

#include "oom/oomkill.h"

/* The kernel's PAGE_COUNTER_MAX (LONG_MAX / PAGE_SIZE), or more: the
 * cgroup has no limit (the root's, a cgroup never limited). */
static bool unlimited(uint64_t pages, uint64_t page_bytes)
{
	return pages >= (uint64_t)INT64_MAX / page_bytes;
}

void oominfo_from(const struct gh_ev_oom *ev, unsigned early_kills,
		  uint64_t page_bytes, const char *cgroup, struct gh_oom *o)
{
	size_t n = strnlen(ev->comm, sizeof(ev->comm));

	*o = (struct gh_oom){
		.pid = (int)ev->h.tgid,
		.memcg_usage_bytes = ev->memcg_usage * page_bytes,
		.memcg_limit_bytes = unlimited(ev->memcg_limit, page_bytes)
					     ? 0
					     : ev->memcg_limit * page_bytes,
		.total_vm_bytes = ev->total_vm * page_bytes,
		.oom_score_adj = ev->oom_score_adj,
		.uid = ev->uid,
		.early_kills = early_kills,
	};
	memcpy(o->comm, ev->comm, n);
	snprintf(o->cgroup, sizeof(o->cgroup), "%s", cgroup);
}

void oominfo_trigger(const struct gh_oom *o, char *buf, size_t size)
{
	char limit[32];

	if (o->memcg_limit_bytes)
		snprintf(limit, sizeof(limit), "%llu bytes",
			 (unsigned long long)o->memcg_limit_bytes);
	else
		snprintf(limit, sizeof(limit), "none");
	snprintf(buf, size,
		 "oom-kill: comm %s, memcg usage %llu bytes of limit %s, "
		 "total_vm %llu bytes, oom_score_adj %d",
		 o->comm, (unsigned long long)o->memcg_usage_bytes, limit,
		 (unsigned long long)o->total_vm_bytes, o->oom_score_adj);
}
