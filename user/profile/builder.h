/* builder.h - the incremental profile builder: buckets go in one at a time,
 * in allnext order, as a reader delivers them (a snapshot sink), and each
 * sample goes on to the sinks (profile/sink.h) as it is made, so a profile
 * of a million buckets never holds all their stacks, nor, unless asked,
 * all its samples. */
#ifndef GH_PROFILE_BUILDER_H
#define GH_PROFILE_BUILDER_H

#include "gobin/buildids.h"
#include "profile/sink.h"
#include "read/snapshot.h"

struct target;
struct view;

struct view_opts {
	bool keep; /* keep every sample in the profile (p->samples) */
	/* Where samples go; the view takes them over (freeing them, or
	 * handing them to the profile it builds). */
	struct psink *sinks;
	size_t nsinks;
	struct buildids *ids; /* mappings' build IDs; NULL: read each */
	/* Which list's buckets come (the heap's: 0); block and mutex need
	 * their release's row (target__contention). */
	enum gh_kind kind;
	const struct contention_layout *cl;
	/* The process's kept locations (NULL: none kept); only a heap
	 * profile uses them. */
	struct locmemo *memo;
};

/* A builder for target t's profile (t must outlive it). The profile's
 * samples go to o's sinks; they are kept only with o->keep. */
int view__new(const struct target *t, const struct view_opts *o,
	      struct view **out, struct gh_err *err);
void view__free(struct view *v);

/* bucket_sink and its restart callback, for snapshot__set_sink. */
int view__add(void *view, const struct snapshot *s, const struct bucket *b,
	      const uint64_t *stk);
void view__restart(void *view);

/* The profile of every bucket added, with s's outcome (partial, vars).
 * DISABLED or NODATA when the target has no profile to give. The view is
 * spent afterwards. */
int view__finish(struct view *v, const struct snapshot *s,
		 struct gh_profile **out, struct gh_err *err);

#endif
