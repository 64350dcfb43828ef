/* verbose.c - what --verbose adds on stderr: each profile's counts, timing
 * and backend, and the request's costs (BPF loads, iterator passes,
 * binaries parsed), which the tests read (verbose.h). */
#include <stdio.h>

#include "cmd/verbose.h"

void verbose_profile(const struct gh_profile *p)
{
	fprintf(stderr,
		"goheap-bpf: pid %d %s (%s): %zu buckets (%zu in use), "
		"%zu locations, %zu functions, MemProfileRate %lld, read in "
		"%.1f ms by backend %s, %llu bytes received, %.1f ms of the "
		"target's CPU\n",
		p->pid, p->go_version, p->runtime_file, p->nbuckets,
		p->nbuckets_inuse, p->nlocations, p->nfunctions,
		(long long)p->period, p->duration_ms, p->backend,
		(unsigned long long)p->read_bytes, p->target_cpu_ns / 1e6);
	if (p->backend_notes[0])
		fprintf(stderr, "goheap-bpf: passed over: %s\n",
			p->backend_notes);
}

static const char *plural(size_t n, const char *one, const char *more)
{
	return n == 1 ? one : more;
}

void verbose_results(const struct gh_results *r, size_t nresults)
{
	fprintf(stderr,
		"goheap-bpf: %zu process%s examined (%zu not Go), %zu "
		"result%s in %.1f ms (opening %.1f ms, reading %.1f ms): %u "
		"BPF load%s, %u iterator pass%s, %u binar%s parsed\n",
		r->examined, plural(r->examined, "", "es"), r->not_go, nresults,
		plural(nresults, "", "s"), r->duration_ms, r->open_ms,
		r->read_ms, r->bpf_loads, plural(r->bpf_loads, "", "s"),
		r->iter_passes, plural(r->iter_passes, "", "es"),
		r->binaries_parsed, plural(r->binaries_parsed, "y", "ies"));
}
