/* churnloop.c - the fault tests' snapshots of a busy program (the churn
 * target: allocating and collecting at full speed) taken back to back
 * through the public API, as a long-running user of the library takes
 * them: N snapshots in groups of G, the target's own heap profile written
 * (SIGUSR1 to churn: the test's doing, never the library's) before the
 * first group and after each, so that every snapshot falls between two of
 * the target's own. Groups alternate between a collector that keeps
 * bucket stacks (later reads copy counters only) and one that does not.
 *
 *   churnloop PID BACKEND N G CHURN_PROFILE DIR
 *
 * Own profile g is moved to DIR/own-g.pb.gz. One line per snapshot:
 *
 *   snap GROUP STATUS SNAP_STATUS GC_CYCLES ALLOC_OBJECTS ALLOC_SPACE
 *        MIN_VALUE SAMPLES [WHY]
 *
 * STATUS is the result's gh_status, SNAP_STATUS the profile's
 * gh_snap_status, MIN_VALUE the smallest value of any sample, WHY the
 * result's message when STATUS is not 0; the test judges them
 * (tests/fault/churn.py). Exits 1 when it cannot go on. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, kill under -std=c11 */

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "goheap.h"

/* How long churn may take to write its own profile: 10 s. */
#define OWN_POLLS 10000
#define POLL_NS	  1000000L

struct loop {
	int pid;
	const char *own, *dir;
	struct gh_collector *c[2]; /* [0] keeps stacks, [1] does not */
	struct gh_select sel;
	struct gh_request rq;
};

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Have churn write its own profile, and move it to DIR/own-g.pb.gz. Its
 * ".gc" file comes last, once the profile is in place. */
static int own_profile(const struct loop *l, int g)
{
	char gc[4096], dst[4096];
	const struct timespec poll = {0, POLL_NS};

	snprintf(gc, sizeof(gc), "%s.gc", l->own);
	snprintf(dst, sizeof(dst), "%s/own-%d.pb.gz", l->dir, g);
	remove(gc);
	if (kill(l->pid, SIGUSR1)) {
		perror("churnloop: kill");
		return -1;
	}
	for (int i = 0; i < OWN_POLLS && !exists(gc); i++)
		nanosleep(&poll, NULL);
	if (!exists(gc) || rename(l->own, dst)) {
		fprintf(stderr, "churnloop: churn wrote no profile %d\n", g);
		return -1;
	}
	return 0;
}

/* Sum the alloc values of p's samples, and find the smallest value. */
static void totals(const struct gh_profile *p, int64_t *objects, int64_t *space,
		   int64_t *min)
{
	*objects = *space = *min = 0;
	for (size_t i = 0; i < p->nsamples; i++) {
		const int64_t *v = p->samples[i].value;

		*objects += v[GH_ALLOC_OBJECTS];
		*space += v[GH_ALLOC_SPACE];
		for (int k = 0; k < GH_NVALUES; k++)
			if (v[k] < *min)
				*min = v[k];
	}
}

static int snapshot(const struct loop *l, int g)
{
	struct gh_results *r;
	struct gh_err err;
	int64_t objects, space, min;
	const struct gh_profile *p;

	if (gh_collector__collect(l->c[g % 2], &l->rq, &r, &err)) {
		fprintf(stderr, "churnloop: %s\n", err.msg);
		return -1;
	}
	p = r->v[0].profile;
	totals(p, &objects, &space, &min);
	printf("snap %d %d %d %u %lld %lld %lld %zu %s\n", g, r->v[0].err.code,
	       p->status, p->gc_cycles, (long long)objects, (long long)space,
	       (long long)min, p->nsamples,
	       r->v[0].err.code != GH_OK ? r->v[0].err.msg : "");
	gh_results__free(r);
	return 0;
}

static int run(struct loop *l, int n, int per)
{
	int g;

	for (g = 0; g * per < n; g++) {
		if (own_profile(l, g))
			return -1;
		for (int k = 0; k < per && g * per + k < n; k++)
			if (snapshot(l, g))
				return -1;
	}
	return own_profile(l, g);
}

int main(int argc, char **argv)
{
	struct gh_collector_opts keep = {.sz = sizeof(struct gh_collector_opts),
					 .keep_stacks = true},
				 plain = {.sz = sizeof(
						  struct gh_collector_opts)};
	struct loop l = {0};
	struct gh_err err;
	int n, per, rc;

	if (argc != 7 || (l.pid = atoi(argv[1])) <= 0 ||
	    (keep.backend = plain.backend = gh_backend__parse(argv[2])) < 0 ||
	    (n = atoi(argv[3])) <= 0 || (per = atoi(argv[4])) <= 0) {
		fprintf(stderr,
			"usage: churnloop PID BACKEND N G CHURN_PROFILE "
			"DIR\n");
		return 2;
	}
	l.own = argv[5];
	l.dir = argv[6];
	l.sel = (struct gh_select){
		.sz = sizeof(l.sel), .pids = &l.pid, .npids = 1};
	l.rq = (struct gh_request){
		.sz = sizeof(l.rq), .select = &l.sel, .keep_samples = true};
	if (gh_collector__new(&keep, &l.c[0], &err) ||
	    gh_collector__new(&plain, &l.c[1], &err)) {
		fprintf(stderr, "churnloop: %s\n", err.msg);
		return 1;
	}
	rc = run(&l, n, per) ? 1 : 0;
	gh_collector__free(l.c[0]);
	gh_collector__free(l.c[1]);
	return rc;
}
