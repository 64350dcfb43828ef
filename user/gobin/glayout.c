/* glayout.c - runtime.g's layout and the goroutine profile's rules, one
 * row per supported Go release. The offsets are read from each release's
 * runtime/runtime2.go struct g and struct gobuf (every field's size
 * summed in order, with Go's alignment); test_glayout checks each row
 * against the DWARF of a binary that release built. The waitReason
 * strings are runtime2.go's waitReasonStrings in the order of the
 * waitReason constants (which is not the array literal's order from 1.22
 * on, when the constants were regrouped).
 *
 * What moved, and why (field lists of runtime.g, release to release):
 * - 1.21 dropped sysblocktraced, sysexitticks, traceseq and tracelastp
 *   and added parentGoid: gopc and what follows move up 16 bytes; the
 *   traceback says "created by F in goroutine N".
 * - 1.23 added syscallbp after syscallpc: atomicstatus on move down 8.
 * - 1.25 dropped gobuf.ret (gobuf is 48 bytes, lr at 32, bp at 40):
 *   everything after sched moves up 8; syncSafePoint and runningCleanups
 *   (cleanup goroutines, runtime.AddCleanup) fill padding.
 * - 1.26 added fipsOnlyBypass, ditWanted and secret before parentGoid
 *   (parentGoid on move down 8), and the statuses _Gleaked, _Gdeadextra.
 */
#include <stdio.h>

#include "base/err.h"
#include "gobin/glayout.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* go1.18 1.19 */
static const char *const wr_18[] = {
	"",
	"GC assist marking",
	"IO wait",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"select",
	"select (no cases)",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"chan receive",
	"chan send",
	"finalizer wait",
	"force gc (idle)",
	"semacquire",
	"sleep",
	"sync.Cond.Wait",
	"timer goroutine (idle)",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"preempted",
	"debug call",
};
/* go1.20 1.21 */
static const char *const wr_20[] = {
	"",
	"GC assist marking",
	"IO wait",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"select",
	"select (no cases)",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"chan receive",
	"chan send",
	"finalizer wait",
	"force gc (idle)",
	"semacquire",
	"sleep",
	"sync.Cond.Wait",
	"sync.Mutex.Lock",
	"sync.RWMutex.RLock",
	"sync.RWMutex.Lock",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"GC worker (active)",
	"preempted",
	"debug call",
	"GC mark termination",
	"stopping the world",
};
/* go1.22 */
static const char *const wr_22[] = {
	"",
	"GC assist marking",
	"IO wait",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"select",
	"select (no cases)",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"chan receive",
	"chan send",
	"finalizer wait",
	"force gc (idle)",
	"semacquire",
	"sleep",
	"sync.Cond.Wait",
	"sync.Mutex.Lock",
	"sync.RWMutex.RLock",
	"sync.RWMutex.Lock",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"GC worker (active)",
	"preempted",
	"debug call",
	"GC mark termination",
	"stopping the world",
	"flushing proc caches",
	"trace goroutine status",
	"trace proc status",
	"page trace flush",
	"coroutine",
};
/* go1.23 */
static const char *const wr_23[] = {
	"",
	"GC assist marking",
	"IO wait",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"select",
	"select (no cases)",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"chan receive",
	"chan send",
	"finalizer wait",
	"force gc (idle)",
	"semacquire",
	"sleep",
	"sync.Cond.Wait",
	"sync.Mutex.Lock",
	"sync.RWMutex.RLock",
	"sync.RWMutex.Lock",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"GC worker (active)",
	"preempted",
	"debug call",
	"GC mark termination",
	"stopping the world",
	"flushing proc caches",
	"trace goroutine status",
	"trace proc status",
	"page trace flush",
	"coroutine",
	"GC weak to strong wait",
};
/* go1.24 */
static const char *const wr_24[] = {
	"",
	"GC assist marking",
	"IO wait",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"select",
	"select (no cases)",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"chan receive",
	"chan send",
	"finalizer wait",
	"force gc (idle)",
	"semacquire",
	"sleep",
	"sync.Cond.Wait",
	"sync.Mutex.Lock",
	"sync.RWMutex.RLock",
	"sync.RWMutex.Lock",
	"sync.WaitGroup.Wait",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"GC worker (active)",
	"preempted",
	"debug call",
	"GC mark termination",
	"stopping the world",
	"flushing proc caches",
	"trace goroutine status",
	"trace proc status",
	"page trace flush",
	"coroutine",
	"GC weak to strong wait",
	"synctest.Run",
	"synctest.Wait",
	"chan receive (synctest)",
	"chan send (synctest)",
	"select (synctest)",
};
/* go1.25 */
static const char *const wr_25[] = {
	"",
	"GC assist marking",
	"IO wait",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"select",
	"select (no cases)",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"chan receive",
	"chan send",
	"finalizer wait",
	"force gc (idle)",
	"GOMAXPROCS updater (idle)",
	"semacquire",
	"sleep",
	"sync.Cond.Wait",
	"sync.Mutex.Lock",
	"sync.RWMutex.RLock",
	"sync.RWMutex.Lock",
	"sync.WaitGroup.Wait",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"GC worker (active)",
	"preempted",
	"debug call",
	"GC mark termination",
	"stopping the world",
	"flushing proc caches",
	"trace goroutine status",
	"trace proc status",
	"page trace flush",
	"coroutine",
	"GC weak to strong wait",
	"synctest.Run",
	"synctest.Wait",
	"chan receive (durable)",
	"chan send (durable)",
	"select (durable)",
	"sync.WaitGroup.Wait (durable)",
	"cleanup wait",
};
/* go1.26 1.27 */
static const char *const wr_26[] = {
	"",
	"GC assist marking",
	"IO wait",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"finalizer wait",
	"force gc (idle)",
	"GOMAXPROCS updater (idle)",
	"semacquire",
	"sleep",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"select (no cases)",
	"select",
	"chan receive",
	"chan send",
	"sync.Cond.Wait",
	"sync.Mutex.Lock",
	"sync.RWMutex.RLock",
	"sync.RWMutex.Lock",
	"sync.WaitGroup.Wait",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"GC worker (active)",
	"preempted",
	"debug call",
	"GC mark termination",
	"stopping the world",
	"flushing proc caches",
	"trace goroutine status",
	"trace proc status",
	"page trace flush",
	"coroutine",
	"GC weak to strong wait",
	"synctest.Run",
	"synctest.Wait",
	"chan receive (durable)",
	"chan send (durable)",
	"select (durable)",
	"sync.WaitGroup.Wait (durable)",
	"cleanup wait",
};

