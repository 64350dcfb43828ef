/* merge.h - google/pprof's profile.Merge (profile/merge.go; Go's
 * internal/profile, which net/http/pprof uses, is the same) over
 * gh_profiles, step for step, with what its callers do to a source first:
 * Scale(-1) and SetLabel("pprof::base", "true"). Both the delta
 * (delta.c) and the diff (diff.c) are this Merge. */
#ifndef GH_PROFILE_MERGE_H
#define GH_PROFILE_MERGE_H

#include "goheap.h"

/* One profile to merge, and what is done to it before. */
struct merge_src {
	const struct gh_profile *p;
	bool negate; /* Profile.Scale(-1) first */
	bool base;   /* SetLabel("pprof::base", "true") first: gh_sample.base */
};

/* Merge(srcs[0..n)): a new profile holding the merged samples,
 * locations, functions and mappings, numbered in the order Merge meets
 * them, and of the header what combineHeaders computes that the callers
 * share: time_ns and period; its x: the samples kept, the first
 * source's kind (gh_profile__kind) and each sample's string labels; the
 * rest zero. Every index in the
 * sources' tables must name an entry. NULL when out of memory. */
struct gh_profile *merge_profiles(const struct merge_src *srcs, size_t n);

#endif
