/* fuzz_goroutine.c - the goroutine reader over memory it does not
 * control (user/goroutine/: gread, gsnap, gunwind, gargs, glabels, gtext),
 * with a real binary's pclntab: a target's whole address space is the
 * input, so every g, stack, label and list pointer is fuzzed. The texts
 * of what was read are written to /dev/null.
 *
 * Input: one byte choosing the binary - release 1.(18 + bits 0-4) of the
 * unit tests' fixtures, amd64 exe - then the memory image, mapped at
 * BASE (0x10000000): its first 8 bytes are runtime.allglen, the next 8
 * runtime.allgptr, the next 4 runtime.fingStatus. A read of anything
 * outside the image fails (EFAULT), as process_vm_readv would. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "gobin/gobin.h"
#include "gobin/symcache.h"
#include "goroutine/gsnap.h"
#include "goroutine/gtext.h"

#define BASE 0x10000000ull

struct image {
	const uint8_t *p;
	size_t n;
};

static int image_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	const struct image *m = ctx;

	if (addr < BASE || addr - BASE > m->n || n > m->n - (addr - BASE))
		return errno = EFAULT, -1;
	memcpy(dst, m->p + (addr - BASE), n);
	return 0;
}

struct target {
	struct gobin *g;
	const struct glayout *L;
	struct symcache sc;
};

static struct target *target(uint8_t sel)
{
	static struct target ts[FX_MINORS];
	static int8_t state[FX_MINORS]; /* 0 unknown, 1 ready, -1 none */
	int m = sel % FX_MINORS;
	struct target *t = &ts[m];
	struct patched *bin;
	struct gh_err err;

	if (!state[m]) {
		bin = fixture_binary(FX_MINOR_FIRST + m, FX_EXE);
		state[m] = -1;
		if (bin &&
		    !gobin__open_offline(bin->f.path, NULL, &t->g, &err) &&
		    (t->L = glayout__for(t->g->layout->minor, &err))) {
			symcache__init(&t->sc, t->g->pcln,
				       t->g->layout->hide_internal_runtime);
			state[m] = 1;
		}
	}
	return state[m] > 0 ? t : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct input in = {data, size};
	struct target *t = target(in_u8(&in));
	struct image img = {in.p, in.n};
	struct gfetch f = {.read = image_read, .ctx = &img};
	struct gsnap_env e = {
		.u = {.pcln = NULL},
		.allglen = BASE,
		.allgptr = BASE + 8,
		.fing_var = BASE + 16,
		.max_goroutines = 64,
		.want_trace = true,
	};
	struct gtext_env te;
	struct gsnap s;

	if (!t)
		return 0;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	e.u = (struct gunwind_env){
		.pcln = t->g->pcln,
		.L = t->L,
		.funcid_wrapper = t->g->layout->funcid_wrapper,
		.funcid_sigpanic = t->g->layout->funcid_sigpanic,
		.funcid_gopanic = t->g->layout->funcid_gopanic,
		.funcid_panicwrap = t->g->layout->funcid_panicwrap,
		.funcid_cgocallback = t->g->layout->funcid_cgocallback,
		.fetch = &f,
	};
	if (gsnap__read(&s, &e) < 0)
		return 0;
	/* What was kept keeps its promises. */
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].npcs > t->L->max_frames ||
		    (s.v[i].running && s.v[i].npcs != 1))
			abort();
	te = (struct gtext_env){&t->sc, t->g->pcln, t->g->layout, t->L, 0};
	gtext_debug1(&te, &s, null);
	gtext_debug2(&te, &s, null);
	gsnap__free(&s);
	return 0;
}
