/* arm64insn.h - a strict decoder for the few A64 instructions through
 * which Go code on arm64 reaches its global variables (ADRP with ADD, or
 * with a load or store of an unsigned offset; load-acquire and
 * store-release) and the handful that runtime's "if
 * disableMemoryProfiling { MemProfileRate = 0 }" compiles to. Every fixed
 * bit of each encoding is checked, after the Arm ARM (DDI 0487, C4.1);
 * every other word is A64_OTHER, which no caller matches (user/gobin/
 * stripped.c walks functions with it). A64 instructions are all one
 * aligned 32-bit word, so a word not decoded cannot shift the decoding
 * of the next one. */
#ifndef GH_ARM64INSN_H
#define GH_ARM64INSN_H

#include <stdbool.h>
#include <stdint.h>

/* Register 31: XZR/WZR as a data register, SP as ADD's or a base. */
#define A64_ZR 31

enum a64_kind {
	A64_OTHER,
	A64_ADRP,     /* ADRP Xd, label: imm = page offset from the PC's page */
	A64_ADD_IMM,  /* ADD Xd, Xn, #imm (64-bit, no flags; imm shifted) */
	A64_LDR_UIMM, /* LDR{B,H,W,X} Rt, [Xn, #imm] (zero-extending) */
	A64_STR_UIMM, /* STR{B,H,W,X} Rt, [Xn, #imm] */
	A64_LDAR,     /* LDAR{B,H,W,X} Rt, [Xn] */
	A64_STLR,     /* STLR{B,H,W,X} Rt, [Xn] */
	A64_TBZ,      /* TBZ Rt, #bit, label: imm = branch offset */
	A64_TBNZ,     /* TBNZ Rt, #bit, label */
	A64_LOGIC_IMM, /* AND/ORR/EOR/ANDS Rd, Rn, #bitmask: op, imm */
	A64_CSEL,      /* CSEL Rd, Rn, Rm, cond */
};

/* The operations of A64_LOGIC_IMM (its opc field). */
enum a64_logic { A64_AND, A64_ORR, A64_EOR, A64_ANDS };

struct a64insn {
	enum a64_kind kind;
	uint8_t rd;	   /* destination, or Rt of a load or store, or TB*'s */
	uint8_t rn;	   /* first source, or the base register */
	uint8_t rm;	   /* CSEL's second source */
	uint8_t size;	   /* bytes a load or store accesses */
	bool sf;	   /* 64-bit operation (ADD, logical, CSEL) */
	uint8_t bit;	   /* TBZ/TBNZ's bit number */
	uint8_t cond;	   /* CSEL's condition (0 EQ, 1 NE, ...) */
	enum a64_logic op; /* A64_LOGIC_IMM's operation */
	int64_t imm;	   /* offset or immediate as described per kind */
};

/* Decode the instruction word w (already in host order); in->kind is
 * A64_OTHER for any word this decoder does not take apart, reserved
 * encodings of the kinds above included. */
void a64_decode(uint32_t w, struct a64insn *in);

#endif
