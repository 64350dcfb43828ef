/* rtread.c - the runtime counters from outside. Each is what runtime/
 * metrics computes, from the same variables: gcount() (proc.go) for the
 * goroutines, memstats.numgc for the cycles, gcController.heapMarked for
 * the live heap, heapGoal() (mgcpacer.go) for the goal, gomaxprocs,
 * gcPercent and memoryLimit. They are read one after the other, not at
 * once: numgc is read first and last, and everything again when a GC
 * cycle ended in between (the heap figures change at its end). The
 * goroutine counts can still be off by goroutines starting or ending
 * during the read, as gcount's own are ("can be changed concurrently");
 * so can the goroutines by state (schedstats.c), read last. */
#include <errno.h>
#include <string.h>

#include "goroutine/rtread.h"

#define TRIES	    8
#define GC_MAX	    512	       /* more than any gcController read */
#define ALLP_MAX    (1u << 16) /* more Ps than any GOMAXPROCS */
#define CHUNK	    256
#define MIN_RUNWAY  (64u << 10) /* heapGoalInternal's minRunway */
#define HEADROOM    (1u << 20)	/* memoryLimit(Min)HeapGoalHeadroom */
#define HEADROOM_PC 3		/* memoryLimitHeapGoalHeadroomPercent */

static uint64_t u64_at(const uint8_t *b, uint32_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static int32_t i32_at(const uint8_t *b, uint32_t off)
{
	int32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static int rd32(const struct gfetch *f, uint64_t addr, int32_t *v)
{
	return f->read(f->ctx, addr, v, sizeof(*v));
}

/* memoryLimitHeapGoal, in uint64 as Go computes it. */
static uint64_t limit_goal(const struct rt_pacer *p, enum rt_headroom h)
{
	uint64_t heap_alloc = p->total_alloc - p->total_free;
	uint64_t limit = (uint64_t)p->memory_limit, non_heap, overage = 0;
	uint64_t goal, room = HEADROOM;

	non_heap = p->mapped_ready - p->heap_free - heap_alloc;
	if (p->mapped_ready > limit)
		overage = p->mapped_ready - limit;
	if (non_heap + overage >= limit)
		return p->heap_marked;
	goal = limit - (non_heap + overage);
	if (h == RT_HEADROOM_PERCENT) {
		room = goal / 100 * HEADROOM_PC;
		if (room < HEADROOM)
			room = HEADROOM;
	}
	if (goal < room || goal - room < room)
		goal = room;
	else
		goal -= room;
	return goal < p->heap_marked ? p->heap_marked : goal;
}

uint64_t rt_heap_goal(const struct rt_pacer *p, enum rt_headroom h)
{
	uint64_t goal = p->pct_goal, lim = limit_goal(p, h);

	if (lim < goal)
		return lim;
	if (p->sweep_dist_min > goal)
		goal = p->sweep_dist_min;
	if (p->triggered != ~(uint64_t)0 && goal < p->triggered + MIN_RUNWAY)
		goal = p->triggered + MIN_RUNWAY;
	return goal;
}

/* Σ p.gFree.n over allp: the free gs the Ps cache. */
static int p_free(const struct rtcounters *R, const struct gfetch *f,
		  uint64_t allp, int64_t *sum)
{
	uint64_t hdr[3], ps[CHUNK];

	*sum = 0;
	if (f->read(f->ctx, allp, hdr, sizeof(hdr)) < 0)
		return -1;
	if (hdr[1] > hdr[2] || hdr[1] > ALLP_MAX || (hdr[1] && !hdr[0]))
		return errno = EFAULT, -1;
	for (uint64_t k = 0; k < hdr[1]; k += CHUNK) {
		size_t m = hdr[1] - k < CHUNK ? (size_t)(hdr[1] - k) : CHUNK;

		if (f->read(f->ctx, hdr[0] + 8 * k, ps, 8 * m) < 0)
			return -1;
		for (size_t i = 0; i < m; i++) {
			int32_t n;

			if (!ps[i])
				return errno = EFAULT, -1;
			if (rd32(f, ps[i] + R->p_gfree_n, &n) < 0)
				return -1;
			*sum += n;
		}
	}
	return 0;
}

/* gcount(includeSys): never below 1, as the runtime's. */
static uint64_t gcount(int64_t n)
{
	return n < 1 ? 1 : (uint64_t)n;
}

static int read_once(const struct rtcounters *R, const struct gfetch *f,
		     const struct rtvars *v, struct gh_runtime_stats *o)
{
	uint8_t gc[GC_MAX];
	uint64_t allglen;
	int32_t ngsys, procs, s1 = 0, s2 = 0;
	int64_t pfree, n;

	if (R->gc_bytes > sizeof(gc))
		return errno = EINVAL, -1;
	if (f->read(f->ctx, v->gc_controller, gc, R->gc_bytes) < 0 ||
	    f->read(f->ctx, v->s.allglen, &allglen, sizeof(allglen)) < 0 ||
	    rd32(f, v->gomaxprocs, &procs) < 0 ||
	    rd32(f, v->s.sched + R->sched_ngsys, &ngsys) < 0)
		return -1;
	if (R->sched_gfree_n
		    ? rd32(f, v->s.sched + R->sched_gfree_n, &s1)
		    : rd32(f, v->s.sched + R->sched_gfree_s1, &s1) ||
			      rd32(f, v->s.sched + R->sched_gfree_s2, &s2))
		return -1;
	if (p_free(R, f, v->s.allp, &pfree) < 0)
		return -1;
	/* int32(allglen) - the free lists (- ngsys), as gcount */
	n = (int64_t)(int32_t)allglen - s1 - s2 - pfree;
	o->goroutines = gcount(n - ngsys);
	o->sched_goroutines = R->gcount_sys ? gcount(n) : o->goroutines;
	o->gomaxprocs = (uint64_t)(uint32_t)procs;
	o->gogc = i32_at(gc, R->gc_percent);
	o->has = GH_RT_GOROUTINES | GH_RT_GC_CYCLES | GH_RT_HEAP_GOAL |
		 GH_RT_GOMAXPROCS | GH_RT_GOGC;
	if (R->has_heap_live) {
		o->heap_live = u64_at(gc, R->heap_marked);
		o->has |= GH_RT_HEAP_LIVE;
	}
	if (R->heap_goal) {
		o->heap_goal = u64_at(gc, R->heap_goal);
	} else {
		struct rt_pacer p = {
			.pct_goal = u64_at(gc, R->pct_heap_goal),
			.sweep_dist_min = u64_at(gc, R->sweep_dist_min),
			.triggered = u64_at(gc, R->triggered),
			.heap_marked = u64_at(gc, R->heap_marked),
			.heap_free = u64_at(gc, R->heap_free),
			.total_alloc = u64_at(gc, R->total_alloc),
			.total_free = u64_at(gc, R->total_free),
			.mapped_ready = u64_at(gc, R->mapped_ready),
			.memory_limit = (int64_t)u64_at(gc, R->memory_limit),
		};

		/* memoryLimitHeapGoal reads these again until they agree:
		 * a partial update seen, so read everything again. */
		if (p.heap_free + (p.total_alloc - p.total_free) >
		    p.mapped_ready)
			return errno = EAGAIN, -1;
		o->heap_goal = rt_heap_goal(&p, R->headroom);
		o->memory_limit = p.memory_limit;
		o->has |= GH_RT_MEMORY_LIMIT;
	}
	return schedstats_read(R, f, &v->s, gcount(n), o);
}

int rtstats_read(const struct rtcounters *R, const struct gfetch *f,
		 const struct rtvars *v, struct gh_runtime_stats *out)
{
	for (unsigned t = 1; t <= TRIES; t++) {
		uint32_t n0, n1;
		struct gh_runtime_stats o = {0};

		if (f->read(f->ctx, v->memstats + R->numgc, &n0, 4) < 0)
			return -1;
		if (read_once(R, f, v, &o) < 0) {
			if (errno == EAGAIN)
				continue;
			return -1;
		}
		if (f->read(f->ctx, v->memstats + R->numgc, &n1, 4) < 0)
			return -1;
		if (n0 != n1)
			continue;
		o.gc_cycles = n1;
		o.reads = t;
		o.sz = out->sz;
		*out = o;
		return 0;
	}
	return errno = EAGAIN, -1;
}
