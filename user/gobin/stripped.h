/* stripped.h - the runtime variables goheap-bpf reads, recovered without a
 * symbol table (-ldflags=-s -w) from the instructions of the functions that
 * use them, which pclntab still names. */
#ifndef GH_STRIPPED_H
#define GH_STRIPPED_H

#include <stdbool.h>
#include <stdint.h>

#include "gobin/elffile.h"
#include "gobin/layout.h"
#include "gobin/pcln.h"

enum svar {
	GH_SVAR_MBUCKETS, /* runtime.mbuckets */
	GH_SVAR_RATE,	  /* runtime.MemProfileRate */
	GH_SVAR_CYCLE,	  /* layout->cycle_sym */
	GH_SVAR_DISABLE,  /* runtime.disableMemoryProfiling */
	GH_SVAR_USEFMA,	  /* math.useFMA */
	GH_SVAR_ALLGLEN,  /* runtime.allglen (the goroutine profile) */
	GH_SVAR_ALLGPTR,  /* runtime.allgptr */
	GH_SVAR_N,
};

struct svars {
	uint64_t addr[GH_SVAR_N]; /* link-time address, when found */
	bool found[GH_SVAR_N];
	char why[GH_SVAR_N][256]; /* when not found: the reason, one line */
};

/* The symbol name of v in a binary of layout L. */
const char *svar_name(enum svar v, const struct layout *L);

/* Recover every variable; each one is either found or has a reason. An
 * address is only accepted when two independent uses of the variable, or
 * an exact multi-instruction sequence, agree on it. */
void stripped_resolve(const struct elffile *e, struct pcln *p,
		      const struct layout *L, struct svars *out);

#endif
