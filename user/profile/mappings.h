/* mappings.h - the profile's mapping table from /proc/PID/maps. */
#ifndef GH_MAPPINGS_H
#define GH_MAPPINGS_H

#include "gobin/buildids.h"
#include "proc/proc.h"

/* Fill p->mappings (p->nmappings may stay 0: the caller then adds the
 * fake mapping runtime/pprof would); build IDs through ids (may be NULL). */
int mappings_build(int pid, const struct procmaps *maps, struct buildids *ids,
		   struct gh_profile *p, struct gh_err *err);

/* runtime/pprof's fake mapping (file and build ID ""), for a profile
 * mappings_build left without one. */
int mappings_add_fake(struct gh_profile *p, struct gh_err *err);

#endif
