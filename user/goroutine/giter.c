/* giter.c - the goroutine profile's iter backend (see giter.h).
 *
 * Why copies rather than reads on demand: the BPF program runs in one
 * pass over the target (inside our read() of the iterator), so it must
 * copy everything the unwinder may read before userspace looks at any of
 * it. That is each g (glayout's size) and its stack from the saved SP to
 * stack.hi: the unwinder reads nothing else of a parked goroutine. The g
 * is copied again after its stack, and gsnap's re-read (refetch) is of
 * that second copy, so the procmem reader's rule holds: a g whose
 * status, ID, saved registers or stack bounds changed while its stack
 * was copied is left out and counted, never unwound from a torn copy
 * (tries = 1: a copy cannot be read again).
 *
 * The pprof labels sit behind g.labels in objects whose shape is the
 * release's (a map or a slice, then strings): the reads of them that
 * failed are noted, copied in a later pass (GH_GCFG_RANGES, up to
 * MAX_ROUNDS reads deep), each labelled g copied again after them, and
 * the goroutines read again from the copies. So a labelled g is kept
 * only when it did not move from before its stack was copied to after
 * its labels were: stricter than procmem for busy labelled goroutines.
 *
 * Bounds: max_goroutines (the pass stops there), max_bytes and the
 * deadline (partial with the reason); a pass that fills the ring buffer
 * is resumed at the g it stopped at, whose half copy is dropped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "base/u64map.h"
#include "goroutine/gcopy.h"
#include "goroutine/giter.h"
#include "read/gpass.h"

/* Passes for the labels: each uncovers the next read glabels needs (the
 * labelMap, the slice or hmap, each label's entry, key and value), so a
 * goroutine with k labels takes about 2 + 3k; past MAX_ROUNDS, those
 * not read whole are left out (counted as failing a check). */
#define MAX_ROUNDS 40
#define MAX_PASSES 4096 /* resumed passes (each drains a full ring) */

struct gstate {
	struct gcopy now, after;
	uint64_t *allgs; /* addresses of the g's copied, by allgs index */
	size_t cap;
	size_t done;	    /* allgs[0, done) copied whole */
	size_t mark, amark; /* now's and after's blocks at done */
	bool begun, ended, oom;
	bool ranges;	      /* a GH_GCFG_RANGES pass runs */
	uint32_t cur_owner;   /* the g whose stack blocks come (idx + 1) */
	struct u64map owners; /* g address -> idx + 1 */
	uint32_t g_size;
	struct gh_gev_begin begin; /* the first pass's */
	struct gh_gev_end end;
	uint64_t bytes;
};

static int keep_g(struct gstate *st, const struct gh_gev_g *g,
		  const uint8_t *bytes)
{
	if (g->idx >= st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 1024;
		uint64_t *v;

		while (cap <= g->idx)
			cap *= 2;
		v = realloc(st->allgs, cap * sizeof(*v));
		if (!v)
			return -1;
		st->allgs = v, st->cap = cap;
	}
	if (!g->after) {
		st->allgs[g->idx] = g->addr;
		st->cur_owner = g->idx + 1;
		return g->len ? gcopy__add(&st->now, g->addr, bytes, g->len)
			      : 0;
	}
	if (g->len && gcopy__add(&st->after, g->addr, bytes, g->len))
		return -1;
	if (g->idx == st->done) { /* this g is whole */
		st->done++;
		st->mark = gcopy__mark(&st->now);
		st->amark = gcopy__mark(&st->after);
	}
	return 0;
}

static void on_record(void *ctx, const void *data, size_t size)
{
	struct gstate *st = ctx;
	struct gh_ev_hdr h;
	int rc = 0;

	if (size < sizeof(h))
		return;
	memcpy(&h, data, sizeof(h));
	st->bytes += size;
	if (h.kind == GH_GEV_BEGIN && size >= sizeof(st->begin)) {
		if (!st->begun)
			memcpy(&st->begin, data, sizeof(st->begin));
		st->begun = true;
	} else if (h.kind == GH_GEV_END && size >= sizeof(st->end)) {
		memcpy(&st->end, data, sizeof(st->end));
		st->ended = true;
	} else if (h.kind == GH_GEV_G && size >= sizeof(struct gh_gev_g)) {
		struct gh_gev_g g;

		memcpy(&g, data, sizeof(g));
		if (g.len > size - sizeof(g))
			return;
		rc = keep_g(st, &g, (const uint8_t *)data + sizeof(g));
	} else if (h.kind == GH_GEV_MEM && size >= sizeof(struct gh_gev_mem)) {
		struct gh_gev_mem m;

		memcpy(&m, data, sizeof(m));
		if (m.len > size - sizeof(m))
			return;
		/* In an allgs pass, a stack block of the g just begun. */
		rc = gcopy__add_owned(&st->now, m.addr,
				      (const uint8_t *)data + sizeof(m), m.len,
				      st->ranges ? 0 : st->cur_owner);
	}
	if (rc)
		st->oom = true;
}

