/* fuzz_stripped.c - the stripped-binary instruction matcher
 * (user/gobin/stripped.c over user/gobin/x86insn.c and arm64insn.c).
 * stripped_resolve reads each function it matches from the file, at the bounds
 * pclntab gives; so the input's bytes become the bodies of those functions in a
 * real binary of the unit tests' fixtures, whose pclntab is left intact.
 *
 * Input: one byte choosing the binary - release 1.(18 + bits 0-4), bits
 * 6-7 the kind (0 exe, 1 PIE, 2 arm64) - then, for each function of
 * funcs[] in turn, a u16 length and that many bytes of its body (cut to
 * the function's size; the rest is the linker's padding: INT3 on amd64,
 * zero words on arm64). Every variable must come out found
 * or with a reason, as stripped.h promises; else the harness aborts. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "gobin/gobin.h"

/* Every function stripped.c reads, in any release. */
static const char *const funcs[] = {
	"runtime.mProf_FlushLocked",
	"runtime.MemProfile",
	"runtime.memProfileInternal",
	"runtime.mProf_Flush",
	"runtime.mProf_Free",
	"runtime.schedinit",
	"runtime.init",
	"runtime.allocmcache",
	"math.archExp",
	"math.init",
};
#define NFUNCS (sizeof(funcs) / sizeof(funcs[0]))

/* A binary, its pclntab and layout (never changed), and where each
 * function's body is in the file (size 0: no such function). */
struct target {
	struct patched *bin;
	struct gobin *g;
	size_t off[NFUNCS], size[NFUNCS];
};

static int locate(struct target *t)
{
	struct elffile_sect text;
	uint64_t entry, end;
	size_t i;

	if (elffile__section(t->g->elf, ".text", &text) < 0 || !text.data)
		return -1;
	for (i = 0; i < NFUNCS; i++) {
		if (pcln__func_by_name(t->g->pcln, funcs[i], &entry, &end) <
			    0 ||
		    entry < text.addr || end - text.addr > text.size)
			continue;
		t->off[i] = text.offset + (entry - text.addr);
		t->size[i] = end - entry;
	}
	return 0;
}

/* The binary the input's first byte names, opened once. */
static struct target *target(uint8_t sel)
{
	static struct target ts[FX_MINORS][FX_KINDS];
	static int8_t state[FX_MINORS]
			   [FX_KINDS]; /* 0 unknown, 1 ready, -1 none */
	int m = sel % FX_MINORS, k = (sel >> 6) % FX_KINDS;
	struct target *t = &ts[m][k];
	struct gh_err err;
	bool ok;

	if (!state[m][k]) {
		t->bin = fixture_binary(FX_MINOR_FIRST + m,
					(enum fixture_kind)k);
		ok = t->bin &&
		     !gobin__open_offline(t->bin->f.path, NULL, &t->g, &err) &&
		     !locate(t);
		state[m][k] = ok ? 1 : -1;
	}
	return state[m][k] > 0 ? t : NULL;
}

static void write_bodies(struct target *t, struct input *in)
{
	static uint8_t body[1 << 20];
	int pad = elffile__machine(t->g->elf) == EM_AARCH64 ? 0 : 0xcc;
	const uint8_t *p;
	size_t i, n;

	for (i = 0; i < NFUNCS; i++) {
		p = in_bytes(in, in_u16(in), &n);
		if (!t->size[i] || t->size[i] > sizeof(body))
			continue;
		if (n > t->size[i])
			n = t->size[i];
		memcpy(body, p, n);
		memset(body + n, pad, t->size[i] - n);
		patched_write(t->bin, t->off[i], body, t->size[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	struct target *t = target(in_u8(&in));
	struct elffile *e;
	struct svars sv;
	struct gh_err err;
	int v;

	if (!t)
		return 0;
	write_bodies(t, &in);
	if (elffile__open(t->bin->f.path, NULL, &e, &err) == 0) {
		stripped_resolve(e, t->g->pcln, t->g->layout, &sv);
		for (v = 0; v < GH_SVAR_N; v++)
			if (!sv.found[v] && !sv.why[v][0])
				abort();
		elffile__close(e);
	}
	patched_restore(t->bin);
	return 0;
}
