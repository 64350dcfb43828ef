/* diff.c - gh_profile__diff: NEW minus OLD as `go tool pprof -diff_base
 * OLD NEW` computes it (google/pprof internal/driver/fetch.go): OLD's
 * samples labelled pprof::base=true (SetLabel) and scaled by -1 (Scale),
 * then profile.Merge([NEW, OLD]) (merge.c), so that OLD's samples,
 * labelled, never cancel NEW's and each stack's difference is what a
 * report aggregates. What is its own: the checks that both hold their
 * samples and are of one kind (heap, or goroutine: go tool pprof refuses
 * to merge profiles whose sample types differ), the result's kind, totals
 * and top site. */
#include <stdlib.h>

#include "base/err.h"
#include "profile/merge.h"
#include "profile/sink.h"
#include "profile/summary.h"

static bool samples_at_hand(const struct gh_profile *p)
{
	return !p->x || p->x->kept;
}

int gh_profile__diff(const struct gh_profile *old, const struct gh_profile *now,
		     struct gh_profile **out, struct gh_err *err)
{
	struct gh_profile *p;

	*out = NULL;
	if (!samples_at_hand(old) || !samples_at_hand(now))
		return err_set(err, GH_E_USAGE,
			       "a profile to diff must hold its samples: read "
			       "it with gh_profile__read, or take it with "
			       "keep_samples");
	if (gh_profile__kind(old) != gh_profile__kind(now))
		return err_set(err, GH_E_USAGE,
			       "OLD is a %s profile and NEW a %s one: diff two "
			       "profiles of one kind",
			       gh_kind__name(gh_profile__kind(old)),
			       gh_kind__name(gh_profile__kind(now)));
	p = merge_profiles((const struct merge_src[]){{now, false, false},
						      {old, true, true}},
			   2);
	if (!p)
		return err_set(err, GH_E_FAILED,
			       "out of memory computing the difference");
	summary_of(p);
	*out = p;
	return 0;
}
