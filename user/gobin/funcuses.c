/* funcuses.c - a function's machine code, read as stripped.c reads it for
 * the variables it uses: every instruction decoded from its entry
 * (pclntab gives the bounds), and each load, store, compare or LEA of a
 * global found with its address: on amd64 a RIP-relative operand, on
 * arm64 the address the ADRP (and ADD) just before it formed. On amd64 a
 * byte that does not decode fails the function rather than being skipped
 * (arm64's fixed 32-bit words cannot be misaligned: a word not decoded is
 * just no use). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gobin/funcuses.h"

#define MAX_FUNC_BYTES (1u << 20)

static int decode_x86(const uint8_t *buf, uint64_t entry, uint64_t size,
		      struct code *c, char *why, size_t wsz)
{
	uint64_t off;
	int len;

	for (off = 0; off < size; off += (uint64_t)len) {
		len = x86_decode(buf + off, size - off, &c->v[c->n].x);
		if (len < 0)
			return snprintf(why, wsz,
					"%s: bytes at %#llx are not an "
					"instruction this decoder knows",
					c->name,
					(unsigned long long)(entry + off)),
			       -1;
		c->v[c->n++].pc = entry + off;
	}
	return 0;
}

/* A64: one little-endian 32-bit word per instruction. */
static int decode_a64(const uint8_t *buf, uint64_t entry, uint64_t size,
		      struct code *c, char *why, size_t wsz)
{
	uint64_t off;

	if (size % 4 || entry % 4)
		return snprintf(why, wsz,
				"%s is not a whole number of aligned arm64 "
				"instructions",
				c->name),
		       -1;
	for (off = 0; off < size; off += 4) {
		a64_decode((uint32_t)buf[off] | (uint32_t)buf[off + 1] << 8 |
				   (uint32_t)buf[off + 2] << 16 |
				   (uint32_t)buf[off + 3] << 24,
			   &c->v[c->n].a);
		c->v[c->n++].pc = entry + off;
	}
	return 0;
}

/* Decode the function named name; -1 with why set when it is absent, too
 * large, not in the file, or holds a byte sequence the decoder refuses. */
int code__decode(struct code *c, const struct elffile *e, struct pcln *p,
		 const char *name, char *why, size_t wsz)
{
	uint64_t entry, end;
	uint8_t *buf;

	memset(c, 0, sizeof(*c));
	c->name = name;
	if (pcln__func_by_name(p, name, &entry, &end) < 0)
		return snprintf(why, wsz, "pclntab has no function %s", name),
		       -1;
	if (end <= entry || end - entry > MAX_FUNC_BYTES)
		return snprintf(why, wsz, "%s has an implausible size", name),
		       -1;
	buf = malloc(end - entry);
	c->v = calloc(end - entry, sizeof(*c->v));
	if (!buf || !c->v || elffile__read_vaddr(e, entry, buf, end - entry)) {
		free(buf);
		free(c->v);
		c->v = NULL;
		return snprintf(why, wsz, "cannot read %s's code from the file",
				name),
		       -1;
	}
	c->arm64 = elffile__machine(e) == EM_AARCH64;
	if ((c->arm64 ? decode_a64(buf, entry, end - entry, c, why, wsz)
		      : decode_x86(buf, entry, end - entry, c, why, wsz)) < 0) {
		free(c->v);
		c->v = NULL;
	}
	free(buf);
	return c->v ? 0 : -1;
}

void code__free(struct code *c)
{
	free(c->v);
	c->v = NULL;
}

/* Operand width of x's memory operand: byte forms, else REX.W / 0x66. */
static unsigned width(const struct x86insn *x)
{
	if (x->map == GH_X86_MAP_1 &&
	    (x->op == 0x88 || x->op == 0x8a || x->op == 0xc6 || x->op == 0x80))
		return 1;
	if (x->map == GH_X86_MAP_0F && (x->op == 0xb6 || x->op == 0xb7))
		return x->op == 0xb6 ? 1 : 2;
	if (x->rex & 8)
		return 8;
	return x->opsize ? 2 : 4;
}

