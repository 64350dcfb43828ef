/* oomkill.h - an OOM kill as the kernel told it (GH_EV_OOM from
 * oom:mark_victim: pages, a fixed-size comm) made into what the library
 * tells (struct gh_oom: bytes, "no limit" as 0), and the trigger line a
 * victim's profile carries. Pure, for the unit tests. */
#ifndef GH_OOM_OOMKILL_H
#define GH_OOM_OOMKILL_H

#include "goheap.h"
#include "goheap_record.h"

/* o from ev, its process's cgroup path and the SIGKILLs taken before the
 * kernel marked it, with page_bytes the page size; time_ns is the
 * caller's. */
void oominfo_from(const struct gh_ev_oom *ev, unsigned early_kills,
		  uint64_t page_bytes, const char *cgroup, struct gh_oom *o);

/* "oom-kill: comm C, memcg usage U of limit L bytes, ..." into buf. */
void oominfo_trigger(const struct gh_oom *o, char *buf, size_t size);

#endif
