/* stats.h - what the server's collector has done since it started, for
 * /metrics: each snapshot's duration (a histogram) and outcome, the bytes
 * read, what its caches saved, and the HTTP statuses answered. Written by
 * the collector's thread and the HTTP thread, read by either. */
#ifndef GH_CMD_STATS_H
#define GH_CMD_STATS_H

#include <pthread.h>

#include "goheap.h"

/* Upper bounds (seconds) of the snapshot-duration histogram's buckets. */
#define STATS_NBOUNDS 13
extern const double stats_bounds[STATS_NBOUNDS];
#define STATS_NSTATUS 5 /* enum gh_snap_status */

struct stats_view {
	uint64_t le[STATS_NBOUNDS]; /* snapshots of at most each bound */
	uint64_t count;
	double sum; /* seconds */
	uint64_t by_status[STATS_NSTATUS];
	uint64_t read_bytes, binaries_parsed, bpf_loads, iter_passes;
	uint64_t sweeps, sweep_failures;
	uint64_t http[600]; /* by status code */
};

struct stats {
	pthread_mutex_t mu;
	struct stats_view v;
};

int stats__init(struct stats *s);
void stats__destroy(struct stats *s);
/* A snapshot the collector took (one result), whatever its outcome. */
void stats__profile(struct stats *s, const struct gh_result *r);
/* What a request cost the collector. */
void stats__costs(struct stats *s, const struct gh_results *r);
/* A sweep of the host done (or failed: ok false). */
void stats__sweep(struct stats *s, bool ok);
/* A request answered with this status. */
void stats__http(struct stats *s, int status);
/* A consistent copy, to render. */
void stats__read(struct stats *s, struct stats_view *out);

/* The name runtime/pprof's JSON gives a status: "complete", ... */
const char *snap_status_name(enum gh_snap_status st);

#endif
