/* counts.h - what runtime.MemProfile would publish for one bucket at this
 * instant, and the four sample values runtime/pprof derives from it. */
#ifndef GH_COUNTS_H
#define GH_COUNTS_H

#include "gobin/layout.h"
#include "profile/goexp.h"
#include "read/snapshot.h"

/* One bucket's published counters (runtime.MemProfileRecord). */
struct counts {
	uint64_t allocs, frees, alloc_bytes, free_bytes;
};

/* How the target's MemProfile reads counters right now. */
struct publish {
	const struct layout *layout;
	uint32_t cycle;	  /* mProfCycle's cycle number */
	bool all_futures; /* nothing published yet: add every future cycle */
	int64_t rate;	  /* MemProfileRate */
	enum gomath math; /* the target's exp and int64(float64) */
};

/* The profile cycle number in the raw 8 bytes read at the cycle variable:
 * mProfCycle holds cycle << 1 | flushed (1.19+); go1.18's mProf struct
 * starts with the cycle as a uint32. Flushing does not change what is
 * published (it moves future[cycle%3] into active), the cycle does. */
uint32_t counts_cycle(const struct layout *L, uint64_t raw);

/* active + future[cycle%3], or + every future when all_futures. */
struct counts counts_of(const struct publish *pub, const struct bucket *b);

/* A flush racing with the read can show frees ahead of allocs for a
 * moment; Go never publishes that. Clamps c and returns true if it had to. */
bool counts__untear(struct counts *c);

/* scaleHeapSample and the "bytes" label, as protomem.go of the version. */
void counts__sample(const struct publish *pub, const struct bucket *b,
		    const struct counts *c, struct gh_sample *smp);

#endif
