/* x86insn.c - x86-64 instruction lengths and operands for 64-bit mode,
 * after the Intel SDM opcode maps (volume 2, appendix A), limited to what
 * Go's toolchain emits: legacy prefixes, REX, the one-byte, 0F, 0F38 and
 * 0F3A maps, and VEX. Anything else - EVEX, 3DNow!, opcodes that are
 * invalid in 64-bit mode, a truncated instruction - is refused, so a
 * caller matching instruction patterns never reads one from a misdecode
 * it did not notice. */
#include <string.h>

#include "gobin/x86insn.h"

#define MAX_INSN 15 /* the architectural limit */

/* Operand forms after the opcode. */
enum form {
	F_BAD,	  /* invalid in 64-bit mode, or not decoded here */
	F_NONE,	  /* no ModRM, no immediate */
	F_M,	  /* ModRM */
	F_MI8,	  /* ModRM, imm8 */
	F_MIZ,	  /* ModRM, imm32 (imm16 with 0x66) */
	F_I8,	  /* imm8 */
	F_I16,	  /* imm16 */
	F_IZ,	  /* imm32 (imm16 with 0x66) */
	F_IV,	  /* imm32, imm64 with REX.W, imm16 with 0x66 */
	F_ENTER,  /* imm16, imm8 */
	F_MOFFS,  /* 64-bit absolute address */
	F_GRP3_8, /* F6: ModRM, imm8 when reg is 0 or 1 (TEST) */
	F_GRP3_Z, /* F7: ModRM, immz when reg is 0 or 1 (TEST) */
};

static enum form map1_form(uint8_t op)
{
	if (op < 0x40) {
		switch (op & 7) {
		case 0:
		case 1:
		case 2:
		case 3:
			return F_M;
		case 4:
			return F_I8;
		case 5:
			return F_IZ;
		default:
			return F_BAD; /* push/pop seg, DAA...; 0F and
					 segment prefixes never get here */
		}
	}
	if (op >= 0x50 && op <= 0x5f)
		return F_NONE;
	if (op >= 0x70 && op <= 0x7f)
		return F_I8;
	if (op >= 0x84 && op <= 0x8f)
		return F_M;
	if (op >= 0x90 && op <= 0x99)
		return F_NONE;
	if (op >= 0xb0 && op <= 0xb7)
		return F_I8;
	if (op >= 0xb8 && op <= 0xbf)
		return F_IV;
	if (op >= 0xd8 && op <= 0xdf)
		return F_M; /* x87 */
	switch (op) {
	case 0x63:
		return F_M;
	case 0x68:
		return F_IZ;
	case 0x69:
		return F_MIZ;
	case 0x6a:
		return F_I8;
	case 0x6b:
		return F_MI8;
	case 0x80:
	case 0x83:
	case 0xc0:
	case 0xc1:
	case 0xc6:
		return F_MI8;
	case 0x81:
	case 0xc7:
		return F_MIZ;
	case 0x9b:
	case 0x9c:
	case 0x9d:
	case 0x9e:
	case 0x9f:
		return F_NONE;
	case 0xa0:
	case 0xa1:
	case 0xa2:
	case 0xa3:
		return F_MOFFS;
	case 0xa4:
	case 0xa5:
	case 0xa6:
	case 0xa7:
	case 0xaa:
	case 0xab:
	case 0xac:
	case 0xad:
	case 0xae:
	case 0xaf:
		return F_NONE;
	case 0xa8:
	case 0xcd:
	case 0xe0:
	case 0xe1:
	case 0xe2:
	case 0xe3:
	case 0xe4:
	case 0xe5:
	case 0xe6:
	case 0xe7:
	case 0xeb:
		return F_I8;
	case 0xa9:
	case 0xe8:
	case 0xe9:
		return F_IZ;
	case 0xc2:
	case 0xca:
		return F_I16;
	case 0xc3:
	case 0xc9:
	case 0xcb:
	case 0xcc:
	case 0xcf:
	case 0xd7:
	case 0xec:
	case 0xed:
	case 0xee:
	case 0xef:
	case 0xf1:
	case 0xf4:
	case 0xf5:
	case 0xf8:
	case 0xf9:
	case 0xfa:
	case 0xfb:
	case 0xfc:
	case 0xfd:
		return F_NONE;
	case 0xc8:
		return F_ENTER;
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
	case 0xfe:
	case 0xff:
		return F_M;
	case 0xf6:
		return F_GRP3_8;
	case 0xf7:
		return F_GRP3_Z;
	default:
		return F_BAD;
	}
}

