/* jsonrt.c - the JSON document's "runtime" object (jsonrt.h). Each
 * counter is written only when the target's release keeps it
 * (gh_runtime_stats.has): a counter a release lacks is absent, not 0. The
 * names are runtime/metrics' own, as client_golang's Go collector turns
 * them into Prometheus names (goheap-bpf(8), OUTPUT FORMATS). */
#include <inttypes.h>

#include "write/jsonenc.h"
#include "write/jsonrt.h"

static void put_u(FILE *f, const char *name, uint64_t v, bool has)
{
	if (has)
		fprintf(f, ", \"%s\": %" PRIu64, name, v);
}

static void put_i(FILE *f, const char *name, int64_t v, bool has)
{
	if (has)
		fprintf(f, ", \"%s\": %" PRId64, name, v);
}

void json_put_runtime(FILE *f, const struct gh_profile *p)
{
	GH_OPTS(gh_runtime_stats, rt);
	struct gh_err e;

	if (gh_profile__runtime_stats(p, &rt, &e)) {
		if (e.code == GH_E_NODATA)
			return;
		fputs(",\n  \"runtime\": {\"available\": false, \"reason\": ",
		      f);
		gh_json__quote(f, e.msg);
		fputc('}', f);
		return;
	}
	fputs(",\n  \"runtime\": {\"available\": true", f);
	put_u(f, "goroutines", rt.goroutines, rt.has & GH_RT_GOROUTINES);
	put_u(f, "sched_goroutines", rt.sched_goroutines,
	      rt.has & GH_RT_GOROUTINES);
	put_u(f, "gc_cycles", rt.gc_cycles, rt.has & GH_RT_GC_CYCLES);
	put_u(f, "heap_live_bytes", rt.heap_live, rt.has & GH_RT_HEAP_LIVE);
	put_u(f, "heap_goal_bytes", rt.heap_goal, rt.has & GH_RT_HEAP_GOAL);
	put_u(f, "gomaxprocs", rt.gomaxprocs, rt.has & GH_RT_GOMAXPROCS);
	put_i(f, "gogc_percent", rt.gogc, rt.has & GH_RT_GOGC);
	put_i(f, "memory_limit_bytes", rt.memory_limit,
	      rt.has & GH_RT_MEMORY_LIMIT);
	put_u(f, "goroutines_running", rt.goroutines_running,
	      rt.has & GH_RT_GSTATES);
	put_u(f, "goroutines_runnable", rt.goroutines_runnable,
	      rt.has & GH_RT_GSTATES);
	put_u(f, "goroutines_waiting", rt.goroutines_waiting,
	      rt.has & GH_RT_GSTATES);
	put_u(f, "goroutines_not_in_go", rt.goroutines_not_in_go,
	      rt.has & GH_RT_GSTATES);
	put_u(f, "goroutines_created", rt.goroutines_created,
	      rt.has & GH_RT_GCREATED);
	fprintf(f, ", \"reads\": %u}", rt.reads);
}
