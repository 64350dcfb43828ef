/* gunwind.c - the runtime's unwinder (traceback.go: unwinder.initAt,
 * resolveInternal, next; 1.18-1.20's gentraceback does the same steps)
 * over a copy of the goroutine's stack, and tracebackPCs' recording of
 * it. The frame size at a PC is the function's pcsp value there
 * (funcspdelta); on amd64 the return address sits just below the
 * caller's SP (fp - 8), on arm64 at the frame's SP. The walk stops at a
 * top frame (runtime.goexit, mstart: abi.FuncFlagTopFrame) or an SPWRITE
 * function but runtime.cgocallback (the runtime's silent-errors traceback
 * stops there too).
 *
 * Unlike the runtime, which unwinds a stack that cannot change under it,
 * we read one that can: every PC must fall in a function and every frame
 * inside [stack.lo, stack.hi), else the stack is refused, never cut
 * where the runtime would have gone on. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "goroutine/gargs.h"
#include "goroutine/gunwind.h"

/* The part of the stack read in one go; deeper words are read alone. */
#define STACK_COPY (64u << 10)
#define MAX_INLINE 64
/* An argument area as printArgs can reach it: offsets below 0xfb, 8
 * bytes each at most. */
#define ARGS_BYTES 264

struct stackcopy {
	const struct gfetch *f;
	uint64_t base; /* target address of buf[0] */
	size_t len;
	uint8_t *buf;
};

static int word_at(struct stackcopy *s, uint64_t addr, uint64_t *v)
{
	if (addr >= s->base && addr - s->base + 8 <= s->len) {
		memcpy(v, s->buf + (addr - s->base), 8);
		return 0;
	}
	return s->f->read(s->f->ctx, addr, v, 8);
}

void gtrace__reset(struct gtrace *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].args);
	t->n = 0;
}

/* printArgs of the physical frame whose arguments start at argp. */
static char *frame_args(const struct gunwind_env *e, struct stackcopy *s,
			uint64_t sympc, uint64_t argp, uint64_t hi)
{
	uint8_t b[ARGS_BYTES];
	size_t n = hi > argp ? (size_t)(hi - argp) : 0;

	if (n > sizeof(b))
		n = sizeof(b);
	if (argp >= s->base && argp - s->base + n <= s->len)
		memcpy(b, s->buf + (argp - s->base), n);
	else if (n && s->f->read(s->f->ctx, argp, b, n) < 0)
		n = 0;
	return gargs_format(e->pcln, sympc, b, n);
}

static bool injected(const struct gunwind_env *e, const struct gofunc *f)
{
	/* isInjectedCall: sigpanic, asyncPreempt, debugCallV2. Before
	 * 1.21 only sigpanic's caller was looked up at its PC. */
	if (f->funcid == e->funcid_sigpanic)
		return true;
	return e->L->minor >= 21 && (!strcmp(f->name, "runtime.asyncPreempt") ||
				     !strcmp(f->name, "runtime.debugCallV2"));
}

static bool elide_wrapper_calling(const struct gunwind_env *e, uint8_t callee)
{
	return callee != e->funcid_gopanic && callee != e->funcid_sigpanic &&
	       callee != e->funcid_panicwrap;
}

/* tracebackPCs for one physical frame: its logical frames' return PCs;
 * and traceback2's frames, wrappers kept, into t, the physical one with
 * args (taken over). */
static void record(const struct gunwind_env *e, uint64_t sympc,
		   uint64_t frame_pc, uint64_t entry, uint8_t *callee,
		   uint64_t *pcs, size_t max, size_t *n, struct gtrace *t,
		   char *args)
{
	uint64_t lp[MAX_INLINE];
	uint8_t id[MAX_INLINE];
	size_t k = pcln__inline_frames(e->pcln, sympc, lp, id, MAX_INLINE);

	for (size_t i = 0; i < k && *n < max; i++) {
		if (t && t->n < t->max) {
			struct gtframe *fr = &t->v[t->n++];

			*fr = (struct gtframe){.pc = lp[i],
					       .frame_pc = frame_pc,
					       .entry = entry,
					       .funcid = id[i],
					       .callee = *callee,
					       .inlined = i + 1 < k};
			if (i + 1 == k) {
				fr->args = args;
				args = NULL;
			}
		}
		if (!(id[i] == e->funcid_wrapper &&
		      elide_wrapper_calling(e, *callee)))
			pcs[(*n)++] = lp[i] + 1 + e->bias;
		*callee = id[i];
	}
	free(args);
}

