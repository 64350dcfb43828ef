/* deltapage.c - a profile with ?seconds=N: net/http/pprof's
 * serveDeltaProfile. Two reads of the Go runtime, N seconds apart, their
 * samples kept; gh_profile__delta of the two (alloc values over the N
 * seconds, in-use values the later's minus the earlier's, as its Merge
 * computes them), written as it writes it (filename "heap-delta",
 * "allocs-delta", "block-delta", "mutex-delta", allocs' default sample
 * type). The goroutine profile likewise, from two reads of its
 * goroutines (goroutinepage.c): each stack and label set's count the
 * later's minus the earlier's, "goroutine-delta". Between the reads the
 * request waits in the jobs queue's later list, keeping its place but not
 * the collector: other requests are served meanwhile. */
#include <stdio.h>

#include "cmd/cmdclock.h"
#include "cmd/serve/deltapage.h"
#include "cmd/serve/goroutinepage.h"
#include "cmd/serve/pprofpage.h"

/* The answer, the delta d of two reads of x's process or why there is
 * none (rc, err: gh_profile__delta's). */
static void answer(struct exch *x, int rc, const struct gh_err *err,
		   struct gh_profile *d, const struct gh_write_opts *w)
{
	char name[24];

	if (rc) {
		/* the PID now names another program (a reuse by the same
		 * build within N seconds is not told) */
		reply__text(&x->reply, 410,
			    "the process changed between the two profiles: %s",
			    err->msg);
		return;
	}
	if (x->route.ep == EP_GOROUTINE) {
		goroutine_reply(x, d, "goroutine-delta");
	} else {
		snprintf(name, sizeof(name), "%s-delta", pprof_name(x));
		pprof_reply(x, d, w, name);
	}
	gh_profile__free(d);
}

/* The goroutine profile's second read, and the answer. */
static void second_goroutines(struct exch *x)
{
	struct gh_profile *after = goroutine_read(x), *d = NULL;
	struct gh_err err;
	int rc;

	if (after) {
		rc = gh_profile__delta(x->goroutines_before, after, &d, &err);
		answer(x, rc, &err, d, NULL);
	}
	gh_profile__free(after);
	gh_profile__free(x->goroutines_before);
	x->goroutines_before = NULL;
}

/* The second read, and the answer. */
static void second(struct exch *x)
{
	const struct gh_write_opts w = pprof_opts(x);
	const struct gh_result *after;
	struct gh_results *res;
	struct gh_profile *d = NULL;
	struct gh_err err;
	int rc;

	if ((after = pprof_read(x, NULL, true, &res))) {
		rc = gh_profile__delta(x->before->v[0].profile, after->profile,
				       &d, &err);
		answer(x, rc, &err, d, &w);
	}
	gh_results__free(res);
	gh_results__free(x->before);
	x->before = NULL;
}

bool delta_page(struct exch *x)
{
	if (x->goroutines_before) {
		second_goroutines(x);
		return true;
	}
	if (x->before) {
		second(x);
		return true;
	}
	if (x->route.ep == EP_GOROUTINE) {
		if (!(x->goroutines_before = goroutine_read(x)))
			return true;
	} else if (!pprof_read(x, NULL, true, &x->before)) {
		gh_results__free(x->before);
		x->before = NULL;
		return true;
	}
	job_queue__later(&x->srv->jobs, &x->job,
			 now_ns() + (uint64_t)x->route.seconds * 1000000000ull);
	return false;
}
