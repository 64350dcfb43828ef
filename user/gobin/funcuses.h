/* funcuses.h - a function's instructions, decoded from its entry to its
 * end, and the globals they load, store, compare or take the address of
 * (stripped.c's reading of the runtime's code). */
#ifndef GH_FUNCUSES_H
#define GH_FUNCUSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gobin/arm64insn.h"
#include "gobin/elffile.h"
#include "gobin/pcln.h"
#include "gobin/x86insn.h"

/* What a RIP-relative instruction does with its memory operand. */
enum use { U_LOAD, U_STORE_REG, U_STORE_IMM, U_CMP_IMM, U_LEA, U_OTHER };

struct insn {
	uint64_t pc;
	union {
		struct x86insn x;
		struct a64insn a;
	};
};

/* A function's instructions, decoded from entry to end. */
struct code {
	const char *name;
	bool arm64;
	struct insn *v;
	size_t n;
};

/* One instruction's use of a variable in memory. */
struct access {
	enum use u;
	unsigned w;  /* bytes */
	int64_t imm; /* the immediate stored or compared (arm64: XZR's 0) */
	uint64_t addr;
};

/* Decode the function named name into c; -1 with why set when it is
 * absent, too large, not in the file, or holds a byte sequence the
 * decoder refuses. */
int code__decode(struct code *c, const struct elffile *e, struct pcln *p,
		 const char *name, char *why, size_t wsz);
void code__free(struct code *c);

/* The use of a global by instruction k, if it has one. */
bool code__use_at(const struct code *c, size_t k, struct access *u);

/* The target of the first instruction using memory as u with width w
 * (and, for immediates, value imm); -1 when there is none. */
int code__first_use(const struct code *c, enum use u, unsigned w, int64_t imm,
		    uint64_t *addr);

/* amd64: does i use memory as u with width w; the RIP-relative target. */
bool insn__is(const struct insn *i, enum use u, unsigned w);
uint64_t insn__target(const struct insn *i);

/* arm64: where the load or store at k goes when its base was formed just
 * before it (ADRP, and ADD); *first is the ADRP's index. */
bool code__a64_target(const struct code *c, size_t k, uint64_t *addr,
		      size_t *first);

#endif
