/* deltapage.c - a profile with ?seconds=N: net/http/pprof's
 * serveDeltaProfile. Two reads of the Go runtime, N seconds apart, their
 * samples kept; gh_profile__delta of the two (alloc values over the N
 * seconds, in-use values the later's minus the earlier's, as its Merge
 * computes them), written as it writes it (filename "heap-delta" or
 * "allocs-delta", allocs' default sample type). Between the reads the
 * request waits in the jobs queue's later list, keeping its place but not
 * the collector: other requests are served meanwhile. */
#include <stdio.h>

#include "cmd/cmdclock.h"
#include "cmd/serve/deltapage.h"
#include "cmd/serve/pprofpage.h"

/* The second read, and the answer. */
static void second(struct exch *x)
{
	const struct gh_write_opts w = pprof_opts(x);
	const struct gh_result *after;
	struct gh_results *res;
	struct gh_profile *d;
	struct gh_err err;
	char name[16];

	if ((after = pprof_read(x, NULL, true, &res))) {
		if (gh_profile__delta(x->before->v[0].profile, after->profile,
				      &d, &err)) {
			/* the PID now names another program (a reuse by
			 * the same build within N seconds is not told) */
			reply__text(&x->reply, 410,
				    "the process changed between the two "
				    "profiles: %s",
				    err.msg);
		} else {
			snprintf(name, sizeof(name), "%s-delta", pprof_name(x));
			pprof_reply(x, d, &w, name);
			gh_profile__free(d);
		}
	}
	gh_results__free(res);
	gh_results__free(x->before);
	x->before = NULL;
}

bool delta_page(struct exch *x)
{
	if (x->before) {
		second(x);
		return true;
	}
	if (!pprof_read(x, NULL, true, &x->before)) {
		gh_results__free(x->before);
		x->before = NULL;
		return true;
	}
	job_queue__later(&x->srv->jobs, &x->job,
			 now_ns() + (uint64_t)x->route.seconds * 1000000000ull);
	return false;
}