static enum form map0f_form(uint8_t op)
{
	if (op >= 0x80 && op <= 0x8f)
		return F_IZ; /* Jcc rel32 */
	if (op >= 0xc8 && op <= 0xcf)
		return F_NONE; /* BSWAP */
	if ((op >= 0x10 && op <= 0x1f) || (op >= 0x28 && op <= 0x2f) ||
	    (op >= 0x40 && op <= 0x6f) || (op >= 0x74 && op <= 0x76) ||
	    (op >= 0x78 && op <= 0x7f) || (op >= 0x90 && op <= 0x9f) ||
	    (op >= 0xb0 && op <= 0xb9) || (op >= 0xbb && op <= 0xc1) ||
	    op >= 0xd0)
		return F_M;
	if ((op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac ||
	    op == 0xba || op == 0xc2 || (op >= 0xc4 && op <= 0xc6))
		return F_MI8;
	switch (op) {
	case 0x00:
	case 0x01:
	case 0x0d:
	case 0xa3:
	case 0xa5:
	case 0xab:
	case 0xad:
	case 0xae:
	case 0xaf:
	case 0xc3:
	case 0xc7:
		return F_M;
	case 0x05:
	case 0x06:
	case 0x07:
	case 0x0b:
	case 0x30:
	case 0x31:
	case 0x32:
	case 0x33:
	case 0x77:
	case 0xa0:
	case 0xa1:
	case 0xa2:
	case 0xa8:
	case 0xa9:
		return F_NONE;
	default:
		return F_BAD;
	}
}

/* Cursor over the bytes of one instruction. */
struct cur {
	const uint8_t *p;
	size_t n, i;
};

static int take(struct cur *c, uint8_t *b)
{
	if (c->i >= c->n || c->i >= MAX_INSN)
		return -1;
	*b = c->p[c->i++];
	return 0;
}

/* A little-endian signed immediate or displacement of size bytes. */
static int take_signed(struct cur *c, unsigned size, int64_t *v)
{
	uint64_t u = 0;
	unsigned k;
	uint8_t b;

	for (k = 0; k < size; k++) {
		if (take(c, &b) < 0)
			return -1;
		u |= (uint64_t)b << (8 * k);
	}
	if (size < 8 && (u >> (8 * size - 1)) & 1)
		u |= ~0ULL << (8 * size);
	*v = (int64_t)u;
	return 0;
}

/* ModRM, SIB and displacement. */
static int modrm(struct cur *c, struct x86insn *in)
{
	uint8_t mod, rm, sib;
	int64_t d = 0;
	unsigned dsize = 0;

	if (take(c, &in->modrm) < 0)
		return -1;
	in->has_modrm = true;
	mod = in->modrm >> 6;
	rm = in->modrm & 7;
	if (mod == 3)
		return 0;
	if (rm == 4) {
		if (take(c, &sib) < 0)
			return -1;
		if (mod == 0 && (sib & 7) == 5)
			dsize = 4;
	} else if (mod == 0 && rm == 5) {
		in->rip_rel = true;
		dsize = 4;
	}
	if (mod == 1)
		dsize = 1;
	else if (mod == 2)
		dsize = 4;
	if (dsize && take_signed(c, dsize, &d) < 0)
		return -1;
	in->disp = (int32_t)d;
	return 0;
}

static int imm(struct cur *c, struct x86insn *in, unsigned size)
{
	in->imm_size = (uint8_t)size;
	return take_signed(c, size, &in->imm);
}

/* The operands of a decoded opcode in form f. */
static int operands(struct cur *c, struct x86insn *in, enum form f)
{
	unsigned z = in->opsize ? 2 : 4;
	int64_t skip;

	switch (f) {
	case F_BAD:
		return -1;
	case F_NONE:
		return 0;
	case F_M:
		return modrm(c, in);
	case F_MI8:
		return modrm(c, in) < 0 ? -1 : imm(c, in, 1);
	case F_MIZ:
		return modrm(c, in) < 0 ? -1 : imm(c, in, z);
	case F_I8:
		return imm(c, in, 1);
	case F_I16:
		return imm(c, in, 2);
	case F_IZ:
		return imm(c, in, z);
	case F_IV:
		return imm(c, in, (in->rex & 8) ? 8 : z);
	case F_ENTER:
		return imm(c, in, 2) < 0 ? -1 : take_signed(c, 1, &skip);
	case F_MOFFS:
		return imm(c, in, 8);
	case F_GRP3_8:
	case F_GRP3_Z:
		if (modrm(c, in) < 0)
			return -1;
		if (x86_reg(in) > 1)
			return 0;
		return imm(c, in, f == F_GRP3_8 ? 1 : z);
	}
	return -1;
}

/* VEX (C4/C5): map and opcode; every VEX instruction has a ModRM except
 * VZEROUPPER/VZEROALL (0F 77), and takes an imm8 where its legacy form
 * does. */
static int vex(struct cur *c, struct x86insn *in, uint8_t first)
{
	uint8_t b1, b2;
	enum form f;

	if (take(c, &b1) < 0)
		return -1;
	in->vex = true;
	if (first == 0xc5) {
		in->map = GH_X86_MAP_0F;
	} else {
		if ((b1 & 0x1f) < 1 || (b1 & 0x1f) > 3 || take(c, &b2) < 0)
			return -1;
		in->map = (enum x86_map)(b1 & 0x1f);
	}
	if (take(c, &in->op) < 0)
		return -1;
	if (in->map == GH_X86_MAP_0F3A)
		f = F_MI8;
	else if (in->map == GH_X86_MAP_0F38)
		f = F_M;
	else if (in->op == 0x77)
		f = F_NONE;
	else
		f = map0f_form(in->op) == F_MI8 ? F_MI8 : F_M;
	return operands(c, in, f);
}

static bool legacy_prefix(uint8_t b)
{
	return b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 ||
	       b == 0x2e || b == 0x3e || b == 0x26 || b == 0x36 || b == 0x64 ||
	       b == 0x65;
}

int x86_decode(const uint8_t *p, size_t n, struct x86insn *in)
{
	struct cur c = {.p = p, .n = n};
	enum form f;
	uint8_t b;

	memset(in, 0, sizeof(*in));
	if (take(&c, &b) < 0)
		return -1;
	while (legacy_prefix(b)) {
		if (b == 0x66)
			in->opsize = true;
		if (b == 0xf2 || b == 0xf3)
			in->rep = true;
		if (b == 0x67 || take(&c, &b) < 0)
			return -1; /* 32-bit addressing: Go never emits it */
	}
	if (b == 0xc4 || b == 0xc5) {
		if (vex(&c, in, b) < 0)
			return -1;
		in->len = (uint8_t)c.i;
		return in->len;
	}
	if ((b & 0xf0) == 0x40) {
		in->rex = b;
		if (take(&c, &b) < 0)
			return -1;
	}
	if (b == 0x0f) {
		if (take(&c, &b) < 0)
			return -1;
		if (b == 0x38 || b == 0x3a) {
			in->map = b == 0x38 ? GH_X86_MAP_0F38 : GH_X86_MAP_0F3A;
			if (take(&c, &in->op) < 0)
				return -1;
			f = b == 0x38 ? F_M : F_MI8;
		} else {
			in->map = GH_X86_MAP_0F;
			in->op = b;
			f = map0f_form(b);
		}
	} else {
		in->map = GH_X86_MAP_1;
		in->op = b;
		f = map1_form(b);
	}
	if (operands(&c, in, f) < 0)
		return -1;
	in->len = (uint8_t)c.i;
	return in->len;
}
