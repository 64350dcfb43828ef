/* schedstats.c - the goroutines by state (schedstats.h). From 1.26,
 * schedStatsAggregate.compute (metrics.go) over the same fields: each P
 * of allp up to the first nil or dead one (its goroutinesCreated, its
 * status, whether its M's current g is in a system call as
 * setBlockOnExitSyscall checks it, its run queue as the loop over
 * runqhead, runqtail and runnext reads it), then sched.runq.size,
 * nGsyscallNoP and gcount(true). The runtime holds sched.lock while it
 * reads; from outside nothing is held, so each figure is the one of some
 * moment of the read, as the runtime's own run queues are. Before 1.26
 * the g statuses of allgs (gread_all), one word each, gathered
 * (process_vm_readv: IOV_MAX words a call). */
#include <errno.h>
#include <stdlib.h>

#include "goroutine/schedstats.h"

#define ALLP_MAX   (1u << 16) /* more Ps than any GOMAXPROCS */
#define P_RUNNING  1	      /* _Prunning */
#define P_DEAD	   4	      /* _Pdead */
#define RUNQ_TRIES 8

enum sched_class sched_class_of(uint32_t atomicstatus)
{
	switch (atomicstatus & ~(uint32_t)GST_SCAN) {
	case GST_RUNNING:
		return SCHED_RUNNING;
	case GST_RUNNABLE:
		return SCHED_RUNNABLE;
	case GST_SYSCALL:
		return SCHED_NOT_IN_GO;
	default:
		return SCHED_REST;
	}
}

uint64_t sched_waiting(uint64_t total, uint64_t running, uint64_t runnable,
		       uint64_t not_in_go)
{
	uint64_t busy = running + runnable + not_in_go;

	return total < busy ? 0 : total - busy;
}

static int rd(const struct gfetch *f, uint64_t addr, void *v, size_t n)
{
	return f->read(f->ctx, addr, v, n);
}

/* setBlockOnExitSyscall's test, without its scan bit: p's M's current g
 * in _Gsyscall or _Gdeadextra, and still that M's, and the M still p's. */
static int p_syscalling(const struct rtcounters *R, const struct gfetch *f,
			const struct schedvars *v, uint64_t p, bool *yes)
{
	uint64_t m, g, gm, mp;
	uint32_t st;

	*yes = false;
	if (rd(f, p + R->p_m, &m, 8) < 0)
		return -1;
	if (!m)
		return 0;
	if (rd(f, m + R->m_curg, &g, 8) < 0)
		return -1;
	if (!g)
		return 0;
	if (rd(f, g + v->g_status, &st, 4) < 0)
		return -1;
	st &= ~(uint32_t)GST_SCAN;
	if (st != GST_SYSCALL && st != GST_DEADEXTRA)
		return 0;
	if (rd(f, g + v->g_m, &gm, 8) < 0 || rd(f, m + R->m_p, &mp, 8) < 0)
		return -1;
	*yes = gm == m && mp == p;
	return 0;
}

/* runqsize's loop: tail - head while head did not move, runnext too. */
static int p_runnable(const struct rtcounters *R, const struct gfetch *f,
		      uint64_t p, uint64_t *n)
{
	for (int t = 0; t < RUNQ_TRIES; t++) {
		uint32_t ht[2], h2;
		uint64_t next;
		int32_t k;

		if (rd(f, p + R->p_runqhead, ht, 8) < 0 ||
		    rd(f, p + R->p_runnext, &next, 8) < 0 ||
		    rd(f, p + R->p_runqhead, &h2, 4) < 0)
			return -1;
		k = (int32_t)(ht[1] - ht[0]);
		if (h2 != ht[0] || k < 0)
			continue;
		*n += (uint64_t)k + (next != 0);
		return 0;
	}
	return errno = EAGAIN, -1;
}

