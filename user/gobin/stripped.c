/* stripped.c - find runtime.mbuckets, runtime.MemProfileRate, the profile
 * cycle, runtime.disableMemoryProfiling and math.useFMA in a binary built
 * with -ldflags=-s -w, whose .symtab is gone but whose pclntab still names
 * every function. Each variable is read off the instructions of functions
 * that use it (runtime/mprof.go, runtime/proc.go, math/exp_asm.go of the
 * binary's release). A "use" is an instruction that loads or stores the
 * variable: on amd64 through a RIP-relative operand, on arm64 through the
 * address the ADRP (and ADD) just before it formed.
 *
 *   mbuckets        first 64-bit load in mProf_FlushLocked, and in
 *                   MemProfile (memProfileInternal from 1.23)
 *   cycle           first 32-bit load in mProf_Flush (mProf_FlushLocked
 *                   in 1.18, where it is mProf.cycle), and in mProf_Free
 *   MemProfileRate, 1.20+: schedinit's "if disableMemoryProfiling
 *   disable...      { MemProfileRate = 0 }" as exactly, on amd64, CMPB
 *                   $0, D; JE over; MOVQ $0, R and on arm64 LDRB Wt, D;
 *                   TBZ Wt, #0, over; STR XZR, R. 1.18-1.19: runtime.init's
 *                   MOVZX D; TESTQ; MOVL $0x80000; MOVL $0; CMOVNE;
 *                   MOVQ R (arm64: LDRB Wt, D; TST Wt, #1; MOV Xd,
 *                   #0x80000; CSEL Xd, Xd, XZR, EQ; STR Xd, R). R must
 *                   also be allocmcache's first 64-bit load.
 *   useFMA          amd64 only: math.archExp's first CMPB $1 (its FMA
 *                   branch), and math.init's first byte store
 *
 * Every instruction of each function is decoded from its entry (pclntab
 * gives the bounds), so "first" means first in instruction order; on
 * amd64 a byte that does not decode fails the function rather than being
 * skipped (arm64's fixed 32-bit words cannot be misaligned: a word not
 * decoded is just no use). Each address must also lie in a Go data
 * section. Anything else - a pattern that does not match, two uses that
 * disagree - leaves the variable unfound with the reason. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gobin/arm64insn.h"
#include "gobin/stripped.h"
#include "gobin/x86insn.h"

#define MAX_FUNC_BYTES (1u << 20)
#define DEFAULT_RATE   (512 * 1024) /* runtime.MemProfileRate's initial value */

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

const char *svar_name(enum svar v, const struct layout *L)
{
	switch (v) {
	case GH_SVAR_MBUCKETS:
		return "runtime.mbuckets";
	case GH_SVAR_RATE:
		return "runtime.MemProfileRate";
	case GH_SVAR_CYCLE:
		return L->cycle_sym;
	case GH_SVAR_DISABLE:
		return "runtime.disableMemoryProfiling";
	case GH_SVAR_USEFMA:
		return "math.useFMA";
	default:
		return "?";
	}
}

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
static int decode_func(const struct elffile *e, struct pcln *p,
		       const char *name, struct code *c, char *why, size_t wsz)
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

static void free_code(struct code *c)
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

static uint64_t target(const struct insn *i)
{
	return i->pc + i->x.len + (uint64_t)(int64_t)i->x.disp;
}

