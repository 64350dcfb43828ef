/* stripped.c - find runtime.mbuckets, runtime.MemProfileRate, the profile
 * cycle, runtime.disableMemoryProfiling and math.useFMA in a binary built
 * with -ldflags=-s -w, whose .symtab is gone but whose pclntab still names
 * every function. Each variable is read off the instructions of functions
 * that use it (runtime/mprof.go, runtime/proc.go, math/exp_asm.go of the
 * binary's release):
 *
 *   mbuckets        first 64-bit RIP-relative load in mProf_FlushLocked,
 *                   and in MemProfile (memProfileInternal from 1.23)
 *   cycle           first 32-bit RIP-relative load in mProf_Flush
 *                   (mProf_FlushLocked in 1.18, where it is mProf.cycle),
 *                   and in mProf_Free
 *   MemProfileRate, 1.20+: schedinit's "if disableMemoryProfiling
 *   disable...      { MemProfileRate = 0 }" as exactly CMPB $0, D; JE
 *                   over; MOVQ $0, R. 1.18-1.19: runtime.init's
 *                   MOVZX D; TESTQ; MOVL $0x80000; MOVL $0; CMOVNE;
 *                   MOVQ R. R must also be allocmcache's first 64-bit
 *                   RIP-relative load.
 *   useFMA          math.archExp's first CMPB $1 (its FMA branch), and
 *                   math.init's first byte store
 *
 * Every instruction of each function is decoded from its entry (pclntab
 * gives the bounds), so "first" means first in instruction order and a
 * byte that does not decode fails the function rather than being skipped.
 * Each address must also lie in a Go data section. Anything else - a
 * pattern that does not match, two uses that disagree - leaves the
 * variable unfound with the reason. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gobin/stripped.h"
#include "gobin/x86insn.h"

#define MAX_FUNC_BYTES (1u << 20)
#define DEFAULT_RATE   (512 * 1024) /* runtime.MemProfileRate's initial value */

/* What a RIP-relative instruction does with its memory operand. */
enum use { U_LOAD, U_STORE_REG, U_STORE_IMM, U_CMP_IMM, U_LEA, U_OTHER };

struct insn {
	uint64_t pc;
	struct x86insn x;
};

/* A function's instructions, decoded from entry to end. */
struct code {
	const char *name;
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

/* Decode the function named name; -1 with why set when it is absent, too
 * large, not in the file, or holds a byte sequence the decoder refuses. */
static int decode_func(const struct elffile *e, struct pcln *p,
		       const char *name, struct code *c, char *why, size_t wsz)
{
	uint64_t entry, end, off;
	uint8_t *buf;
	int len;

	memset(c, 0, sizeof(*c));
	c->name = name;
	if (pcln_func_by_name(p, name, &entry, &end) < 0)
		return snprintf(why, wsz, "pclntab has no function %s", name),
		       -1;
	if (end <= entry || end - entry > MAX_FUNC_BYTES)
		return snprintf(why, wsz, "%s has an implausible size", name),
		       -1;
	buf = malloc(end - entry);
	c->v = calloc(end - entry, sizeof(*c->v));
	if (!buf || !c->v || elffile_read_vaddr(e, entry, buf, end - entry)) {
		free(buf);
		free(c->v);
		c->v = NULL;
		return snprintf(why, wsz, "cannot read %s's code from the file",
				name),
		       -1;
	}
	for (off = 0; off < end - entry; off += (uint64_t)len) {
		len = x86_decode(buf + off, end - entry - off, &c->v[c->n].x);
		if (len < 0) {
			snprintf(why, wsz,
				 "%s: bytes at %#llx are not an instruction "
				 "this decoder knows",
				 name, (unsigned long long)(entry + off));
			free(buf);
			free(c->v);
			c->v = NULL;
			return -1;
		}
		c->v[c->n++].pc = entry + off;
	}
	free(buf);
	return 0;
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

/* The target of the first instruction using memory as u with width w
 * (and, for immediates, value imm); -1 when there is none. */
static int first_use(const struct code *c, enum use u, unsigned w, int64_t imm,
		     uint64_t *addr)
{
	size_t k;

	for (k = 0; k < c->n; k++) {
		if (!is(&c->v[k], u, w) ||
		    ((u == U_STORE_IMM || u == U_CMP_IMM) &&
		     c->v[k].x.imm != imm))
			continue;
		*addr = target(&c->v[k]);
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
		if (elffile_section(e, sects[k], &s) == 0 && addr >= s.addr &&
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

/* The index of the only place in c where disableMemoryProfiling zeroes
 * MemProfileRate; *d and *r are their addresses. -1 when there is no such
 * place or more than one. */
static int rate_sequence(const struct code *c, int minor, uint64_t *d,
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
	if (rate_sequence(&seq, c->L->minor, &d, &r) < 0) {
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

static void resolve_amd64(struct ctx *c)
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
	two_uses(c, GH_SVAR_USEFMA, "math.archExp", "math.init", U_CMP_IMM, 1,
		 1, U_STORE_REG, 1);
}

void stripped_resolve(const struct elffile *e, struct pcln *p,
		      const struct layout *L, struct svars *out)
{
	struct ctx c = {.e = e, .p = p, .L = L, .out = out};
	int v;

	memset(out, 0, sizeof(*out));
	if (elffile_machine(e) == EM_X86_64) {
		resolve_amd64(&c);
		return;
	}
	for (v = 0; v < GH_SVAR_N; v++)
		snprintf(out->why[v], sizeof(out->why[v]),
			 "stripped arm64 binaries are not supported: %s "
			 "cannot be located without a symbol table; "
			 "profile a build without -ldflags=-s",
			 svar_name((enum svar)v, L));
}