static int per_p(const struct rtcounters *R, const struct gfetch *f,
		 const struct schedvars *v, struct gh_runtime_stats *o)
{
	uint64_t hdr[3];

	if (rd(f, v->allp, hdr, sizeof(hdr)) < 0)
		return -1;
	if (hdr[1] > hdr[2] || hdr[1] > ALLP_MAX || (hdr[1] && !hdr[0]))
		return errno = EFAULT, -1;
	for (uint64_t k = 0; k < hdr[1]; k++) {
		uint64_t p, created;
		uint32_t st;
		bool sys;

		if (rd(f, hdr[0] + 8 * k, &p, 8) < 0)
			return -1;
		if (!p)
			break;
		if (rd(f, p + R->p_status, &st, 4) < 0)
			return -1;
		if (st == P_DEAD)
			break;
		if (rd(f, p + R->p_created, &created, 8) < 0)
			return -1;
		o->goroutines_created += created;
		if (st == P_RUNNING) {
			if (p_syscalling(R, f, v, p, &sys) < 0)
				return -1;
			if (sys)
				o->goroutines_not_in_go++;
			else
				o->goroutines_running++;
		}
		if (p_runnable(R, f, p, &o->goroutines_runnable) < 0)
			return -1;
	}
	return 0;
}

static int from_ps(const struct rtcounters *R, const struct gfetch *f,
		   const struct schedvars *v, struct gh_runtime_stats *o)
{
	uint64_t created;
	int32_t runq, nop;

	if (rd(f, v->sched + R->sched_created, &created, 8) < 0)
		return -1;
	o->goroutines_created = created;
	if (per_p(R, f, v, o) < 0 ||
	    rd(f, v->sched + R->sched_runq_size, &runq, 4) < 0 ||
	    rd(f, v->sched + R->sched_nsyscall_nop, &nop, 4) < 0)
		return -1;
	o->goroutines_runnable += (uint64_t)(int64_t)runq;
	if (nop >= 0)
		o->goroutines_not_in_go += (uint64_t)nop;
	o->has |= GH_RT_GSTATES | GH_RT_GCREATED;
	return 0;
}

/* The statuses of gs[0..n), into st: gathered, or read one by one. */
static int statuses(const struct gfetch *f, const struct schedvars *v,
		    uint64_t *gs, size_t n, uint32_t *st)
{
	for (size_t i = 0; i < n; i++) {
		if (!gs[i])
			return errno = EFAULT, -1;
		gs[i] += v->g_status;
	}
	if (f->gather)
		return f->gather(f->ctx, gs, n, 4, st);
	for (size_t i = 0; i < n; i++)
		if (rd(f, gs[i], &st[i], 4) < 0)
			return -1;
	return 0;
}

static int from_gs(const struct gfetch *f, const struct schedvars *v,
		   struct gh_runtime_stats *o)
{
	uint64_t *gs, n[SCHED_REST + 1] = {0}, len;
	uint32_t *st;
	size_t ng;
	bool more;
	int rc;

	/* Past the bound, not even allgs is read. */
	if (rd(f, v->allglen, &len, 8) < 0)
		return -1;
	if (len > v->max_goroutines)
		return 0;
	if (gread_all(f, v->allglen, v->allgptr, v->max_goroutines, &gs, &ng,
		      &more) < 0)
		return -1;
	st = more ? NULL : malloc((ng ? ng : 1) * sizeof(*st));
	rc = st ? statuses(f, v, gs, ng, st) : more ? 0 : (errno = ENOMEM, -1);
	for (size_t i = 0; st && rc == 0 && i < ng; i++)
		n[sched_class_of(st[i])]++;
	free(gs);
	free(st);
	if (rc < 0 || more)
		return rc;
	o->goroutines_running = n[SCHED_RUNNING];
	o->goroutines_runnable = n[SCHED_RUNNABLE];
	o->goroutines_not_in_go = n[SCHED_NOT_IN_GO];
	o->has |= GH_RT_GSTATES;
	return 0;
}

int schedstats_read(const struct rtcounters *R, const struct gfetch *f,
		    const struct schedvars *v, uint64_t total,
		    struct gh_runtime_stats *o)
{
	if ((R->p_status ? from_ps(R, f, v, o) : from_gs(f, v, o)) < 0)
		return -1;
	if (o->has & GH_RT_GSTATES)
		o->goroutines_waiting = sched_waiting(
			total, o->goroutines_running, o->goroutines_runnable,
			o->goroutines_not_in_go);
	return 0;
}
