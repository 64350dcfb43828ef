/* sweepcache.h - the last sweep of the host (every Go process the
 * server's filters expose, one row per Go runtime), behind /metrics,
 * /processes, /targets and /: taken at most every --refresh by the
 * collector's thread and shared, read-only and reference-counted, by
 * every request until the next. */
#ifndef GH_CMD_SWEEPCACHE_H
#define GH_CMD_SWEEPCACHE_H

#include <pthread.h>
#include <stdatomic.h>

#include "cmd/serve/stats.h"
#include "goheap.h"

/* One result of the sweep: a Go runtime of a process, or a process that
 * yielded none (runtime 0), and why. */
struct snap_row {
	int pid;
	size_t runtime, nruntimes;
	char comm[32], container_id[80], container_runtime[16], pod_uid[40];
	char go_version[64], build_id[128];
	char *exe, *runtime_file, *cgroup, *reason;
	enum gh_snap_status status;
	bool data; /* a profile was read: the values below hold */
	int64_t total[GH_NVALUES];
	size_t nbuckets;
	int64_t period;
	/* The runtime's own counters (the process's first runtime, 1, only):
	 * rt.has is 0 when they could not be read. */
	struct gh_runtime_stats rt;
};

struct snap {
	atomic_int refs;
	struct snap_row *v;
	size_t n, cap;
	uint64_t taken_ns; /* CLOCK_MONOTONIC, when it ended */
	double taken_unix; /* the same, in Unix seconds */
	double duration_s; /* the sweep's */
};

struct cache {
	pthread_mutex_t mu;
	struct snap *cur; /* NULL until the first sweep */
	uint64_t refresh_ns;
};

int cache__init(struct cache *c, uint64_t refresh_ms);
void cache__destroy(struct cache *c);
/* A reference to the last sweep when it is younger than --refresh, else
 * NULL (a sweep is due). */
struct snap *cache__fresh(struct cache *c);
/* On the collector's thread: a reference to a sweep younger than
 * --refresh, sweeping the host with col first when there is none
 * (sel: the filters; timeout_ms: the request's deadline). NULL with err
 * when the sweep could not run. */
struct snap *cache__sweep(struct cache *c, struct gh_collector *col,
			  const struct gh_select *sel, uint64_t timeout_ms,
			  struct stats *st, struct gh_err *err);
void snap__put(struct snap *s);
/* Rows i.. of s that are one process's: the index past them. */
size_t snap__process_end(const struct snap *s, size_t i);

#endif