/* Offsets of one of the five shapes runtime.g has had. */
#define G_COMMON                                                               \
	.stack_lo = 0, .stack_hi = 8, .m = 48, .sched_sp = 56 + 0,             \
	.sched_pc = 56 + 8
/* 1.18-1.24: gobuf {sp, pc, g, ctxt, ret, lr, bp} */
#define G_GOBUF7                                                               \
	G_COMMON, .sched_lr = 56 + 40, .sched_bp = 56 + 48, .syscallsp = 112,  \
		  .syscallpc = 120
/* 1.25+: gobuf {sp, pc, g, ctxt, lr, bp} */
#define G_GOBUF6                                                               \
	G_COMMON, .sched_lr = 56 + 32, .sched_bp = 56 + 40, .syscallsp = 104,  \
		  .syscallpc = 112
#define G_1_18                                                                 \
	G_GOBUF7, .size = 392, .atomicstatus = 144, .goid = 152,               \
		  .waitsince = 168, .waitreason = 176, .gopc = 296,            \
		  .startpc = 312, .labels = 360, .lockedm = 232
#define G_1_21                                                                 \
	G_GOBUF7, .atomicstatus = 144, .goid = 152, .waitsince = 168,          \
		  .waitreason = 176, .parent_goid = 272, .gopc = 280,          \
		  .startpc = 296, .labels = 344, .lockedm = 208
#define G_1_23                                                                 \
	G_GOBUF7, .atomicstatus = 152, .goid = 160, .waitsince = 176,          \
		  .waitreason = 184, .parent_goid = 280, .gopc = 288,          \
		  .startpc = 304, .labels = 352, .lockedm = 216
#define G_1_25                                                                 \
	G_GOBUF6, .size = 440, .atomicstatus = 144, .goid = 152,               \
		  .waitsince = 168, .waitreason = 176, .parent_goid = 272,     \
		  .gopc = 280, .startpc = 296, .labels = 344, .lockedm = 208,  \
		  .running_cleanups = 218
