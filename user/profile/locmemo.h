/* locmemo.h - the locations of a process's last complete heap profile,
 * kept for its next one. runtime/pprof numbers locations and functions in
 * the order the buckets' stacks first need them (locations.h), so a
 * profile's tables and each sample's location ids depend on every bucket
 * before it. Go only prepends to allnext and a bucket never changes its
 * stack: a later profile whose buckets start with the same ones, in the
 * same order, builds exactly the same tables and ids for them. The memo
 * keeps those (each sample's ids, the tables, and what the builder
 * learnt), so that such a profile takes them instead of building them
 * again, and where its buckets part from the memo's, the builder goes on
 * from the tables as they stood there. */
#ifndef GH_LOCMEMO_H
#define GH_LOCMEMO_H

#include "profile/locations.h"

/* The tables' sizes after sample i (recorded where they grew). */
struct memomark {
	uint32_t i, nloc, nfunc;
};

struct locmemo {
	/* A profile of the process was built: the next one records. A
	 * process read once (a sweep's) never pays for the memo. */
	bool primed;
	bool valid; /* holds a complete profile's build */
	/* the mappings its locations point into */
	struct gh_mapping *maps;
	size_t nmaps;
	/* its tables, and what its builder learnt building them */
	struct gh_location *locs;
	size_t nlocs;
	struct gh_function *funcs;
	size_t nfuncs;
	struct locstate st;
	/* per sample, in allnext order: its bucket, its ids at
	 * ids[off[i]..off[i + 1]) */
	uint64_t *addr;
	uint32_t *off;
	size_t n, addr_cap, off_cap;
	uint32_t *ids;
	size_t nids, ids_cap;
	struct memomark *marks;
	size_t nmarks, marks_cap;
};

void locmemo__clear(struct locmemo *m);
/* Bytes it holds. */
size_t locmemo__bytes(const struct locmemo *m);

/* How one profile's locations come: built (no memo, or a process read
 * once); taken from the memo while its buckets are the memo's; built and
 * recorded into the memo. */
enum memo_mode { MEMO_OFF, MEMO_FOLLOW, MEMO_RECORD };

/* One profile's use of a memo (m: NULL for none). */
struct memouse {
	struct locmemo *m;
	enum memo_mode mode;
	size_t nsamp; /* samples located so far */
};

/* A profile p starts (its mappings made, no location yet). */
void memouse__start(struct memouse *u, const struct gh_profile *p);

/* The next sample, of bucket addr: 1 and the memo's ids in *ids[0..*n)
 * (the first sample copies the memo's tables into p); 0 when b must build
 * them (the tables cut back and b resumed where the buckets part from the
 * memo's): then memouse__built. -1 when out of memory. */
int memouse__take(struct memouse *u, uint64_t addr, struct gh_profile *p,
		  struct locbuilder *b, uint32_t **ids, uint32_t *n);

/* The sample of bucket addr was built, ids[0..n), p's tables now. */
void memouse__built(struct memouse *u, uint64_t addr, const uint32_t *ids,
		    uint32_t n, const struct gh_profile *p);

/* The last sample is in: p's mappings' has_functions, the tables cut to
 * what the samples needed, and a built profile's tables and what b learnt
 * kept for the next one. -1 when out of memory. */
int memouse__finish(struct memouse *u, struct gh_profile *p,
		    struct locbuilder *b);

#endif
