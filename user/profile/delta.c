/* delta.c - gh_profile__delta: what net/http/pprof's serveDeltaProfile
 * serves for ?seconds=N, computed the way it computes it: the earlier
 * profile scaled by -1 (p0.Scale(-1)), then Merge([earlier, later])
 * (merge.c; Go's internal/profile is google/pprof's profile). What is
 * its own: the checks it makes of the pair, and the header it serves
 * (the later profile's time, the span between the two). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "profile/merge.h"
#include "profile/refs.h"
#include "profile/sink.h"
#include "profile/summary.h"

static int check_one(const struct gh_profile *p, const char *which,
		     struct gh_err *err)
{
	if (p->x && p->x->nodata)
		return err_set(err, GH_E_USAGE,
			       "the %s profile (process %d) has no data (%s): "
			       "take the delta of two profiles that have it",
			       which, p->pid, p->status_reason);
	if (p->x && !p->x->kept)
		return err_set(err, GH_E_USAGE,
			       "the %s profile (process %d) was built without "
			       "its samples: ask for them with "
			       "gh_request.keep_samples to take a delta",
			       which, p->pid);
	if (!refs_ok(p))
		return err_set(err, GH_E_USAGE,
			       "the %s profile (process %d) refers to a "
			       "missing location, function or mapping: build "
			       "it with every index in range",
			       which, p->pid);
	return 0;
}

static int check_pair(const struct gh_profile *a, const struct gh_profile *b,
		      struct gh_err *err)
{
	if (check_one(a, "earlier", err) || check_one(b, "later", err))
		return -1;
	if (gh_profile__kind(a) != gh_profile__kind(b))
		return err_set(err, GH_E_USAGE,
			       "a delta needs two profiles of one kind, not a "
			       "%s and a %s profile",
			       gh_kind__name(gh_profile__kind(a)),
			       gh_kind__name(gh_profile__kind(b)));
	if (a->pid != b->pid || a->runtime != b->runtime ||
	    strcmp(a->build_id, b->build_id) != 0)
		return err_set(
			err, GH_E_USAGE,
			"a delta needs two profiles of one Go runtime, "
			"not process %d runtime %zu (build ID \"%.64s\") "
			"and process %d runtime %zu (build ID "
			"\"%.64s\"): take both of the same process and "
			"runtime",
			a->pid, a->runtime, a->build_id, b->pid, b->runtime,
			b->build_id);
	return 0;
}

/* The header: the later profile's (who, how it was read), but for what
 * the delta itself is: its time span (serveDeltaProfile sets TimeNanos
 * back to p1's and DurationNanos to p1's minus p0's), period as Merge
 * combines it, totals and top site of its own samples, and the earlier
 * profile's partial read. */
static void fill_header(struct gh_profile *d, const struct gh_profile *before,
			const struct gh_profile *after)
{
	struct gh_profile tables = *d;

	*d = *after;
	d->samples = tables.samples;
	d->nsamples = tables.nsamples;
	d->locations = tables.locations;
	d->nlocations = tables.nlocations;
	d->functions = tables.functions;
	d->nfunctions = tables.nfunctions;
	d->mappings = tables.mappings;
	d->nmappings = tables.nmappings;
	d->x = tables.x; /* its samples' labels, kept, of after's kind */
	d->period = tables.period;
	d->duration_ns =
		(int64_t)((uint64_t)after->time_ns - (uint64_t)before->time_ns);
	if (before->status == GH_SNAP_PARTIAL && d->status != GH_SNAP_PARTIAL) {
		d->status = GH_SNAP_PARTIAL;
		snprintf(d->status_reason, sizeof(d->status_reason),
			 "the earlier profile is partial: %.400s",
			 before->status_reason);
	}
	summary_of(d);
}

int gh_profile__delta(const struct gh_profile *before,
		      const struct gh_profile *after, struct gh_profile **out,
		      struct gh_err *err)
{
	struct gh_profile *d;

	*out = NULL;
	if (check_pair(before, after, err))
		return -1;
	d = merge_profiles((const struct merge_src[]){{before, true, false},
						      {after, false, false}},
			   2);
	if (!d)
		return err_set(err, GH_E_FAILED,
			       "out of memory taking the delta of process "
			       "%d's profiles",
			       after->pid);
	fill_header(d, before, after);
	*out = d;
	return 0;
}