static enum use use_of(const struct x86insn *x)
{
	if (!x->rip_rel || x->vex)
		return U_OTHER;
	if (x->map == GH_X86_MAP_0F)
		return x->op == 0xb6 || x->op == 0xb7 ? U_LOAD : U_OTHER;
	if (x->map != GH_X86_MAP_1 || x->rep)
		return U_OTHER;
	switch (x->op) {
	case 0x8a:
	case 0x8b:
		return U_LOAD;
	case 0x88:
	case 0x89:
		return U_STORE_REG;
	case 0xc6:
	case 0xc7:
		return x86_reg(x) == 0 ? U_STORE_IMM : U_OTHER;
	case 0x80:
	case 0x81:
	case 0x83:
		return x86_reg(x) == 7 ? U_CMP_IMM : U_OTHER;
	case 0x8d:
		return U_LEA;
	default:
		return U_OTHER;
	}
}

uint64_t insn__target(const struct insn *i)
{
	return i->pc + i->x.len + (uint64_t)(int64_t)i->x.disp;
}

bool insn__is(const struct insn *i, enum use u, unsigned w)
{
	return use_of(&i->x) == u && width(&i->x) == w;
}

/* The address an ADRP at k into register reg formed: the PC's 4 KiB
 * page plus its offset. */
static bool a64_page(const struct code *c, size_t k, uint8_t reg,
		     uint64_t *addr)
{
	const struct a64insn *a = &c->v[k].a;

	if (a->kind != A64_ADRP || a->rd != reg || reg == A64_ZR)
		return false;
	*addr = (c->v[k].pc & ~(uint64_t)0xfff) + (uint64_t)a->imm;
	return true;
}

/* Where the load or store at k goes when its base was formed just before
 * it, as Go's linker writes a global's address: ADRP Xa; op [Xa, #off]
 * (R_ARM64_PCREL_LDST*), or ADRP Xa; ADD Xb, Xa, #lo; op [Xb, #off]
 * (R_ADDRARM64). *first is the ADRP's index. */
bool code__a64_target(const struct code *c, size_t k, uint64_t *addr,
		      size_t *first)
{
	const struct a64insn *m = &c->v[k].a, *add;
	uint64_t page;

	if (k < 1 || m->rn == A64_ZR)
		return false;
	if (a64_page(c, k - 1, m->rn, &page)) {
		*first = k - 1;
	} else {
		add = &c->v[k - 1].a;
		if (k < 2 || add->kind != A64_ADD_IMM || add->rd != m->rn ||
		    !a64_page(c, k - 2, add->rn, &page))
			return false;
		page += (uint64_t)add->imm;
		*first = k - 2;
	}
	*addr = page + (uint64_t)m->imm;
	return true;
}

static enum use a64_use_of(const struct a64insn *a)
{
	switch (a->kind) {
	case A64_LDR_UIMM:
	case A64_LDAR:
		return U_LOAD;
	case A64_STR_UIMM:
	case A64_STLR:
		return a->rd == A64_ZR ? U_STORE_IMM : U_STORE_REG;
	default:
		return U_OTHER;
	}
}

bool code__use_at(const struct code *c, size_t k, struct access *u)
{
	const struct insn *i = &c->v[k];
	size_t first;

	if (!c->arm64) {
		*u = (struct access){use_of(&i->x), width(&i->x), i->x.imm,
				     insn__target(i)};
		return u->u != U_OTHER;
	}
	*u = (struct access){a64_use_of(&i->a), i->a.size, 0, 0};
	return u->u != U_OTHER && code__a64_target(c, k, &u->addr, &first);
}

/* The target of the first instruction using memory as u with width w
 * (and, for immediates, value imm); -1 when there is none. */
int code__first_use(const struct code *c, enum use u, unsigned w, int64_t imm,
		    uint64_t *addr)
{
	struct access x;
	size_t k;

	for (k = 0; k < c->n; k++) {
		if (!code__use_at(c, k, &x) || x.u != u || x.w != w ||
		    ((u == U_STORE_IMM || u == U_CMP_IMM) && x.imm != imm))
			continue;
		*addr = x.addr;
		return 0;
	}
	return -1;
}
