/* countcycle.h - a block or mutex profile's records as runtime/pprof's
 * writeProfileInternal and printCountCycleProfile take them (the facts per
 * release: gobin/contention.c): the target's ticks per second, the
 * records' order, and each sample's two values. */
#ifndef GH_PROFILE_COUNTCYCLE_H
#define GH_PROFILE_COUNTCYCLE_H

#include <stddef.h>
#include <stdint.h>

#include "gobin/contention.h"
#include "gobin/layout.h"
#include "profile/goexp.h"
#include "read/snapshot.h" /* goheap_record.h: GH_VAR_BM_* */

/* One bucket as BlockProfileRecord has it. */
struct crec {
	int64_t count;	/* int64(blockRecord.count); block: 0 becomes 1 */
	int64_t cycles; /* blockRecord.cycles */
	size_t bucket;	/* its place in allnext order */
};

/* The record of a bucket's blockRecord words rec[0..1] (count's float64
 * bits, cycles), as blockProfileInternal or mutexProfileInternal give it. */
struct crec crec_of(const uint64_t *rec, enum gh_kind kind, enum gomath m,
		    size_t bucket);

/* runtime_cyclesPerSecond as the target answers it: its cached
 * ticks.val (vars: the read's GH_VAR_BM_* values), else what its
 * ticksPerSecond would compute now from its ticks.startTicks and
 * startTime and this host's clocks (1.22+), else what tickspersecond
 * would measure (1.18-1.21: 100 ms of the host's clocks). *how says
 * which, for the profile's notes. FAILED when ticks.val cannot be read. */
int contention_ticks(const struct contention_layout *cl, const uint64_t *vars,
		     uint32_t var_err, bool arm64, int64_t *tps,
		     const char **how, struct gh_err *err);

/* Sort r[0..n) by cycles, largest first, with the release's own unstable
 * sort (sort.Slice up to 1.22, slices.SortFunc after). */
void contention_sort(struct crec *r, size_t n, const struct layout *L);

/* The sample's values (contentions, delay in ns) of record r, with rate
 * the list's profile rate and tps the ticks per second. */
void contention_values(const struct contention_layout *cl, enum gh_kind kind,
		       int64_t rate, int64_t tps, enum gomath m,
		       const struct crec *r, int64_t out[2]);

#endif
