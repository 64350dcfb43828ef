/* walkonly.c - the benchmark's read phase of goheap-bpf's backends alone,
 * through the library's public API: a request that only counts the
 * buckets (gh_request.count_only), with nothing built from them, so that
 * the figure compares with the reference readers of refread.c, which only
 * collect. The read phase is the time in the backend: set up (for BPF:
 * load, verify, create the ring buffer) and every bucket walked.
 *
 *   walkonly iter|perf|procmem PID
 *
 * Prints "read in X ms (open Y ms): N buckets, B bytes": B the bytes the
 * backend received, which the walk (X - Y ms) copied out of the target.
 * Built by make bench-bins against the library (make test builds it
 * too). */
#include <stdio.h>
#include <stdlib.h>

#include "goheap.h"

int main(int argc, char **argv)
{
	int b = argc == 3 ? gh_backend__parse(argv[1]) : -1;
	int pid = argc == 3 ? atoi(argv[2]) : 0;
	GH_OPTS(gh_collector_opts, co, .backend = (enum gh_backend)b);
	GH_OPTS(gh_select, sel, .pids = &pid, .npids = 1);
	GH_OPTS(gh_request, rq, .select = &sel, .count_only = true);
	struct gh_collector *c;
	struct gh_results *r;
	const struct gh_profile *p;
	struct gh_err err;

	if (b <= GH_BACKEND_AUTO || pid <= 0) {
		fprintf(stderr, "usage: walkonly iter|perf|procmem PID\n");
		return 2;
	}
	if (gh_collector__new(&co, &c, &err) ||
	    gh_collector__collect(c, &rq, &r, &err)) {
		fprintf(stderr, "walkonly: %s\n", err.msg);
		return 1;
	}
	p = r->v[0].profile;
	if (r->v[0].err.code != GH_OK && r->v[0].err.code != GH_E_PARTIAL) {
		fprintf(stderr, "walkonly: %s\n", r->v[0].err.msg);
		return 1;
	}
	printf("read in %.1f ms (open %.1f ms): %zu buckets, %llu bytes%s\n",
	       r->read_ms, r->read_ms - p->duration_ms, p->nbuckets,
	       (unsigned long long)p->read_bytes,
	       p->status == GH_SNAP_PARTIAL ? " (partial)" : "");
	gh_results__free(r);
	gh_collector__free(c);
	return 0;
}