/* gsnap reads a g (whole) before its stack: from then on, the stack
 * blocks seen are that g's. */
static int view_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	struct gstate *st = ctx;
	uint32_t owner;

	if (n == st->g_size &&
	    u64map__get(&st->owners, addr, NULL, NULL, &owner) == 1)
		st->now.owner = owner;
	return gcopy__read(&st->now, addr, dst, n);
}

/* Index the g's copied by address. */
static int index_owners(struct gstate *st)
{
	uint32_t v;

	for (size_t i = 0; i < st->done; i++)
		if (u64map__get(&st->owners, st->allgs[i], NULL, NULL, &v) !=
			    1 &&
		    u64map__put(&st->owners, st->allgs[i], (uint32_t)i + 1))
			return -1;
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static uint32_t status_bit(uint32_t st)
{
	return 1u << st;
}

static void make_cfg(struct gh_gcfg *c, const struct gsnap_env *e,
		     const struct giter_opts *o, uint64_t deadline)
{
	const struct glayout *L = e->u.L;
	size_t max = e->max_goroutines;

	*c = (struct gh_gcfg){
		.allglen = e->allglen,
		.allgptr = e->allgptr,
		.var = e->fing_var,
		.deadline_ns = deadline,
		.max_bytes = o->max_bytes ? o->max_bytes : GITER_MAX_BYTES,
		.max_stack = GITER_MAX_STACK,
		.max_g = max > UINT32_MAX ? UINT32_MAX : (uint32_t)max,
		.g_size = L->size,
		.off_sp = L->sched_sp,
		.off_syscallsp = L->syscallsp,
		.off_stack_lo = L->stack_lo,
		.off_stack_hi = L->stack_hi,
		.off_status = L->atomicstatus,
		.status_clear = GST_SCAN,
		/* What gsnap unwinds: not dead, idle or having its stack
		 * moved; a running one only in a system call. */
		.stack_status =
			status_bit(GST_RUNNABLE) | status_bit(GST_SYSCALL) |
			status_bit(GST_WAITING) | status_bit(GST_PREEMPTED) |
			(L->has_leaked ? status_bit(GST_LEAKED) : 0),
		.syscall_status = status_bit(GST_RUNNING),
	};
}

static const char *why_stopped(uint32_t status)
{
	switch (status) {
	case GH_GWALK_BYTES:
		return "the bytes copied reached the bound";
	case GH_GWALK_DEADLINE:
		return "the deadline passed";
	case GH_GWALK_CANCEL:
		return "the read was cancelled";
	default:
		return "a goroutine could not be read from allgs";
	}
}

/* The allgs passes: every g up to max_goroutines, or a stop. 0, or -1
 * with err. */
static int copy_allgs(struct gpass *p, struct gstate *st, struct gh_gcfg *c,
		      const struct giter_opts *o, struct gsnap *s,
		      struct gh_err *err)
{
	for (int pass = 0;; pass++) {
		st->ended = false;
		c->start = (uint32_t)st->done;
		if (gpass__run(p, o->pid, c, NULL, on_record, st, o->cancel,
			       err))
			return -1;
		if (st->oom)
			return err_set(err, GH_E_FAILED, "out of memory");
		if (!st->ended)
			return err_set(err, GH_E_GONE,
				       "process %d exited while read; run "
				       "again on a live process",
				       o->pid);
		/* What a stopped pass left half copied goes. */
		gcopy__truncate(&st->now, st->mark);
		gcopy__truncate(&st->after, st->amark);
		if (st->end.status == GH_GWALK_DONE)
			return 0;
		if (st->end.status == GH_GWALK_FAULT && !st->done &&
		    (st->begin.var_err & 3))
			return err_set(err, GH_E_FAILED,
				       "process %d: its goroutine list cannot "
				       "be read; check that it is a live Go "
				       "program",
				       o->pid);
		if (st->end.status != GH_GWALK_RESUME || pass >= MAX_PASSES) {
			s->partial = true;
			snprintf(s->reason, sizeof(s->reason),
				 "%s: the first %zu of runtime.allgs were read",
				 why_stopped(st->end.status), st->done);
			return 0;
		}
	}
}

/* The fake memory gread_all reads: allglen (the g's copied), allgptr,
 * the allgs slice, the finalizer's word. */
static int add_list(struct gstate *st, const struct gsnap_env *e)
{
	uint64_t n = st->done;

	if (gcopy__add(&st->now, e->allglen, &n, 8) ||
	    gcopy__add(&st->now, e->allgptr, &st->begin.allgptr, 8) ||
	    (n && gcopy__add(&st->now, st->begin.allgptr, st->allgs,
			     (uint32_t)(8 * n))) ||
	    (e->fing_var && !(st->begin.var_err & 4) &&
	     gcopy__add(&st->now, e->fing_var, &st->begin.var, 8)))
		return -1;
	return 0;
}

/* Copy what the labels' reads missed, and each labelled g after it. */
static int copy_ranges(struct gpass *p, struct gstate *st, struct gh_gcfg *c,
		       const struct gmiss *m, size_t nm,
		       const struct gsnap_env *e, const struct giter_opts *o,
		       struct gh_err *err)
{
	struct gh_grange *r = malloc(GH_GRANGES_MAX * sizeof(*r));
	size_t k = 0, i = 0, gi = 0;
	uint64_t lab;
	int rc = 0;

	if (!r)
		return err_set(err, GH_E_FAILED, "out of memory");
	c->mode = GH_GCFG_RANGES;
	st->ranges = true;
	while (!rc && (i < nm || gi < st->done)) {
		for (k = 0; k < GH_GRANGES_MAX && i < nm; i++)
			if (m[i].len <= GH_BLOCK_BYTES)
				r[k++] = (struct gh_grange){m[i].addr, m[i].len,
							    0};
		for (; k < GH_GRANGES_MAX && gi < st->done; gi++)
			if (gcopy__read(&st->now,
					st->allgs[gi] + e->u.L->labels, &lab,
					8) == 0 &&
			    lab)
				r[k++] = (struct gh_grange){st->allgs[gi],
							    e->u.L->size, 1};
		c->nranges = (uint32_t)k;
		st->ended = false;
		rc = gpass__run(p, o->pid, c, r, on_record, st, o->cancel, err);
		if (!rc && st->oom)
			rc = err_set(err, GH_E_FAILED, "out of memory");
	}
	free(r);
	st->ranges = false;
	c->mode = GH_GCFG_ALLGS;
	return rc;
}

int giter_read(struct gsnap *s, struct gsnap_env *e, const struct giter_opts *o,
	       struct gh_err *err)
{
	struct gstate st = {0};
	struct gfetch now, after, labels;
	struct gpass *p = NULL;
	struct gh_gcfg c;
	struct gsnap head = {0};
	struct gmiss *m = NULL;
	size_t nm = 0;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	make_cfg(&c, e, o,
		 o->deadline_ns ? o->deadline_ns
				: mono_ns() + GITER_TIMEOUT_NS);
	if (o->pass)
		p = o->pass;
	else if (gpass__open(&p, o->env, err))
		goto out;
	if (copy_allgs(p, &st, &c, o, &head, err))
		goto out;
	st.g_size = e->u.L->size;
	if (add_list(&st, e) || index_owners(&st)) {
		err_set(err, GH_E_FAILED, "out of memory");
		goto out;
	}
	now = (struct gfetch){.read = view_read, .ctx = &st};
	after = gcopy__fetch(&st.after, false);
	labels = gcopy__fetch(&st.now, true);
	e->u.fetch = &now;
	e->refetch = &after;
	e->labels_fetch = &labels;
	e->tries = 1;
	for (int round = 0;; round++) {
		if (gsnap__read(s, e) < 0) {
			err_set(err, GH_E_FAILED, "out of memory");
			goto out;
		}
		free(m);
		m = gcopy__take_misses(&st.now, &nm);
		if (!nm || round + 1 >= MAX_ROUNDS)
			break;
		gsnap__free(s);
		if (copy_ranges(p, &st, &c, m, nm, e, o, err))
			goto out;
	}
	if (st.begin.allglen > st.done && !head.partial) {
		head.partial = true;
		snprintf(head.reason, sizeof(head.reason),
			 "more than --max-goroutines %zu goroutines: the "
			 "first %zu of runtime.allgs were read",
			 e->max_goroutines, st.done);
	}
	s->partial = head.partial;
	memcpy(s->reason, head.reason, sizeof(s->reason));
	rc = 0;
out:
	if (rc)
		gsnap__free(s);
	free(m);
	free(st.allgs);
	gcopy__free(&st.now);
	gcopy__free(&st.after);
	u64map__free(&st.owners);
	if (!o->pass)
		gpass__free(p);
	e->u.fetch = e->refetch = e->labels_fetch = NULL;
	return rc;
}
