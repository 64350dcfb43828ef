/* view.h - the incremental profile builder behind gh_profile__build and
 * gh_reader__profile: buckets go in one at a time, in allnext order, as a
 * reader delivers them (a gh_snapshot sink), so a profile of a million
 * buckets never holds all their stacks. */
#ifndef GH_VIEW_H
#define GH_VIEW_H

#include "read/snapshot.h"

struct gh_target;
struct view;

/* stream: compress samples as they are built instead of keeping them
 * (the profile is then only for gh_write_pprof). One view per target at a
 * time: it borrows the target's symbol cache. */
int view__new(const struct gh_target *t, bool stream, struct view **out,
	      struct gh_err *err);
void view__free(struct view *v);

/* bucket_sink and its restart callback, for snapshot__set_sink. */
int view__add(void *view, const struct gh_snapshot *s, const struct bucket *b,
	      const uint64_t *stk);
void view__restart(void *view);

/* The profile of every bucket added, with s's outcome (partial, vars).
 * DISABLED or NODATA when the target has no profile to give. The view is
 * spent afterwards. */
int view__finish(struct view *v, const struct gh_snapshot *s,
		 struct gh_profile **out, struct gh_err *err);

#endif
