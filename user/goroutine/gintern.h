/* gintern.h - the stacks and label sets of a goroutine snapshot, each
 * kept once. A leak is many goroutines parked at one site: their PC
 * arrays are equal, and so are their labels when they have any, so a
 * snapshot of a million goroutines holds a few thousand stacks, not a
 * million. Entries are never freed one by one: they live as long as the
 * snapshot (gsnap__free frees the store), and a pointer handed out is
 * stable until then, so equal content means an equal pointer. */
#ifndef GH_GOROUTINE_GINTERN_H
#define GH_GOROUTINE_GINTERN_H

#include <stddef.h>
#include <stdint.h>

#include "base/u64map.h"

struct gstk_ent {
	uint64_t *pcs;
	size_t n;
};

struct glab_ent {
	char *labels, *header;
	char **kv;
	size_t nkv;
};

struct gintern {
	struct u64map stk_map, lab_map; /* content hash -> index */
	struct gstk_ent *stk;
	struct glab_ent *lab;
	size_t nstk, capstk, nlab, caplab;
	struct gchunk *chunks; /* the PC arrays' storage */
	size_t bytes;	       /* what the entries hold, for the notes */
};

/* The stored copy of pcs[0, n) (the same pointer for the same
 * content); NULL with errno ENOMEM. */
uint64_t *gintern__pcs(struct gintern *in, const uint64_t *pcs, size_t n);

/* Keep *labels (glabels_read's string, not NULL) and the *header, *kv
 * that came with it, owned from now on: when an equal set is stored
 * already, these are freed and the stored ones put in their place.
 * -1 with errno ENOMEM (then they are freed and set to NULL). */
int gintern__labels(struct gintern *in, char **labels, char **header,
		    char ***kv, size_t *nkv);

void gintern__free(struct gintern *in);

#endif