enum gunwind_err gunwind(const struct gunwind_env *e, const struct grec *g,
			 uint64_t *pcs, size_t max, size_t *n,
			 struct gtrace *trace)
{
	uint64_t pc, sp, lr = 0, fp, sympc;
	char *args;
	struct stackcopy s = {.f = e->fetch};
	struct gofunc f;
	uint8_t callee = 0, flag;
	bool innermost = true, trap = false, syscall = false;
	enum gunwind_err rc = GUNWIND_OK;
	size_t steps;

	*n = 0;
	if (trace)
		gtrace__reset(trace);
	if (g->syscallsp) {
		pc = g->syscallpc, sp = g->syscallsp;
		syscall = true;
	} else {
		pc = g->pc, sp = g->sp, lr = e->uses_lr ? g->lr : 0;
	}
	if (sp < g->stack_lo || sp >= g->stack_hi)
		return GUNWIND_BOUNDS;
	s.base = sp;
	s.len = g->stack_hi - sp < STACK_COPY ? g->stack_hi - sp : STACK_COPY;
	s.buf = malloc(s.len);
	if (!s.buf)
		return GUNWIND_READ;
	if (e->fetch->read(e->fetch->ctx, s.base, s.buf, s.len) < 0) {
		rc = GUNWIND_READ;
		goto out;
	}
	if (pc == 0) {
		if (word_at(&s, sp, &pc) < 0) {
			rc = GUNWIND_READ;
			goto out;
		}
		if (e->uses_lr)
			lr = 0;
		else
			sp += 8;
	}
	/* Bounded by the stack: every frame moves sp up by 8 at least. */
	for (steps = 0; *n < max; steps++) {
		if (steps > (g->stack_hi - g->stack_lo) / 8 + 1 ||
		    !pcln__func_at(e->pcln, pc - e->bias, &f)) {
			rc = GUNWIND_NOPC;
			break;
		}
		if (f.spdelta < 0) {
			rc = GUNWIND_NOFRAME;
			break;
		}
		fp = sp + (uint64_t)f.spdelta + (e->uses_lr ? 0 : 8);
		if (fp > g->stack_hi || fp < sp) {
			rc = GUNWIND_BOUNDS;
			break;
		}
		flag = f.flag;
		/* cgocallback writes SP, keeping both stacks unwindable: a
		 * goroutine a C thread's call into Go runs goes on to the
		 * extra M's runtime.goexit, as the runtime's walk does. */
		if ((innermost && syscall && e->L->minor >= 21) ||
		    f.funcid == e->funcid_cgocallback)
			flag &= ~GOFUNC_SPWRITE;
		/* symPC: a return PC's call is the byte before it. */
		sympc = trap || pc - e->bias == f.entry ? pc - e->bias
							: pc - e->bias - 1;
		args = NULL;
		if (trace) {
			/* argp: fp, and the saved LR above it on arm64. */
			args = frame_args(e, &s, sympc,
					  fp + (e->uses_lr ? 8 : 0),
					  g->stack_hi);
			if (!args) {
				rc = GUNWIND_READ;
				break;
			}
		}
		record(e, sympc, pc, f.entry, &callee, pcs, max, n, trace,
		       args);
		callee = f.funcid;
		if (flag & (GOFUNC_TOPFRAME | GOFUNC_SPWRITE))
			break;
		if (e->uses_lr) {
			if ((innermost && sp < fp) || lr == 0)
				if (word_at(&s, sp, &lr) < 0) {
					rc = GUNWIND_READ;
					break;
				}
		} else if (word_at(&s, fp - 8, &lr) < 0) {
			rc = GUNWIND_READ;
			break;
		}
		if (lr == 0)
			break;
		trap = injected(e, &f);
		pc = lr, lr = 0, sp = fp;
		innermost = false;
	}
out:
	free(s.buf);
	return rc;
}

const char *gunwind_err__str(enum gunwind_err e)
{
	switch (e) {
	case GUNWIND_OK:
		return "ok";
	case GUNWIND_NOPC:
		return "a return address in no function of the binary";
	case GUNWIND_BOUNDS:
		return "a frame outside the goroutine's stack";
	case GUNWIND_READ:
		return "its stack could not be read";
	case GUNWIND_NOFRAME:
		return "a function without a frame size at its PC";
	}
	return "?";
}
