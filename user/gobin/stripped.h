/* stripped.h - the runtime variables goheap-bpf reads, recovered without a
 * symbol table (-ldflags=-s -w) from the instructions of the functions that
 * use them, which pclntab still names. */
#ifndef GH_STRIPPED_H
#define GH_STRIPPED_H

#include <stdbool.h>
#include <stdint.h>

#include "gobin/elf.h"
#include "gobin/layout.h"
#include "gobin/pclntab.h"

enum gh_svar {
	GH_SVAR_MBUCKETS, /* runtime.mbuckets */
	GH_SVAR_RATE,	  /* runtime.MemProfileRate */
	GH_SVAR_CYCLE,	  /* layout->cycle_sym */
	GH_SVAR_DISABLE,  /* runtime.disableMemoryProfiling */
	GH_SVAR_USEFMA,	  /* math.useFMA */
	GH_SVAR_N,
};

struct gh_svars {
	uint64_t addr[GH_SVAR_N]; /* link-time address, when found */
	bool found[GH_SVAR_N];
	char why[GH_SVAR_N][256]; /* when not found: the reason, one line */
};

/* The symbol name of v in a binary of layout L. */
const char *gh_svar_name(enum gh_svar v, const struct gh_layout *L);

/* Recover every variable; each one is either found or has a reason. An
 * address is only accepted when two independent uses of the variable, or
 * an exact multi-instruction sequence, agree on it. */
void gh_stripped_resolve(const struct gh_elf *e, struct gh_pcln *p,
			 const struct gh_layout *L, struct gh_svars *out);

#endif
