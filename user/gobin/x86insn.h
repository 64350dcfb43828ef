/* x86insn.h - a strict x86-64 instruction decoder for the code the Go
 * compiler and assembler emit: it finds each instruction's length, opcode,
 * ModRM, RIP-relative displacement and immediate, and refuses what it does
 * not know rather than guess (user/stripped.c walks functions with it). */
#ifndef GH_X86INSN_H
#define GH_X86INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum x86_map {
	GH_X86_MAP_1 = 0,    /* one-byte opcodes */
	GH_X86_MAP_0F = 1,   /* 0F xx */
	GH_X86_MAP_0F38 = 2, /* 0F 38 xx */
	GH_X86_MAP_0F3A = 3, /* 0F 3A xx */
};

struct x86insn {
	uint8_t len;
	enum x86_map map;
	uint8_t op;
	uint8_t rex; /* 0 when absent */
	bool opsize; /* 0x66 prefix */
	bool rep;    /* 0xF2 or 0xF3 prefix */
	bool vex;    /* VEX-encoded */
	bool has_modrm;
	uint8_t modrm;
	bool rip_rel;	  /* memory operand is [rip + disp] */
	int32_t disp;	  /* displacement (rip_rel: from the next insn) */
	int64_t imm;	  /* first immediate, sign-extended */
	uint8_t imm_size; /* bytes of immediate (0 when none) */
};

/* Decode the instruction at p (n bytes available). Returns its length, or
 * -1 when the bytes are truncated or not an instruction this decoder
 * knows (EVEX, 3DNow!, opcodes invalid in 64-bit mode, ...). */
int x86_decode(const uint8_t *p, size_t n, struct x86insn *in);

/* ModRM fields. */
static inline uint8_t x86_reg(const struct x86insn *in)
{
	return (in->modrm >> 3) & 7;
}

#endif
