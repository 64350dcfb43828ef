/* fuzz_arm64.c - the A64 decoder (user/gobin/arm64insn.c): the input is
 * code, decoded one little-endian 32-bit word after another as
 * stripped.c walks an arm64 function. A decoded field out of its
 * encoding's range (a register above 31, an access size other than 1, 2,
 * 4 or 8, a branch offset not a multiple of 4 or beyond TBZ's +-32 KiB, a
 * page offset beyond ADRP's +-4 GiB, a zero bitmask immediate) is a bug,
 * and aborts. */
#include <stdlib.h>

#include "fuzz.h"

#include "gobin/arm64insn.h"

static bool is_access(enum a64_kind k)
{
	return k == A64_LDR_UIMM || k == A64_STR_UIMM || k == A64_LDAR ||
	       k == A64_STLR;
}

static void check(const struct a64insn *a)
{
	if (a->rd > 31 || a->rn > 31 || a->rm > 31 || a->cond > 15)
		abort();
	if (is_access(a->kind) && a->size != 1 && a->size != 2 &&
	    a->size != 4 && a->size != 8)
		abort();
	if ((a->kind == A64_TBZ || a->kind == A64_TBNZ) &&
	    (a->imm % 4 || a->imm < -32768 || a->imm >= 32768 || a->bit > 63))
		abort();
	if (a->kind == A64_ADRP &&
	    (a->imm % 4096 || a->imm < -(1LL << 32) || a->imm >= 1LL << 32))
		abort();
	if (a->kind == A64_LOGIC_IMM &&
	    (!a->imm || (!a->sf && (uint64_t)a->imm >> 32)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct a64insn a;
	size_t off;

	for (off = 0; off + 4 <= size; off += 4) {
		a64_decode((uint32_t)data[off] | (uint32_t)data[off + 1] << 8 |
				   (uint32_t)data[off + 2] << 16 |
				   (uint32_t)data[off + 3] << 24,
			   &a);
		check(&a);
	}
	return 0;
}
