/* rtcounters.h - where the Go runtime keeps the counters runtime/metrics
 * and runtime.NumGoroutine compute, per release: the offsets, inside the
 * runtime variables gcController (runtime.gcControllerState), memstats
 * (runtime.mstats), sched (runtime.schedt) and each runtime.p of allp, of
 * the fields those computations read (mgcpacer.go, mstats.go, proc.go,
 * runtime2.go, metrics.go). One row per supported minor release
 * (rtcounters.c); an unknown release has none. */
#ifndef GH_GOBIN_RTCOUNTERS_H
#define GH_GOBIN_RTCOUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "goheap.h"

/* How the memory limit's heap goal keeps headroom (memoryLimitHeapGoal). */
enum rt_headroom {
	RT_HEADROOM_NONE = 0, /* no memory limit (1.18) */
	RT_HEADROOM_FIXED, /* memoryLimitHeapGoalHeadroom, 1 MiB (1.19-1.20) */
	RT_HEADROOM_PERCENT, /* 3 %, at least 1 MiB (1.21+) */
};

struct rtcounters {
	int minor; /* Go 1.<minor> */
	/* gcController: bytes read from its start, and its fields; 0 for a
	 * field the release does not have (gcPercent is at 0 in all) */
	uint32_t gc_bytes;
	uint32_t gc_percent;	   /* int32 (atomic.Int32 from 1.19) */
	uint32_t memory_limit;	   /* atomic.Int64, 1.19+ */
	uint32_t heap_marked;	   /* uint64 */
	uint32_t heap_goal;	   /* uint64 field, 1.18 only */
	uint32_t pct_heap_goal;	   /* gcPercentHeapGoal, 1.19+ */
	uint32_t sweep_dist_min;   /* sweepDistMinTrigger, 1.19+ */
	uint32_t triggered;	   /* uint64, 1.19+ */
	uint32_t heap_free;	   /* sysMemStat, 1.19+ */
	uint32_t total_alloc;	   /* atomic.Uint64, 1.19+ */
	uint32_t total_free;	   /* atomic.Uint64, 1.19+ */
	uint32_t mapped_ready;	   /* atomic.Uint64, 1.19+ */
	enum rt_headroom headroom; /* memoryLimitHeapGoal's rule */
	bool has_heap_live;	   /* /gc/heap/live:bytes exists (1.21+) */
	/* memstats */
	uint32_t numgc; /* uint32 */
	/* sched */
	uint32_t sched_ngsys;	 /* int32 (atomic.Int32 from 1.20) */
	uint32_t sched_gfree_n;	 /* gFree.n int32 (<= 1.24), or */
	uint32_t sched_gfree_s1; /* gFree.stack.size and */
	uint32_t sched_gfree_s2; /* gFree.noStack.size (1.25+) */
	/* runtime.p */
	uint32_t p_gfree_n; /* gFree.n, or gFree.size from 1.25: int32 */
	/* metrics.go's /sched/goroutines:goroutines is gcount(true), with
	 * the system goroutines, while NumGoroutine is gcount(false)
	 * (1.26+); before, both are the one gcount() */
	bool gcount_sys;
	/* schedStatsAggregate's reads (metrics.go, 1.26+: 0 before, where
	 * the goroutines by state are counted from each g's status) */
	uint32_t sched_runq_size;    /* runq.size int32 */
	uint32_t sched_nsyscall_nop; /* nGsyscallNoP atomic.Int32 */
	uint32_t sched_created;	     /* goroutinesCreated atomic.Uint64 */
	uint32_t p_status;	     /* uint32 */
	uint32_t p_m;		     /* muintptr */
	uint32_t p_runqhead;	     /* uint32, runqtail right after */
	uint32_t p_runnext;	     /* guintptr */
	uint32_t p_created;	     /* goroutinesCreated uint64 */
	uint32_t m_curg;	     /* runtime.m: *g */
	uint32_t m_p;		     /* puintptr */
};

/* The row of Go 1.<minor>; NULL with UNSUPPORTED, naming the release,
 * when there is none: a layout is never guessed. */
const struct rtcounters *rtcounters__for(int minor, struct gh_err *err);

#endif
