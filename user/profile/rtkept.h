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

/* in's first n bytes (n >= its sz and has) into out, out->sz kept:
 * the has bits of fields past n cleared, so a caller built against an
 * older header is never told of a field it does not have. */
void runtime_stats__copy(struct gh_runtime_stats *out,
			 const struct gh_runtime_stats *in, size_t n);

#endif
