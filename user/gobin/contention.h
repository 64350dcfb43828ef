/* contention.h - what the block and mutex profiles are in each Go release:
 * the record after a bucket's stack, the ticks variable that converts its
 * cycles, and the steps runtime/pprof takes from records to samples. One
 * row per supported minor release (gobin/contention.c, where the facts
 * are spelled out against each release's sources). */
#ifndef GH_GOBIN_CONTENTION_H
#define GH_GOBIN_CONTENTION_H

#include <stdbool.h>
#include <stdint.h>

#include "goheap.h"

/* runtime/mprof.go's bucketType of the block and mutex lists. */
#define GO_BLOCK_PROFILE 2
#define GO_MUTEX_PROFILE 3
/* sizeof(blockRecord): {count float64; cycles int64}, every release. */
#define GO_BLOCK_RECORD_BYTES 16

struct contention_layout {
	int minor; /* Go 1.<minor> */
	/* runtime.ticks: the offset of val (ticksPerSecond's cache, 0 until
	 * first asked) and, from 1.22, of startTicks and startTime
	 * (ticks.init's, at schedinit); 0 = no such field. */
	uint32_t ticks_val, ticks_start_ticks, ticks_start_time;
	/* 1.18-1.19: runtime/pprof's scaleMutexProfile multiplies count and
	 * delay by the fraction in force when it writes; from 1.20 the
	 * runtime's saveblockevent has scaled each event already. */
	bool pprof_scales_mutex;
	/* 1.23+: a record's stack goes through expandInlinedFrames
	 * (runtime.CallersFrames, which inserts the virtual PCs of inlined
	 * calls the frame-pointer unwinder did not expand), at most
	 * profstackdepth frames; before, it is used as stored. */
	bool expand_frames;
};

/* The row of Go 1.<minor>; UNSUPPORTED, naming the version, for a release
 * whose block and mutex profiles were not checked: never guessed. */
const struct contention_layout *
contention_layout_for(int minor, const char *version, struct gh_err *err);

#endif
