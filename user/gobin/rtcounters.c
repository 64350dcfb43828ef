/* rtcounters.c - the runtime counters' fields, one row per supported Go
 * release. The offsets are those of each release's runtime structs
 * (mgcpacer.go's gcControllerState, mstats.go's mstats, runtime2.go's
 * schedt and p) as that release's compiler lays them out; test_rtcounters
 * checks every row against the DWARF of a binary the release built
 * (fixtures/rtstruct_ref).
 *
 * What moved, and why:
 * - 1.19 made the heap goal a function (heapGoalInternal: gcPercent's
 *   goal, the memory limit's goal from heapFree, totalAlloc - totalFree
 *   and mappedReady, sweepDistMinTrigger, triggered) where 1.18 kept a
 *   heapGoal field; memoryLimit appeared.
 * - 1.20 dropped gcControllerState fields before gcPercentHeapGoal
 *   (everything up 56 bytes) and mstats shrank; sched.gFree moved 8 down.
 * - 1.21 added 24 bytes of fields after memoryLimit and changed the memory
 *   limit's headroom from a fixed 1 MiB to 3 % (memoryLimitHeapGoal).
 * - 1.23 moved p.gFree up 8; 1.25 replaced gFree.n by gList.size (sched's
 *   two lists each count their own) and moved memstats.numgc.
 * - 1.26 counts system goroutines in /sched/goroutines:goroutines
 *   (gcount(true)) but not in NumGoroutine, and adds the goroutines by
 *   state (schedStatsAggregate: each P's status, run queue and count of
 *   goroutines created, its M's current g, sched.runq.size,
 *   nGsyscallNoP, goroutinesCreated).
 */
#include <stddef.h>

#include "base/err.h"
#include "gobin/rtcounters.h"

#define GC19(a)                                                                \
	.memory_limit = 8, .pct_heap_goal = (a), .sweep_dist_min = (a) + 8,    \
	.triggered = (a) + 16
#define SCHED26                                                                \
	.sched_runq_size = 144, .sched_nsyscall_nop = 100,                     \
	.sched_created = 6864, .p_status = 4, .p_m = 48, .p_runqhead = 400,    \
	.p_runnext = 2456, .p_created = 13792, .m_curg = 184, .m_p = 208
#define GC21                                                                   \
	.gc_bytes = 320, GC19(72), .heap_marked = 152, .heap_free = 288,       \
	.total_alloc = 296, .total_free = 304, .mapped_ready = 312,            \
	.headroom = RT_HEADROOM_PERCENT, .has_heap_live = true

static const struct rtcounters rows[] = {
	{.minor = 18,
	 .gc_bytes = 176,
	 .heap_goal = 104,
	 .heap_marked = 168,
	 .numgc = 4280,
	 .sched_ngsys = 72,
	 .sched_gfree_n = 176,
	 .p_gfree_n = 2472},
	{.minor = 19,
	 .gc_bytes = 352,
	 GC19(104),
	 .heap_marked = 184,
	 .heap_free = 320,
	 .total_alloc = 328,
	 .total_free = 336,
	 .mapped_ready = 344,
	 .headroom = RT_HEADROOM_FIXED,
	 .numgc = 7704,
	 .sched_ngsys = 72,
	 .sched_gfree_n = 176,
	 .p_gfree_n = 2472},
	{.minor = 20,
	 .gc_bytes = 296,
	 GC19(48),
	 .heap_marked = 128,
	 .heap_free = 264,
	 .total_alloc = 272,
	 .total_free = 280,
	 .mapped_ready = 288,
	 .headroom = RT_HEADROOM_FIXED,
	 .numgc = 7704,
	 .sched_ngsys = 72,
	 .sched_gfree_n = 184,
	 .p_gfree_n = 2472},
	{.minor = 21,
	 GC21,
	 .numgc = 7704,
	 .sched_ngsys = 72,
	 .sched_gfree_n = 184,
	 .p_gfree_n = 2472},
	{.minor = 22,
	 GC21,
	 .numgc = 7704,
	 .sched_ngsys = 72,
	 .sched_gfree_n = 184,
	 .p_gfree_n = 2472},
	{.minor = 23,
	 GC21,
	 .numgc = 7704,
	 .sched_ngsys = 72,
	 .sched_gfree_n = 184,
	 .p_gfree_n = 2464},
	{.minor = 24,
	 GC21,
	 .numgc = 7704,
	 .sched_ngsys = 72,
	 .sched_gfree_n = 184,
	 .p_gfree_n = 2464},
	{.minor = 25,
	 GC21,
	 .numgc = 7680,
	 .sched_ngsys = 80,
	 .sched_gfree_s1 = 184,
	 .sched_gfree_s2 = 200,
	 .p_gfree_n = 2464},
	{.minor = 26,
	 GC21,
	 .numgc = 7680,
	 .sched_ngsys = 96,
	 .sched_gfree_s1 = 200,
	 .sched_gfree_s2 = 216,
	 .p_gfree_n = 2472,
	 .gcount_sys = true,
	 SCHED26},
	{.minor = 27,
	 GC21,
	 .numgc = 7680,
	 .sched_ngsys = 96,
	 .sched_gfree_s1 = 200,
	 .sched_gfree_s2 = 216,
	 .p_gfree_n = 2472,
	 .gcount_sys = true,
	 SCHED26},
};

const struct rtcounters *rtcounters__for(int minor, struct gh_err *err)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].minor == minor)
			return &rows[i];
	err_set(err, GH_E_UNSUPPORTED,
		"the runtime counters of Go 1.%d are not known (1.18 to "
		"1.27 are); read a process built by one of those",
		minor);
	return NULL;
}
