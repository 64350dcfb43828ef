/* locations.h - runtime/pprof's profileBuilder location logic
 * (appendLocsForStack, pcDeck, emitLocation in runtime/pprof/proto.go):
 * turns a stack of return PCs into location ids, merging inlined frames
 * into one location and caching locations by their first PC, exactly as
 * the target's own runtime/pprof would. Results depend on the order of the
 * stacks, so feed every bucket in allnext order. */
#ifndef GH_LOCATIONS_H
#define GH_LOCATIONS_H

#include "gobin/layout.h"
#include "gobin/symcache.h"

/* What the builder knows of one PC in this profile: proto.go's b.locs
 * entry (the location it starts) and, cached so that a warm profile never
 * asks the symbol cache, hideRuntime's and expandFinalInlineFrame's
 * answers for it. */
struct pcloc {
	uint64_t pc;
	uint32_t loc;  /* 1 + the location whose first PC this is, 0 none */
	uint16_t npcs; /* PCs that location stands for */
	uint8_t flags; /* PCLOC_* in locations.c */
	uint8_t pad;
};

struct deck_frame {
	uint64_t pc; /* the return PC that gave this frame */
	struct pcframe f;
};

/* What a builder learnt about p's locations and functions: enough, with
 * those tables, to go on building where it stopped (locmemo.h keeps it
 * between profiles of one process). */
struct locstate {
	/* open addressing by PC; pc 0 lives in pc0 (0 marks empty slots) */
	struct pcloc *pcs, pc0;
	size_t pcs_n, pcs_cap;
	struct u64map funcs; /* name hash -> function index */
	uint8_t *result;     /* per location: lookup tried/failed bits */
	size_t result_cap;
};

struct locbuilder {
	struct gh_profile *p; /* locations, functions, mappings grow here */
	struct symcache *sc;
	struct pcln *pcln;
	const struct layout *layout;
	uint64_t bias;		  /* runtime = link-time + bias */
	size_t loc_cap, func_cap; /* of p->locations, p->functions */
	struct locstate st;
	bool fake_mapping; /* no mapping: everything maps to #1 */
	/* the deck: PCs whose frames form the location being built */
	struct deck_frame *deck;
	size_t ndeck;
	uint8_t deck_result;
	/* scratch: the expanded stack and the location ids of one sample */
	uint64_t *stk;
	uint32_t *out;
	size_t nout, scratch_cap;
};

/* p->mappings must be set already (the builder records which mappings
 * symbolized). */
int locbuilder__init(struct locbuilder *b, struct gh_profile *p,
		     struct symcache *sc, struct pcln *pcln,
		     const struct layout *layout, uint64_t bias);
void locbuilder__free(struct locbuilder *b);

/* Location ids (indexes into p->locations) for link-time stack stk[0..n),
 * leaf first, in b->out[0..b->nout). -1 on allocation failure. */
int locbuilder__append(struct locbuilder *b, const uint64_t *stk, size_t n);

/* protomem.go's stack of a sample: with hide, leading runtime frames
 * hidden, all of them kept if that leaves no location. The ids in
 * b->out[0..b->nout); -1 on allocation failure. */
int locbuilder__sample(struct locbuilder *b, const uint64_t *stk, size_t n,
		       bool hide);

/* Set each mapping's has_functions, as profileBuilder.build does: -1 when
 * out of memory. */
int locbuilder__finish(struct locbuilder *b);

/* The same for p's locations, result[i] being location i's lookup bits
 * (struct locstate's). */
int locations__has_functions(struct gh_profile *p, const uint8_t *result);

/* Move what b learnt into st (b forgets it, st must be empty). */
void locbuilder__take(struct locbuilder *b, struct locstate *st);

/* Go on from st, learnt building the tables b->p now holds (loc_cap,
 * func_cap: their arrays' sizes): st is moved into b. */
void locbuilder__resume(struct locbuilder *b, struct locstate *st,
			size_t loc_cap, size_t func_cap);

void locstate__free(struct locstate *st);

#endif
