/* schedstats.h - the goroutines by state of runtime/metrics'
 * /sched/goroutines/ keys and /sched/goroutines-created, read from
 * outside through a struct gfetch: from 1.26 as metrics.go's
 * schedStatsAggregate.compute computes them, before from each g's status
 * (include/goheap.h's gh_runtime_stats says what each counts). */
#ifndef GH_GOROUTINE_SCHEDSTATS_H
#define GH_GOROUTINE_SCHEDSTATS_H

#include "gobin/rtcounters.h"
#include "goroutine/gread.h"

/* Where to read: the run-time addresses of runtime.sched, allp, allglen
 * and allgptr; runtime.g's offsets of atomicstatus and m (glayout.h);
 * the most goroutines whose statuses are read before 1.26. */
struct schedvars {
	uint64_t sched, allp, allglen, allgptr;
	uint32_t g_status, g_m;
	size_t max_goroutines;
};

/* How a g's atomicstatus counts before 1.26. */
enum sched_class {
	SCHED_RUNNING,
	SCHED_RUNNABLE,
	SCHED_NOT_IN_GO,
	SCHED_REST, /* waiting, or not counted in gcount(true) */
};
enum sched_class sched_class_of(uint32_t atomicstatus);

/* waiting: what is left of gcount(true) (total), 0 when the others
 * add up to more (they are read at different moments). */
uint64_t sched_waiting(uint64_t total, uint64_t running, uint64_t runnable,
		       uint64_t not_in_go);

/* Fill o's goroutines_* and their has bits (GH_RT_GSTATES, and
 * GH_RT_GCREATED from 1.26), total being gcount(true) read with the
 * other counters. 0 (the bits left clear past v->max_goroutines), or -1
 * with errno (EFAULT: allp or allgs does not look like a slice). */
int schedstats_read(const struct rtcounters *R, const struct gfetch *f,
		    const struct schedvars *v, uint64_t total,
		    struct gh_runtime_stats *o);

#endif
