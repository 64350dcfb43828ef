/* arm64insn.c - the A64 encodings of arm64insn.h, field by field after the
 * Arm ARM (DDI 0487): "PC-rel. addressing" (ADRP), "Add/subtract
 * (immediate)", "Load/store register (unsigned immediate)", "Load/store
 * ordered" (LDAR, STLR), "Test and branch (immediate)", "Logical
 * (immediate)" with DecodeBitMasks, and "Conditional select". */
#include <string.h>

#include "gobin/arm64insn.h"

/* Bits hi..lo of w. */
static uint32_t bits(uint32_t w, unsigned hi, unsigned lo)
{
	return (w >> lo) & ((1u << (hi - lo + 1)) - 1);
}

/* The low n bits of v as a signed number. */
static int64_t sext(uint64_t v, unsigned n)
{
	uint64_t sign = 1ULL << (n - 1);

	return (int64_t)((v ^ sign) - sign);
}

/* ADRP: 1 immlo(2) 10000 immhi(19) Rd; the offset is immhi:immlo pages. */
static bool adrp(uint32_t w, struct a64insn *in)
{
	if ((w & 0x9f000000u) != 0x90000000u)
		return false;
	in->kind = A64_ADRP;
	in->rd = (uint8_t)bits(w, 4, 0);
	in->imm = sext((uint64_t)(bits(w, 23, 5) << 2 | bits(w, 30, 29)), 21) *
		  4096;
	return true;
}

/* ADD (immediate), 64-bit: 1 0 0 100010 sh imm12 Rn Rd. */
static bool add_imm(uint32_t w, struct a64insn *in)
{
	if ((w & 0xff800000u) != 0x91000000u)
		return false;
	in->kind = A64_ADD_IMM;
	in->sf = true;
	in->rd = (uint8_t)bits(w, 4, 0);
	in->rn = (uint8_t)bits(w, 9, 5);
	in->imm = (int64_t)bits(w, 21, 10) << (bits(w, 22, 22) ? 12 : 0);
	return true;
}

/* LDR/STR (unsigned immediate), general registers: size 111 0 01 opc
 * imm12 Rn Rt, opc 00 a store, 01 a zero-extending load (10, 11: the
 * sign-extending loads and PRFM, not taken apart). */
static bool ldst_uimm(uint32_t w, struct a64insn *in)
{
	uint32_t opc = bits(w, 23, 22), size = bits(w, 31, 30);

	if ((w & 0x3f000000u) != 0x39000000u || opc > 1)
		return false;
	in->kind = opc ? A64_LDR_UIMM : A64_STR_UIMM;
	in->size = (uint8_t)(1u << size);
	in->rd = (uint8_t)bits(w, 4, 0);
	in->rn = (uint8_t)bits(w, 9, 5);
	in->imm = (int64_t)bits(w, 21, 10) << size;
	return true;
}

/* LDAR/STLR: size 001000 1 L 0 Rs=11111 o0=1 Rt2=11111 Rn Rt. */
static bool ordered(uint32_t w, struct a64insn *in)
{
	uint32_t v = w & 0x3fbffc00u;

	if (v != 0x089ffc00u)
		return false;
	in->kind = bits(w, 22, 22) ? A64_LDAR : A64_STLR;
	in->size = (uint8_t)(1u << bits(w, 31, 30));
	in->rd = (uint8_t)bits(w, 4, 0);
	in->rn = (uint8_t)bits(w, 9, 5);
	return true;
}

/* TBZ/TBNZ: b5 011011 op b40(5) imm14 Rt. */
static bool tbz(uint32_t w, struct a64insn *in)
{
	if ((w & 0x7e000000u) != 0x36000000u)
		return false;
	in->kind = bits(w, 24, 24) ? A64_TBNZ : A64_TBZ;
	in->rd = (uint8_t)bits(w, 4, 0);
	in->bit = (uint8_t)(bits(w, 31, 31) << 5 | bits(w, 23, 19));
	in->imm = sext(bits(w, 18, 5), 14) * 4;
	return true;
}

static uint64_t ones(unsigned n)
{
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

/* DecodeBitMasks(N, imms, immr) for a logical immediate of 32 or 64 bits;
 * -1 for the reserved encodings. */
static int bitmask(bool sf, uint32_t n, uint32_t immr, uint32_t imms,
		   uint64_t *out)
{
	uint32_t x = n << 6 | (~imms & 0x3f), s, r, esize, len = 0;
	uint64_t elem;

	if (!x || (!sf && n))
		return -1;
	while (x >> (len + 1))
		len++;
	if (len < 1)
		return -1;
	esize = 1u << len;
	s = imms & (esize - 1);
	r = immr & (esize - 1);
	if (s == esize - 1)
		return -1;
	elem = ones(s + 1);
	if (r)
		elem = (elem >> r | elem << (esize - r)) & ones(esize);
	for (; esize < 64; esize *= 2)
		elem |= elem << esize;
	*out = sf ? elem : elem & 0xffffffffu;
	return 0;
}

/* Logical (immediate): sf opc 100100 N immr imms Rn Rd. */
static bool logic_imm(uint32_t w, struct a64insn *in)
{
	uint64_t v;

	if ((w & 0x1f800000u) != 0x12000000u ||
	    bitmask(bits(w, 31, 31), bits(w, 22, 22), bits(w, 21, 16),
		    bits(w, 15, 10), &v) < 0)
		return false;
	in->kind = A64_LOGIC_IMM;
	in->sf = bits(w, 31, 31);
	in->op = (enum a64_logic)bits(w, 30, 29);
	in->rd = (uint8_t)bits(w, 4, 0);
	in->rn = (uint8_t)bits(w, 9, 5);
	in->imm = (int64_t)v;
	return true;
}

/* CSEL: sf 0 0 11010100 Rm cond 00 Rn Rd. */
static bool csel(uint32_t w, struct a64insn *in)
{
	if ((w & 0x7fe00c00u) != 0x1a800000u)
		return false;
	in->kind = A64_CSEL;
	in->sf = bits(w, 31, 31);
	in->rd = (uint8_t)bits(w, 4, 0);
	in->rn = (uint8_t)bits(w, 9, 5);
	in->rm = (uint8_t)bits(w, 20, 16);
	in->cond = (uint8_t)bits(w, 15, 12);
	return true;
}

void a64_decode(uint32_t w, struct a64insn *in)
{
	memset(in, 0, sizeof(*in)); /* A64_OTHER unless one below takes it */
	(void)(adrp(w, in) || add_imm(w, in) || ldst_uimm(w, in) ||
	       ordered(w, in) || tbz(w, in) || logic_imm(w, in) || csel(w, in));
}
