/* rtkept.h - the runtime's own counters kept with a profile, for
 * gh_profile__runtime_stats and the writers. */
#ifndef GH_PROFILE_RTKEPT_H
#define GH_PROFILE_RTKEPT_H

#include "goheap.h"

/* Keep rt (read) or why it could not be read (err) with p; p must be
 * the library's (p->x set). */
void profile__set_runtime(struct gh_profile *p,
			  const struct gh_runtime_stats *rt,
			  const struct gh_err *err);

#endif
