/* countcycle.c - see countcycle.h. Each step is the target's runtime/pprof
 * code (pprof.go: writeProfileInternal, printCountCycleProfile,
 * scaleMutexProfile; runtime.go: ticksPerSecond), in Go's own arithmetic:
 * the float64 operations in its order, int64() as goexp.c converts. */
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "profile/countcycle.h"
#include "profile/gosort.h"

struct crec crec_of(const uint64_t *rec, enum gh_kind kind, enum gomath m,
		    size_t bucket)
{
	struct crec r = {.cycles = (int64_t)rec[1], .bucket = bucket};
	double count;

	memcpy(&count, &rec[0], sizeof(count));
	r.count = go_f64_to_i64(count, m);
	/* "Prevent callers from having to worry about division by zero" */
	if (kind == GH_KIND_BLOCK && r.count == 0)
		r.count = 1;
	return r;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The runtime's cputicks: RDTSC on amd64 (RDTSCP where the CPU has it:
 * the same counter), nanotime() on arm64. An amd64 target runs on an
 * amd64 host only. */
static int64_t cputicks(bool arm64)
{
#if defined(__x86_64__)
	if (!arm64)
		return (int64_t)__builtin_ia32_rdtsc();
#endif
	(void)arm64;
	return mono_ns();
}

/* nanotime and cputicks read back to back, as the runtime reads them; a
 * pair whose reads were split by a preemption (the first read taken
 * again after the second is 20 us late or more) is taken again, up to 8
 * times: the runtime's own pair is rarely split, and a split one would
 * skew the 100 ms measurement by as much. */
static void clock_pair(bool arm64, int64_t *t, int64_t *c)
{
	for (int i = 0; i < 8; i++) {
		*t = mono_ns();
		*c = cputicks(arm64);
		if (mono_ns() - *t < 20000)
			return;
	}
}

static void sleep_ns(long ns)
{
	struct timespec ts = {0, ns};

	nanosleep(&ts, NULL);
}

/* ticksPerSecond's minTimeForTicksPerSecond on Linux (no low-res clock). */
#define MIN_TICKS_NS 5000000

int contention_ticks(const struct contention_layout *cl, const uint64_t *vars,
		     uint32_t var_err, bool arm64, int64_t *tps,
		     const char **how, struct gh_err *err)
{
	int64_t r, t0, c0, t1, c1;

	if (var_err & (1u << GH_VAR_BM_TICKS))
		return err_set(err, GH_E_FAILED,
			       "cannot read runtime.ticks of the process; try "
			       "again, or with --backend procmem");
	r = (int64_t)vars[GH_VAR_BM_TICKS];
	if (r) {
		*tps = r;
		*how = "ticks per second: the target's own (runtime.ticks)";
		return 0;
	}
	if (cl->ticks_start_ticks &&
	    !(var_err &
	      (1u << GH_VAR_BM_START_TICKS | 1u << GH_VAR_BM_START_TIME))) {
		int64_t st = (int64_t)vars[GH_VAR_BM_START_TICKS];
		int64_t sn = (int64_t)vars[GH_VAR_BM_START_TIME];

		/* ticksPerSecond's loop, waiting in 1 ms steps (1 s at
		 * most: a start time that never ages is not the runtime's) */
		for (int i = 0; i < 1000; i++, sleep_ns(1000000)) {
			int64_t now = mono_ns(), ticks = cputicks(arm64);

			if (ticks > st && now - sn > MIN_TICKS_NS) {
				r = go_f64_to_i64((double)(ticks - st) * 1e9 /
							  (double)(now - sn),
						  arm64 ? GOMATH_ARM64
							: GOMATH_AMD64_SSE2);
				*tps = r ? r : 1;
				*how = "ticks per second: not computed by the "
				       "target yet, computed as its "
				       "ticksPerSecond would (runtime.ticks' "
				       "start and this host's clocks)";
				return 0;
			}
		}
		return err_set(err, GH_E_FAILED,
			       "runtime.ticks of the process holds no usable "
			       "start time; try again once it has run a while");
	}
	/* tickspersecond (1.18-1.21): 100 ms of both clocks. */
	clock_pair(arm64, &t0, &c0);
	sleep_ns(100000000);
	clock_pair(arm64, &t1, &c1);
	if (t1 == t0)
		t1++;
	r = (c1 - c0) * 1000 * 1000 * 1000 / (t1 - t0);
	*tps = r ? r : 1;
	*how = "ticks per second: not computed by the target yet, measured "
	       "as its tickspersecond would (100 ms of this host's clocks)";
	return 0;
}

static bool rec_less(void *ctx, long i, long j)
{
	const struct crec *r = ctx;

	return r[i].cycles > r[j].cycles;
}

static void rec_swap(void *ctx, long i, long j)
{
	struct crec *r = ctx, t = r[i];

	r[i] = r[j];
	r[j] = t;
}

void contention_sort(struct crec *r, size_t n, const struct layout *L)
{
	const struct gosort d = {rec_less, rec_swap, r, L->text_xorshift_7_17};

	if (L->text_pdqsort)
		go_pdqsort(&d, (long)n);
	else
		go_quicksort(&d, (long)n);
}

void contention_values(const struct contention_layout *cl, enum gh_kind kind,
		       int64_t rate, int64_t tps, enum gomath m,
		       const struct crec *r, int64_t out[2])
{
	double cpu_ghz = (double)tps / 1e9;
	double ns = (double)r->cycles / cpu_ghz;

	out[0] = r->count;
	if (cl->pprof_scales_mutex && kind == GH_KIND_MUTEX) {
		/* scaleMutexProfile: int64 arithmetic wraps as Go's */
		out[0] = (int64_t)((uint64_t)r->count * (uint64_t)rate);
		ns = ns * (double)rate;
	}
	out[1] = go_f64_to_i64(ns, m);
}