#define G_1_26                                                                 \
	G_GOBUF6, .size = 456, .atomicstatus = 144, .goid = 152,               \
		  .waitsince = 168, .waitreason = 176, .parent_goid = 280,     \
		  .gopc = 288, .startpc = 304, .labels = 352, .lockedm = 208,  \
		  .running_cleanups = 220
#define WR(a) .waitreasons = a, .nwaitreasons = N(a)
#define FINQ  .finalizer_fn = "runtime.runfinq"
#define FINS                                                                   \
	.finalizer_fn = "runtime.runFinalizers",                               \
	.cleanup_fn = "runtime.runCleanups", .fing = GFING_STATUS

static const struct glayout rows[] = {
	{.minor = 18, G_1_18, WR(wr_18), FINQ, .max_frames = 32},
	{.minor = 19, G_1_18, WR(wr_18), FINQ, .max_frames = 32},
	{.minor = 20,
	 G_1_18,
	 WR(wr_20),
	 FINQ,
	 .fing = GFING_STATUS,
	 .max_frames = 32},
	{.minor = 21,
	 G_1_21,
	 .size = 408,
	 WR(wr_20),
	 FINQ,
	 .fing = GFING_STATUS,
	 .max_frames = 32,
	 .created_in_goroutine = true},
	{.minor = 22,
	 G_1_21,
	 .size = 424,
	 WR(wr_22),
	 FINQ,
	 .fing = GFING_STATUS,
	 .corostart_user = true,
	 .max_frames = 32,
	 .created_in_goroutine = true},
	{.minor = 23,
	 G_1_23,
	 .size = 432,
	 WR(wr_23),
	 FINQ,
	 .fing = GFING_STATUS,
	 .corostart_user = true,
	 .max_frames = 128,
	 .created_in_goroutine = true},
	{.minor = 24,
	 G_1_23,
	 .size = 440,
	 WR(wr_24),
	 FINQ,
	 .fing = GFING_STATUS,
	 .corostart_user = true,
	 .max_frames = 128,
	 .labels_kind = GLABELS_SLICE,
	 .created_in_goroutine = true},
	{.minor = 25,
	 G_1_25,
	 WR(wr_25),
	 FINS,
	 .corostart_user = true,
	 .max_frames = 128,
	 .labels_kind = GLABELS_SLICE,
	 .created_in_goroutine = true},
	{.minor = 26,
	 G_1_26,
	 WR(wr_26),
	 FINS,
	 .corostart_user = true,
	 .max_frames = 128,
	 .labels_kind = GLABELS_SLICE,
	 .created_in_goroutine = true,
	 .has_leaked = true},
	{.minor = 27,
	 G_1_26,
	 WR(wr_26),
	 FINS,
	 .corostart_user = true,
	 .max_frames = 128,
	 .labels_kind = GLABELS_SLICE,
	 .created_in_goroutine = true,
	 .has_leaked = true,
	 .traceback_labels = true},
};

const struct glayout *glayout__for(int minor, struct gh_err *err)
{
	for (size_t i = 0; i < N(rows); i++)
		if (rows[i].minor == minor)
			return &rows[i];
	err_set(err, GH_E_UNSUPPORTED,
		"goroutines of Go 1.%d cannot be read: its runtime.g layout "
		"is not known; build it with a supported release (1.%d to "
		"1.%d)",
		minor, rows[0].minor, rows[N(rows) - 1].minor);
	return NULL;
}

const char *glayout__waitreason(const struct glayout *L, uint8_t reason)
{
	return reason < L->nwaitreasons ? L->waitreasons[reason] : "";
}

const char *glayout__status(const struct glayout *L, uint32_t status)
{
	static const char *const names[] = {
		"idle",	     "runnable",  "running", "syscall",
		"waiting",   NULL,	  "dead",    NULL,
		"copystack", "preempted", "leaked",  "waiting for cgo callback",
	};
	size_t n = L->has_leaked ? 12 : 10;

	status &= ~(uint32_t)GST_SCAN;
	/* gStatusStrings' holes (5, 7) are "" in Go: print shows nothing. */
	if (status >= n)
		return "???";
	return names[status] ? names[status] : "";
}
