/* profile.h - a profile's header from its target, and profiles without
 * data: the document that says why there is none. */
#ifndef GH_PROFILE_PROFILE_H
#define GH_PROFILE_PROFILE_H

#include "profile/sink.h"
#include "read/snapshot.h"
#include "target/target.h"

/* Fill p's who-fields (pid, comm, exe, runtime file and number, cgroup,
 * Go version) from t. */
void profile__identify(struct gh_profile *p, const struct target *t);

/* A header-only profile for process pid (runtime t, or NULL when none
 * could be opened): status unavailable (disabled, no data, unsupported)
 * or failed, with why's message as the reason. NULL when out of memory. */
struct gh_profile *profile__nodata(int pid, const struct target *t,
				   const struct gh_err *why);

/* The header of a read that only counted buckets (gh_request.count_only):
 * buckets, bytes received, timing, status. NULL when out of memory. */
struct gh_profile *profile__counted(const struct target *t,
				    const struct snapshot *s);

#endif