static bool is(const struct insn *i, enum use u, unsigned w)
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
static bool a64_target(const struct code *c, size_t k, uint64_t *addr,
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

/* One instruction's use of a variable in memory. */
struct access {
	enum use u;
	unsigned w;  /* bytes */
	int64_t imm; /* the immediate stored or compared (arm64: XZR's 0) */
	uint64_t addr;
};

static bool use_at(const struct code *c, size_t k, struct access *u)
{
	const struct insn *i = &c->v[k];
	size_t first;

	if (!c->arm64) {
		*u = (struct access){use_of(&i->x), width(&i->x), i->x.imm,
				     target(i)};
		return u->u != U_OTHER;
	}
	*u = (struct access){a64_use_of(&i->a), i->a.size, 0, 0};
	return u->u != U_OTHER && a64_target(c, k, &u->addr, &first);
}

/* The target of the first instruction using memory as u with width w
 * (and, for immediates, value imm); -1 when there is none. */
static int first_use(const struct code *c, enum use u, unsigned w, int64_t imm,
		     uint64_t *addr)
{
	struct access x;
	size_t k;

	for (k = 0; k < c->n; k++) {
		if (!use_at(c, k, &x) || x.u != u || x.w != w ||
		    ((u == U_STORE_IMM || u == U_CMP_IMM) && x.imm != imm))
			continue;
		*addr = x.addr;
		return 0;
	}
	return -1;
}

/* Is [addr, addr+size) inside one of the Go data sections? */
static bool in_data(const struct elffile *e, uint64_t addr, unsigned size)
{
	static const char *const sects[] = {".noptrdata", ".data", ".bss",
					    ".noptrbss"};
	struct elffile_sect s;
	size_t k;

	for (k = 0; k < sizeof(sects) / sizeof(sects[0]); k++)
		if (elffile__section(e, sects[k], &s) == 0 && addr >= s.addr &&
		    addr - s.addr < s.size && size <= s.size - (addr - s.addr))
			return true;
	return false;
}

struct ctx {
	const struct elffile *e;
	struct pcln *p;
	const struct layout *L;
	struct svars *out;
};

static void fail(struct ctx *c, enum svar v, const char *fmt, const char *a,
		 const char *b)
{
	c->out->found[v] = false;
	snprintf(c->out->why[v], sizeof(c->out->why[v]), fmt, a, b);
}

static void accept(struct ctx *c, enum svar v, uint64_t addr, unsigned size)
{
	if (!in_data(c->e, addr, size)) {
		snprintf(c->out->why[v], sizeof(c->out->why[v]),
			 "the address %#llx found for %s is not in a Go data "
			 "section",
			 (unsigned long long)addr, svar_name(v, c->L));
		return;
	}
	c->out->addr[v] = addr;
	c->out->found[v] = true;
}

/* v is the first (u, w, imm) use in both fa and fb: find it in each and
 * accept it when they agree. */
static void two_uses(struct ctx *c, enum svar v, const char *fa, const char *fb,
		     enum use u, unsigned w, int64_t imm, enum use ub,
		     unsigned wb)
{
	char *why = c->out->why[v];
	size_t wsz = sizeof(c->out->why[v]);
	struct code ca, cb;
	uint64_t a, b;

	if (decode_func(c->e, c->p, fa, &ca, why, wsz) < 0)
		return;
	if (decode_func(c->e, c->p, fb, &cb, why, wsz) < 0) {
		free_code(&ca);
		return;
	}
	if (first_use(&ca, u, w, imm, &a) < 0)
		fail(c, v, "%s: no instruction of the expected form uses %s",
		     fa, svar_name(v, c->L));
	else if (first_use(&cb, ub, wb, 0, &b) < 0)
		fail(c, v, "%s: no instruction of the expected form uses %s",
		     fb, svar_name(v, c->L));
	else if (a != b)
		fail(c, v, "%s and %s disagree on the variable's address", fa,
		     fb);
	else
		accept(c, v, a, w);
	free_code(&ca);
	free_code(&cb);
}

static bool has_reg_imm(const struct insn *i, int64_t imm)
{
	return i->x.map == GH_X86_MAP_1 && (i->x.op & 0xf8) == 0xb8 &&
	       !(i->x.rex & 8) && !i->x.opsize && i->x.imm == imm;
}

/* The only place in c (amd64) where disableMemoryProfiling zeroes
 * MemProfileRate; *d and *r are their addresses. -1 when there is no such
 * place or more than one. */
static int rate_sequence_x86(const struct code *c, int minor, uint64_t *d,
			     uint64_t *r)
{
	const struct insn *v = c->v;
	size_t k, hits = 0;

	for (k = 0; k + 5 < c->n; k++) {
		if (minor >= 20) {
			/* CMPB $0, D; JE rel8 (over the store); MOVQ $0, R */
			if (!is(&v[k], U_CMP_IMM, 1) || v[k].x.imm != 0 ||
			    v[k + 1].x.map != GH_X86_MAP_1 ||
			    v[k + 1].x.op != 0x74 ||
			    v[k + 2].pc + v[k + 2].x.len !=
				    v[k + 1].pc + v[k + 1].x.len +
					    (uint64_t)v[k + 1].x.imm ||
			    !is(&v[k + 2], U_STORE_IMM, 8) ||
			    v[k + 2].x.imm != 0)
				continue;
			*r = target(&v[k + 2]);
		} else {
			/* MOVZX D, a; TESTQ a, a; MOVL $0x80000, b; MOVL $0,
			 * c; CMOVNE c, b; MOVQ b, R */
			if (!is(&v[k], U_LOAD, 1) || v[k + 1].x.op != 0x85 ||
			    v[k + 1].x.map != GH_X86_MAP_1 ||
			    !has_reg_imm(&v[k + 2], DEFAULT_RATE) ||
			    !has_reg_imm(&v[k + 3], 0) ||
			    v[k + 4].x.map != GH_X86_MAP_0F ||
			    v[k + 4].x.op != 0x45 ||
			    !is(&v[k + 5], U_STORE_REG, 8))
				continue;
			*r = target(&v[k + 5]);
		}
		*d = target(&v[k]);
		hits++;
	}
	return hits == 1 ? 0 : -1;
}

#define A64_COND_EQ 0

static bool a64_logic(const struct a64insn *a, enum a64_logic op, bool sf,
		      uint8_t rd, uint8_t rn, int64_t imm)
{
	return a->kind == A64_LOGIC_IMM && a->op == op && a->sf == sf &&
	       a->rd == rd && a->rn == rn && a->imm == imm;
}

/* A 64-bit STR of register rt at j whose address the instructions from
 * index from formed (and nothing else in between); *r its address. */
static bool a64_store_at(const struct code *c, size_t j, size_t from,
			 uint8_t rt, uint64_t *r)
{
	const struct a64insn *a = &c->v[j].a;
	size_t first;

	return j < c->n && a->kind == A64_STR_UIMM && a->size == 8 &&
	       a->rd == rt && a64_target(c, j, r, &first) && first == from;
}

/* 1.20+, after LDRB Wt, D at k: TBZ Wt, #0, over; ADRP (ADD); STR XZR, R;
 * over: - the index of that STR, or 0. */
static size_t a64_tbz_store(const struct code *c, size_t k, uint64_t *r)
{
	const struct a64insn *t = &c->v[k + 1].a;
	size_t j;

	if (t->kind != A64_TBZ || t->rd != c->v[k].a.rd || t->bit != 0)
		return 0;
	for (j = k + 3; j <= k + 4; j++)
		if (a64_store_at(c, j, k + 2, A64_ZR, r) &&
		    c->v[k + 1].pc + (uint64_t)t->imm == c->v[j].pc + 4)
			return j;
	return 0;
}

/* 1.18-1.19, after LDRB Wt, D at k: TST Wt, #1; MOV Xd, #0x80000 (ORR Xd,
 * XZR); CSEL Xd, Xd, XZR, EQ; ADRP (ADD); STR Xd, R - the index of that
 * STR, or 0. */
static size_t a64_csel_store(const struct code *c, size_t k, uint64_t *r)
{
	const struct a64insn *tst = &c->v[k + 1].a, *mov = &c->v[k + 2].a,
			     *sel = &c->v[k + 3].a;
	size_t j;

	if (!a64_logic(tst, A64_ANDS, false, A64_ZR, c->v[k].a.rd, 1) ||
	    mov->rd == A64_ZR ||
	    !a64_logic(mov, A64_ORR, true, mov->rd, A64_ZR, DEFAULT_RATE) ||
	    sel->kind != A64_CSEL || !sel->sf || sel->rd != mov->rd ||
	    sel->rn != mov->rd || sel->rm != A64_ZR || sel->cond != A64_COND_EQ)
		return 0;
	for (j = k + 5; j <= k + 6; j++)
		if (a64_store_at(c, j, k + 4, mov->rd, r))
			return j;
	return 0;
}

/* rate_sequence_x86 for arm64. */
static int rate_sequence_a64(const struct code *c, int minor, uint64_t *d,
			     uint64_t *r)
{
	size_t k, first, hits = 0;
	uint64_t dk, rk;

	for (k = 0; k + 4 < c->n; k++) {
		if (c->v[k].a.kind != A64_LDR_UIMM || c->v[k].a.size != 1 ||
		    !a64_target(c, k, &dk, &first) ||
		    !(minor >= 20 ? a64_tbz_store(c, k, &rk)
				  : a64_csel_store(c, k, &rk)))
			continue;
		*d = dk;
		*r = rk;
		hits++;
	}
	return hits == 1 ? 0 : -1;
}

static void rate_and_disable(struct ctx *c)
{
	const char *fn =
		c->L->minor >= 20 ? "runtime.schedinit" : "runtime.init";
	char *why = c->out->why[GH_SVAR_RATE];
	size_t wsz = sizeof(c->out->why[GH_SVAR_RATE]);
	struct code seq, alloc;
	uint64_t d, r, r2;

	if (decode_func(c->e, c->p, fn, &seq, why, wsz) < 0) {
		strcpy(c->out->why[GH_SVAR_DISABLE], why);
		return;
	}
	if ((seq.arm64 ? rate_sequence_a64
		       : rate_sequence_x86)(&seq, c->L->minor, &d, &r) < 0) {
		fail(c, GH_SVAR_RATE, "%s: %s", fn,
		     "the \"if disableMemoryProfiling { MemProfileRate = 0 "
		     "}\" sequence is not there exactly once");
	} else if (decode_func(c->e, c->p, "runtime.allocmcache", &alloc, why,
			       wsz) == 0) {
		if (first_use(&alloc, U_LOAD, 8, 0, &r2) < 0 || r2 != r)
			fail(c, GH_SVAR_RATE,
			     "%s and %s disagree on runtime.MemProfileRate", fn,
			     "runtime.allocmcache");
		else {
			accept(c, GH_SVAR_RATE, r, 8);
			accept(c, GH_SVAR_DISABLE, d, 1);
		}
		free_code(&alloc);
	}
	free_code(&seq);
	if (!c->out->found[GH_SVAR_DISABLE] && !c->out->why[GH_SVAR_DISABLE][0])
		strcpy(c->out->why[GH_SVAR_DISABLE], why);
}

static void resolve(struct ctx *c, bool amd64)
{
	const int minor = c->L->minor;

	two_uses(c, GH_SVAR_MBUCKETS, "runtime.mProf_FlushLocked",
		 minor >= 23 ? "runtime.memProfileInternal"
			     : "runtime.MemProfile",
		 U_LOAD, 8, 0, U_LOAD, 8);
	two_uses(c, GH_SVAR_CYCLE,
		 minor >= 19 ? "runtime.mProf_Flush"
			     : "runtime.mProf_FlushLocked",
		 "runtime.mProf_Free", U_LOAD, 4, 0, U_LOAD, 4);
	rate_and_disable(c);
	if (amd64)
		two_uses(c, GH_SVAR_USEFMA, "math.archExp", "math.init",
			 U_CMP_IMM, 1, 1, U_STORE_REG, 1);
	else
		snprintf(c->out->why[GH_SVAR_USEFMA],
			 sizeof(c->out->why[GH_SVAR_USEFMA]),
			 "math.useFMA exists on amd64 only: arm64's "
			 "math.Exp has one path");
}

void stripped_resolve(const struct elffile *e, struct pcln *p,
		      const struct layout *L, struct svars *out)
{
	struct ctx c = {.e = e, .p = p, .L = L, .out = out};

	memset(out, 0, sizeof(*out));
	resolve(&c, elffile__machine(e) == EM_X86_64);
}
