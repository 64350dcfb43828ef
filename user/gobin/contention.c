/* contention.c - the per-release facts of the block and mutex profiles,
 * read from each release's GOROOT/src (go1.18.10 ... go1.27.4) and
 * checked against live processes (tests/integration/blockmutex.sh: equal
 * to each target's own runtime/pprof output; the ticks layout against
 * each release's DWARF).
 *
 * runtime/mprof.go: bbuckets and xbuckets head lists of buckets linked by
 *   allnext like mbuckets (a *bucket in 1.18, atomic.UnsafePointer after:
 *   one word either way), typ 2 (blockProfile) and 3 (mutexProfile),
 *   size 0, then nstk stack words and a blockRecord {count float64;
 *   cycles int64} (16 bytes) in every release. blockprofilerate and
 *   mutexprofilerate are uint64 (cycles; 1 = every event; 0 = off).
 *   saveblockevent adds to a record: block events shorter than the rate
 *   add rate/cycles to count and rate to cycles, others 1 and cycles;
 *   from 1.20 a mutex event adds rate to count and rate*cycles to cycles
 *   (1.18-1.19: 1 and cycles, runtime/pprof scaling at write time).
 * Stacks: up to 1.22 callers()/gcallers() (maxStack 32): logical return
 *   PCs with every inlined call already a virtual PC. From 1.23 the frame
 *   pointer unwinder (fpTracebackPartialExpand): the frames being skipped
 *   are expanded through the inline tree, those after are raw return
 *   addresses, so an inlined call's outer frames are missing; tracefpunwindoff
 *   or cgo on the stack falls back to callers(). The mutex list also
 *   holds runtime-internal lock contention (1.22+, mLockProfile); 1.23-
 *   1.26 stores those stacks after a logicalStackSentinel (^uintptr(0)),
 *   which no function holds, so CallersFrames drops it.
 * runtime.BlockProfile/MutexProfile (1.23+ blockProfileInternal,
 *   mutexProfileInternal): every bucket in allnext order, Count =
 *   int64(count) (block: 0 becomes 1), Cycles = cycles, Stack = the
 *   stored stack (BlockProfile's expandFrames is for the public API only;
 *   runtime/pprof takes the records unexpanded).
 * runtime/pprof/pprof.go writeProfileInternal: the records sorted by
 *   Cycles descending (sort.Slice up to 1.22, slices.SortFunc from 1.23:
 *   unstable, the same sorts the heap's legacy text runs, layout.h),
 *   then printCountCycleProfile: period type contentions/count, period 1,
 *   sample types contentions/count and delay/nanoseconds, no comments and
 *   no default sample type; per record values[0] = Count and values[1] =
 *   int64(float64(Cycles) / (float64(cyclesPerSecond) / 1e9)); 1.18-1.19
 *   pass them through scaleMutexProfile first for the mutex profile
 *   (count * period, ns * float64(period), period =
 *   SetMutexProfileFraction(-1)) and scaleBlockProfile (nothing) for the
 *   block one. 1.23+ expand each stack with expandInlinedFrames
 *   (CallersFrames, f.PC + 1 per frame, at most profstackdepth: 128 by
 *   default) before appendLocsForStack, which is the heap's (with
 *   expandFinalInlineFrame); no hideRuntime.
 * runtime/runtime.go ticks: cyclesPerSecond is tickspersecond() (up to
 *   1.21) or ticksPerSecond(): ticks.val once computed. 1.18-1.19 {lock
 *   mutex; pad uint32; val uint64}: val at 16; 1.20-1.21 {lock; val
 *   atomic.Int64}: val at 8 (both compute it by sleeping 100 ms between
 *   two reads of nanotime and cputicks); 1.22+ {lock; startTicks,
 *   startTime int64; val atomic.Int64}: 8, 16, 24, computed as
 *   int64(float64(cputicks()-startTicks) * 1e9 / float64(nanotime() -
 *   startTime)) once more than 5 ms passed since schedinit.
 *   SetBlockProfileRate computes it for a rate above 1, so a program that
 *   turned only the mutex profile on, or the block one at rate 1, may
 *   hold 0 until a profile is written. cputicks is RDTSC on amd64 and
 *   nanotime() on arm64, nanotime CLOCK_MONOTONIC: clocks of the host,
 *   which a reader can take too.
 */
#include "gobin/contention.h"
#include "base/err.h"

static const struct contention_layout rows[] = {
	{.minor = 18, .ticks_val = 16, .pprof_scales_mutex = true},
	{.minor = 19, .ticks_val = 16, .pprof_scales_mutex = true},
	{.minor = 20, .ticks_val = 8},
	{.minor = 21, .ticks_val = 8},
	{.minor = 22,
	 .ticks_val = 24,
	 .ticks_start_ticks = 8,
	 .ticks_start_time = 16},
	{.minor = 23,
	 .ticks_val = 24,
	 .ticks_start_ticks = 8,
	 .ticks_start_time = 16,
	 .expand_frames = true},
	{.minor = 24,
	 .ticks_val = 24,
	 .ticks_start_ticks = 8,
	 .ticks_start_time = 16,
	 .expand_frames = true},
	{.minor = 25,
	 .ticks_val = 24,
	 .ticks_start_ticks = 8,
	 .ticks_start_time = 16,
	 .expand_frames = true},
	{.minor = 26,
	 .ticks_val = 24,
	 .ticks_start_ticks = 8,
	 .ticks_start_time = 16,
	 .expand_frames = true},
	{.minor = 27,
	 .ticks_val = 24,
	 .ticks_start_ticks = 8,
	 .ticks_start_time = 16,
	 .expand_frames = true},
};

const struct contention_layout *
contention_layout_for(int minor, const char *version, struct gh_err *err)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].minor == minor)
			return &rows[i];
	err_set(err, GH_E_UNSUPPORTED,
		"the block and mutex profiles of Go %.64s are not known to "
		"goheap-bpf (go1.18 ... go1.27 are)",
		version);
	return NULL;
}
