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
 *   allglen,        the exact opening of forEachGRace, atomicAllG
 *   allgptr         inlined: its first two uses of globals are 64-bit
 *                   loads of two addresses, allglen's then allgptr's
 *
 * Every instruction of each function is decoded (funcuses.c), so
 * "first" means first in instruction order. Each address must also lie
 * in a Go data
 section. Anything else - a pattern that does not match, two uses that
 * disagree - leaves the variable unfound with the reason. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gobin/funcuses.h"
#include "gobin/stripped.h"

#define DEFAULT_RATE (512 * 1024) /* runtime.MemProfileRate's initial value */

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
	case GH_SVAR_ALLGLEN:
		return "runtime.allglen";
	case GH_SVAR_ALLGPTR:
		return "runtime.allgptr";
	default:
		return "?";
	}
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

	if (code__decode(&ca, c->e, c->p, fa, why, wsz) < 0)
		return;
	if (code__decode(&cb, c->e, c->p, fb, why, wsz) < 0) {
		code__free(&ca);
		return;
	}
	if (code__first_use(&ca, u, w, imm, &a) < 0)
		fail(c, v, "%s: no instruction of the expected form uses %s",
		     fa, svar_name(v, c->L));
	else if (code__first_use(&cb, ub, wb, 0, &b) < 0)
		fail(c, v, "%s: no instruction of the expected form uses %s",
		     fb, svar_name(v, c->L));
	else if (a != b)
		fail(c, v, "%s and %s disagree on the variable's address", fa,
		     fb);
	else
		accept(c, v, a, w);
	code__free(&ca);
	code__free(&cb);
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
			if (!insn__is(&v[k], U_CMP_IMM, 1) || v[k].x.imm != 0 ||
			    v[k + 1].x.map != GH_X86_MAP_1 ||
			    v[k + 1].x.op != 0x74 ||
			    v[k + 2].pc + v[k + 2].x.len !=
				    v[k + 1].pc + v[k + 1].x.len +
					    (uint64_t)v[k + 1].x.imm ||
			    !insn__is(&v[k + 2], U_STORE_IMM, 8) ||
			    v[k + 2].x.imm != 0)
				continue;
			*r = insn__target(&v[k + 2]);
		} else {
			/* MOVZX D, a; TESTQ a, a; MOVL $0x80000, b; MOVL $0,
			 * c; CMOVNE c, b; MOVQ b, R */
			if (!insn__is(&v[k], U_LOAD, 1) ||
			    v[k + 1].x.op != 0x85 ||
			    v[k + 1].x.map != GH_X86_MAP_1 ||
			    !has_reg_imm(&v[k + 2], DEFAULT_RATE) ||
			    !has_reg_imm(&v[k + 3], 0) ||
			    v[k + 4].x.map != GH_X86_MAP_0F ||
			    v[k + 4].x.op != 0x45 ||
			    !insn__is(&v[k + 5], U_STORE_REG, 8))
				continue;
			*r = insn__target(&v[k + 5]);
		}
		*d = insn__target(&v[k]);
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
	       a->rd == rt && code__a64_target(c, j, r, &first) &&
	       first == from;
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
		    !code__a64_target(c, k, &dk, &first) ||
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

	if (code__decode(&seq, c->e, c->p, fn, why, wsz) < 0) {
		strcpy(c->out->why[GH_SVAR_DISABLE], why);
		return;
	}
	if ((seq.arm64 ? rate_sequence_a64
		       : rate_sequence_x86)(&seq, c->L->minor, &d, &r) < 0) {
		fail(c, GH_SVAR_RATE, "%s: %s", fn,
		     "the \"if disableMemoryProfiling { MemProfileRate = 0 "
		     "}\" sequence is not there exactly once");
	} else if (code__decode(&alloc, c->e, c->p, "runtime.allocmcache", why,
				wsz) == 0) {
		if (code__first_use(&alloc, U_LOAD, 8, 0, &r2) < 0 || r2 != r)
			fail(c, GH_SVAR_RATE,
			     "%s and %s disagree on runtime.MemProfileRate", fn,
			     "runtime.allocmcache");
		else {
			accept(c, GH_SVAR_RATE, r, 8);
			accept(c, GH_SVAR_DISABLE, d, 1);
		}
		code__free(&alloc);
	}
	code__free(&seq);
	if (!c->out->found[GH_SVAR_DISABLE] && !c->out->why[GH_SVAR_DISABLE][0])
		strcpy(c->out->why[GH_SVAR_DISABLE], why);
}

/* forEachGRace opens with atomicAllG, inlined in every release:
 * "length := atomic.Loaduintptr(&allglen); ptr :=
 * (**g)(atomic.Loadp(unsafe.Pointer(&allgptr)))". Its first two uses of
 * globals must be exactly those two 64-bit loads, of two addresses. */
static void allg_pair(struct ctx *c)
{
	static const char fn[] = "runtime.forEachGRace";
	char *why = c->out->why[GH_SVAR_ALLGLEN];
	size_t k, n = 0, wsz = sizeof(c->out->why[GH_SVAR_ALLGLEN]);
	struct access u[2];
	struct code fc;

	if (code__decode(&fc, c->e, c->p, fn, why, wsz) < 0) {
		strcpy(c->out->why[GH_SVAR_ALLGPTR], why);
		return;
	}
	for (k = 0; k < fc.n && n < 2; k++)
		n += code__use_at(&fc, k, &u[n]);
	if (n < 2 || u[0].u != U_LOAD || u[0].w != 8 || u[1].u != U_LOAD ||
	    u[1].w != 8 || u[0].addr == u[1].addr) {
		fail(c, GH_SVAR_ALLGLEN,
		     "%s does not open with atomicAllG's two 64-bit loads%s",
		     fn, "");
		strcpy(c->out->why[GH_SVAR_ALLGPTR], why);
	} else {
		accept(c, GH_SVAR_ALLGLEN, u[0].addr, 8);
		accept(c, GH_SVAR_ALLGPTR, u[1].addr, 8);
	}
	code__free(&fc);
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
	allg_pair(c);
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
