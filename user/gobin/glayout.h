/* glayout.h - what a goroutine is in each Go release: the offsets of
 * runtime.g's fields goheap-bpf reads (runtime/runtime2.go), its status
 * values, the waitReason strings, and what runtime/pprof's goroutine
 * profile keeps of a goroutine (isSystemGoroutine's start functions, the
 * stack depth, the labels' shape). One row per supported minor release
 * (glayout.c); an unknown release has none. */
#ifndef GH_GOBIN_GLAYOUT_H
#define GH_GOBIN_GLAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "goheap.h"

/* runtime2.go's G statuses (the same in every supported release; 10 and
 * 11 from 1.26). */
enum gstatus {
	GST_IDLE = 0,
	GST_RUNNABLE = 1,
	GST_RUNNING = 2,
	GST_SYSCALL = 3,
	GST_WAITING = 4,
	GST_DEAD = 6,
	GST_COPYSTACK = 8,
	GST_PREEMPTED = 9,
	GST_LEAKED = 10,    /* 1.26+ */
	GST_DEADEXTRA = 11, /* 1.26+ */
	GST_SCAN = 0x1000,
};

/* How a goroutine's pprof labels are held (runtime/pprof/label.go). */
enum glabels_kind {
	GLABELS_MAP = 0, /* labelMap map[string]string (1.18-1.23) */
	GLABELS_SLICE,	 /* labelMap{LabelSet{list []label}} (1.24+) */
};

/* How the finalizer goroutine says it runs user code (mfinal.go). */
enum gfing_kind {
	GFING_BOOL = 0, /* runtime.fingRunning bool (1.18-1.19) */
	GFING_STATUS,	/* runtime.fingStatus & fingRunningFinalizer (1.20+) */
};

struct glayout {
	int minor;     /* Go 1.<minor> */
	uint32_t size; /* sizeof(runtime.g) */
	/* runtime.g; gobuf's fields as offsets from g's start */
	uint32_t stack_lo, stack_hi, m;
	uint32_t sched_sp, sched_pc, sched_lr, sched_bp;
	uint32_t syscallsp, syscallpc;
	uint32_t atomicstatus; /* uint32 */
	uint32_t goid;	       /* int64 (1.18-1.19) or uint64 */
	uint32_t waitsince;    /* int64, nanotime() */
	uint32_t waitreason;   /* uint8 */
	uint32_t parent_goid;  /* uint64, 1.21+; 0 when absent */
	uint32_t gopc, startpc, labels;
	uint32_t lockedm;	   /* muintptr: "locked to thread" when set */
	uint32_t running_cleanups; /* atomic.Bool, 1.25+; 0 when absent */
	/* waitReason → its String(), indexed by value */
	const char *const *waitreasons;
	size_t nwaitreasons;
	/* isSystemGoroutine (traceback.go): start functions that are user
	 * goroutines or may be */
	const char *finalizer_fn; /* runtime.runfinq / runtime.runFinalizers */
	enum gfing_kind fing;
	const char *cleanup_fn; /* runtime.runCleanups (1.25+), or NULL */
	bool corostart_user;	/* runtime.corostart is a user one (1.22+) */
	/* runtime/pprof's goroutine profile */
	uint32_t max_frames; /* StackRecord.Stack0's 32 (<= 1.22), or
				debug.profstackdepth's default 128 */
	enum glabels_kind labels_kind;
	bool created_in_goroutine; /* "created by F in goroutine N" (1.21+) */
	bool has_leaked;	   /* _Gleaked and _Gdeadextra (1.26+) */
	bool traceback_labels;	   /* goroutineheader prints the labels (1.27+:
				      GODEBUG tracebacklabels, 1 by default) */
};

/* The row of Go 1.<minor>; NULL with UNSUPPORTED, naming the release,
 * when there is none: a layout is never guessed. */
const struct glayout *glayout__for(int minor, struct gh_err *err);

/* gp.waitreason.String(): "" for a value the release does not have. */
const char *glayout__waitreason(const struct glayout *L, uint8_t reason);

/* gStatusStrings[status &^ _Gscan], "???" past its end. */
const char *glayout__status(const struct glayout *L, uint32_t status);

#endif
