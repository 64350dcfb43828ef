/* oomcapture.h - gh_oom_watch (oomcapture.c) for the library's own front
 * ends: one that shares a collector's caches, so that a binary the
 * collector parsed is not parsed again for the OOM watch. */
#ifndef GH_OOM_OOMCAPTURE_H
#define GH_OOM_OOMCAPTURE_H

#include "gobin/bincache.h"
#include "gobin/buildids.h"
#include "goheap.h"

/* gh_oom_watch__new with bins and ids lent (the OOM watch uses them from
 * the thread that uses the collector, and does not free them). */
int oom_watch__new_sharing(const struct gh_oom_watch_opts *o,
			   struct bincache *bins, struct buildids *ids,
			   struct gh_oom_watch **out, struct gh_err *err);

#endif
