/* locmemo.h - the locations of a process's heap profiles, kept from one
 * to the next: each sample's location ids, the location and function
 * tables, and what the builder learnt (locations.h's struct locstate).
 * A bucket never changes its stack, so a later profile takes a known
 * bucket's ids as they are, and builds only the buckets new since (Go
 * prepends them to allnext) on the same tables, which only grow: IDs
 * stay stable for the process's lifetime. runtime/pprof would number a
 * profile's locations in the order of its own buckets instead; the
 * samples come out the same, location for location. */
#ifndef GH_LOCMEMO_H
#define GH_LOCMEMO_H

#include "profile/locations.h"

/* The samples of one profile, in allnext order: each one's bucket, and
 * its location ids at ids[off[i]..off[i + 1]). */
struct memosamples {
	uint64_t *addr;
	uint32_t *off;
	size_t n, addr_cap, off_cap;
	uint32_t *ids;
	size_t nids, ids_cap;
};

struct locmemo {
	/* A profile of the process was built: the next one records. A
	 * process read once (a sweep's) never pays for the memo. */
	bool primed;
	bool valid; /* holds a profile's build (lent while one follows it) */
	/* the mappings the locations point into */
	struct gh_mapping *maps;
	size_t nmaps;
	/* the tables, and what the builder learnt building them */
	struct gh_location *locs;
	size_t nlocs, loc_cap;
	struct gh_function *funcs;
	size_t nfuncs, func_cap;
	struct locstate st;
	/* the last profile's samples; the next one's, as it is built */
	struct memosamples s, next;
};

void locmemo__clear(struct locmemo *m);
/* Bytes it holds. */
size_t locmemo__bytes(const struct locmemo *m);

/* How one profile's locations come: built (no memo, or a process read
 * once); taken from the memo where its buckets are the memo's, the others
 * built on its tables; built afresh and recorded. */
enum memo_mode { MEMO_OFF, MEMO_FOLLOW, MEMO_RECORD };

/* One profile's use of a memo (m: NULL for none). */
struct memouse {
	struct locmemo *m;
	enum memo_mode mode;
	size_t next;	 /* the memo's sample the next bucket may be */
	bool staged;	 /* m->next holds this profile's samples so far */
	bool stage_fail; /* out of memory staging: the memo is dropped */
};

/* Profile p starts (its mappings made, no location yet), built by b:
 * with a memo that fits p's mappings, p and b take its tables and state
 * (lent until memouse__finish or memouse__drop). */
void memouse__start(struct memouse *u, struct gh_profile *p,
		    struct locbuilder *b);

/* The next sample, of bucket addr: 1 and the memo's ids in *ids[0..*n);
 * 0 when b must build them (then memouse__built). */
int memouse__take(struct memouse *u, uint64_t addr, uint32_t **ids,
		  uint32_t *n);

/* The sample of bucket addr was built: ids[0..n). */
void memouse__built(struct memouse *u, uint64_t addr, const uint32_t *ids,
		    uint32_t n);

/* The last sample is in: p's mappings' has_functions, and p's tables
 * (copied), b's state and the samples kept for the next profile. -1 when
 * out of memory. */
int memouse__finish(struct memouse *u, struct gh_profile *p,
		    struct locbuilder *b);

/* p is dropped unfinished (a restart, an error): what it was lent goes
 * back, grown by what it built (p: NULL when there is none). */
void memouse__drop(struct memouse *u, struct gh_profile *p,
		   struct locbuilder *b);

#endif
