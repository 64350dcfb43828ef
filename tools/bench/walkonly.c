/* walkonly.c - the benchmark's read phase of goheap-bpf's backends alone:
 * open the backend (for BPF: load, verify, create the ring buffer), then
 * walk every bucket of the target into a snapshot that only counts them,
 * with nothing built from them, so that the figure compares with the
 * reference readers of refread.c, which only collect.
 *
 *   walkonly iter|perf|procmem PID
 *
 * Prints "read in X ms (open Y ms): N buckets". Built by tools/bench/run.sh
 * against the library's objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "read/iter.h"
#include "read/perf.h"
#include "read/procmem.h"
#include "target/target.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Keep nothing: the walk, not the profile, is measured. */
static int count(void *ctx, const struct gh_snapshot *s,
		 const struct bucket *b, const uint64_t *stk)
{
	(void)s;
	(void)b;
	(void)stk;
	++*(size_t *)ctx;
	return 0;
}

static const struct backend_ops *backend(const char *name)
{
	static const struct backend_ops *const all[] = {
		&backend_iter, &backend_perf, &backend_procmem};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

static int fail(const char *what, const struct gh_err *err)
{
	fprintf(stderr, "walkonly: %s: %s\n", what, err->msg);
	return 1;
}

int main(int argc, char **argv)
{
	const struct backend_ops *ops = argc == 3 ? backend(argv[1]) : NULL;
	struct read_req req = {0};
	struct gh_snapshot *s = snapshot__new();
	struct gh_target *t;
	struct gh_err err;
	size_t n = 0;
	double t0, t1, t2;
	void *state;

	if (!ops || !s) {
		fprintf(stderr, "usage: walkonly iter|perf|procmem PID\n");
		return 2;
	}
	if (gh_target__open(atoi(argv[2]), &t, &err))
		return fail("target", &err);
	req.pid = t->pid;
	req.mbuckets = t->mbuckets;
	memcpy(req.vars, t->vars, sizeof(req.vars));
	req.nstk_max = t->bin->layout->nstk_max;
	req.rec_bytes = t->bin->layout->rec_bytes;
	req.max_buckets = 16u << 20;
	snapshot__set_sink(s, count, NULL, &n);
	t0 = now_ms();
	if (ops->open(&state, false, &err))
		return fail("open", &err);
	t1 = now_ms();
	if (ops->read(state, &req, s, &err))
		return fail("read", &err);
	t2 = now_ms();
	printf("read in %.1f ms (open %.1f ms): %zu buckets%s\n", t2 - t0,
	       t1 - t0, n, s->partial ? " (partial)" : "");
	ops->free(state);
	gh_snapshot__free(s);
	gh_target__free(t);
	return 0;
}
