/* gunwind.h - a parked goroutine's stack from its saved registers, as
 * runtime/pprof's goroutine profile records it (mprof.go saveg: the
 * unwinder of traceback.go, tracebackPCs): return PCs, one per logical
 * frame, inlined calls expanded, wrappers elided, up to runtime.goexit. */
#ifndef GH_GOROUTINE_GUNWIND_H
#define GH_GOROUTINE_GUNWIND_H

#include "gobin/glayout.h"
#include "gobin/pcln.h"
#include "goroutine/gread.h"

struct gunwind_env {
	struct pcln *pcln;
	const struct glayout *L;
	uint64_t bias; /* runtime address = link-time address + bias */
	bool uses_lr;  /* arm64: the return address is in LR, saved at sp */
	uint8_t funcid_wrapper, funcid_sigpanic, funcid_gopanic,
		funcid_panicwrap, funcid_cgocallback;
	const struct gfetch *fetch;
};

/* Why an unwind gave no stack. */
enum gunwind_err {
	GUNWIND_OK = 0,
	GUNWIND_NOPC,	 /* a PC in no function of the binary */
	GUNWIND_BOUNDS,	 /* a frame outside [stack.lo, stack.hi) */
	GUNWIND_READ,	 /* the stack could not be read */
	GUNWIND_NOFRAME, /* a frame without a pcsp table or size */
};

/* One logical frame as traceback prints it (debug=2), wrappers kept. */
struct gtframe {
	uint64_t pc;	   /* where it is looked up (link-time): the call */
	uint64_t frame_pc; /* its physical frame's PC (runtime address) */
	uint64_t entry;	   /* its physical function's entry (link-time) */
	uint8_t funcid, callee; /* its funcID, and its callee's */
	bool inlined;
	char *args; /* printArgs' text (malloc'd); NULL for inlined ones */
};

/* Where traceback's frames go, when wanted: v holds max. */
struct gtrace {
	struct gtframe *v;
	size_t n, max;
};

/* Free the frames' argument texts; n = 0. */
void gtrace__reset(struct gtrace *t);

/* Unwind g from sched (or syscallsp/syscallpc when it is in a system
 * call) into pcs (max entries, the release's stack depth at most);
 * *n is the count. Every frame is checked: its PC in a function of the
 * pclntab with a frame size for it, the frame inside the goroutine's
 * stack. A stack deeper than max is cut at max as the runtime cuts it.
 * trace (NULL: not wanted) gets every logical frame up to its max. */
enum gunwind_err gunwind(const struct gunwind_env *e, const struct grec *g,
			 uint64_t *pcs, size_t max, size_t *n,
			 struct gtrace *trace);

const char *gunwind_err__str(enum gunwind_err e);

#endif
