/* reader.c - gh_reader: takes a snapshot of one target with a backend
 * (today the BPF task iterator), timing the read and checking that the
 * process is the same one before and after it. */
#include <stdlib.h>
#include <time.h>

#include "read_bpf.h"
#include "target.h"

/* A list longer than this is cut (partial): 16M buckets is far beyond any
 * real heap profile (a 1M-bucket profile already holds ~300 MiB of
 * buckets in the target), and bounds the collector's memory. */
#define GH_MAX_BUCKETS (16u << 20)

struct gh_reader {
	struct gh_bpf_reader *bpf;
};

int gh_reader__open(struct gh_reader **out, bool verbose, struct gh_err *err)
{
	struct gh_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return gh_err_set(err, GH_E_FAILED, "out of memory");
	if (gh_bpf_reader__open(&r->bpf, verbose, err)) {
		free(r);
		return -1;
	}
	*out = r;
	return 0;
}

void gh_reader__free(struct gh_reader *r)
{
	if (!r)
		return;
	gh_bpf_reader__free(r->bpf);
	free(r);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The counters are consistent only if no GC cycle ended (mProfCycle moved)
 * while the list was walked; Go reads them under its profile lock, we read
 * again instead. */
static bool cycle_moved(const struct gh_snapshot *s)
{
	uint32_t bit = 1u << GH_VAR_CYCLE;

	return !(s->var_err & bit) && !(s->var_err_end & bit) &&
	       s->vars[GH_VAR_CYCLE] != s->vars_end[GH_VAR_CYCLE];
}

#define GH_READ_TRIES 3

static int read_once(struct gh_reader *r, const struct gh_target *t,
		     const struct gh_read_req *req, struct gh_snapshot **out,
		     struct gh_err *err)
{
	struct gh_snapshot *s = gh_snapshot__new();
	double t0 = now_ms();

	*out = NULL;
	if (!s)
		return gh_err_set(err, GH_E_FAILED, "out of memory");
	if (gh_bpf_reader__read(r->bpf, req, s, err) ||
	    gh_target__check_alive(t, err)) {
		gh_snapshot__free(s);
		return -1;
	}
	s->read_ms = now_ms() - t0;
	*out = s;
	return 0;
}

int gh_reader__snapshot(struct gh_reader *r, const struct gh_target *t,
			struct gh_snapshot **out, struct gh_err *err)
{
	struct gh_read_req req = {
		.pid = t->pid,
		.mbuckets = t->mbuckets,
		.nstk_max = t->bin->layout->nstk_max,
		.rec_bytes = t->bin->layout->rec_bytes,
		.max_buckets = GH_MAX_BUCKETS,
	};
	int i;

	*out = NULL;
	for (i = 0; i < GH_NVARS; i++)
		req.vars[i] = t->vars[i];
	if (gh_target__check_alive(t, err))
		return -1;
	for (i = 0; i < GH_READ_TRIES; i++) {
		if (*out)
			gh_snapshot__free(*out);
		if (read_once(r, t, &req, out, err))
			return -1;
		if (!cycle_moved(*out))
			return 0;
	}
	gh_snapshot__set_partial(*out,
				 "a GC cycle ended during each of %d reads; "
				 "counters may mix two cycles",
				 GH_READ_TRIES);
	return 0;
}
