/* rtread.h - the runtime's own counters read through a struct gfetch, at
 * the offsets of gobin/rtcounters.h, and computed as runtime/metrics and
 * NumGoroutine compute them (gcount, heapGoal, ...). */
#ifndef GH_GOROUTINE_RTREAD_H
#define GH_GOROUTINE_RTREAD_H

#include "gobin/rtcounters.h"
#include "goroutine/gread.h"
#include "goroutine/schedstats.h"
#include "target/target.h"

/* The run-time addresses of the variables read (sched, allp and allglen
 * with the goroutines by state's, in s). */
struct rtvars {
	uint64_t gc_controller, memstats, gomaxprocs;
	struct schedvars s;
};

/* Read them all, again while memstats.numgc moved between the first and
 * the last read (at most a few times). 0, or -1 with errno (EAGAIN: it
 * moved on every try; EFAULT: allp does not look like a slice of Ps). The
 * counters are written into out (its sz is not looked at). */
int rtstats_read(const struct rtcounters *R, const struct gfetch *f,
		 const struct rtvars *v, struct gh_runtime_stats *out);

/* t's counters (rtstats.c): its variables by symbol (or recovered from a
 * stripped binary's code), read with process_vm_readv. 0, or -1 with err:
 * UNSUPPORTED, PERM, GONE, PARTIAL (they moved on every try), FAILED. */
int target__read_runtime_stats(struct target *t, struct gh_runtime_stats *o,
			       struct gh_err *err);

/* gcController.heapGoal() of 1.19+ (heapGoalInternal, memoryLimitHeapGoal)
 * over the fields as read: exposed for the unit tests. */
struct rt_pacer {
	uint64_t pct_goal, sweep_dist_min, triggered, heap_marked;
	uint64_t heap_free, total_alloc, total_free, mapped_ready;
	int64_t memory_limit;
};
uint64_t rt_heap_goal(const struct rt_pacer *p, enum rt_headroom h);

#endif
