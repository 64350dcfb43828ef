/* oomcatch.c - the OOM test's watcher (tests/integration/oom.sh), through
 * the public API as a long-running front end would use it: watch the
 * given processes (those that are not Go are refused and so ignored),
 * and write the profile of each one the kernel OOM-kills, until none is
 * watched or SECONDS have passed.
 *
 *   oomcatch DIR SECONDS PID...
 *
 * Lines on stdout, for the test to judge:
 *
 *   watch PID STATUS [WHY]     (gh_oom_watch__add's status)
 *   ready                      (every PID given to the watcher)
 *   victim PID STATUS SNAP_STATUS BUCKETS EARLY_KILLS LIMIT USAGE
 *          WALK_US READ_MS COMM [WHY]
 *
 * WALK_US is the CPU time the walk took in the victim's threads, READ_MS
 * the time from the kill's record to the walk's end.
 *
 * DIR/oom-PID.pb.gz holds a victim's profile, its labels and trigger as
 * comments. Exits 1 when it cannot go on. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "goheap.h"

static const char *dir;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Write r's profile to DIR/oom-PID.pb.gz (through a temporary file
 * renamed into place once written); 0 or -1 (said on stderr). */
static int save(const struct gh_result *r)
{
	GH_OPTS(gh_write_opts, o, .format = GH_FORMAT_PPROF, .labels = true);
	struct gh_err err = {GH_E_OUTPUT, "cannot be written"};
	char path[4096], tmp[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/oom-%d.pb.gz", dir, r->pid);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		goto fail;
	if (gh_profile__write(r->profile, f, &o, &err)) {
		fclose(f);
		remove(tmp);
		goto fail;
	}
	if (!fclose(f) && !rename(tmp, path))
		return 0;
	remove(tmp);
fail:
	fprintf(stderr, "oomcatch: %s: %s\n", path, err.msg);
	return -1;
}

static void on_victim(void *arg, const struct gh_oom *oom, struct gh_result *r)
{
	(void)arg;
	if (r->profile->status != GH_SNAP_FAILED &&
	    r->profile->status != GH_SNAP_UNAVAILABLE)
		save(r);
	printf("victim %d %d %d %zu %u %llu %llu %llu %.1f %s %s\n", r->pid,
	       r->err.code, r->profile->status, r->profile->nbuckets,
	       oom->early_kills, (unsigned long long)oom->memcg_limit_bytes,
	       (unsigned long long)oom->memcg_usage_bytes,
	       (unsigned long long)(r->profile->target_cpu_ns / 1000),
	       r->profile->duration_ms, oom->comm, r->err.msg);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	GH_OPTS(gh_oom_watch_opts, o, .victim = on_victim);
	struct gh_oom_watch *w;
	struct gh_err err;
	double end;

	if (argc < 4) {
		fprintf(stderr, "usage: oomcatch DIR SECONDS PID...\n");
		return 1;
	}
	dir = argv[1];
	end = now_s() + atof(argv[2]);
	if (gh_oom_watch__new(&o, &w, &err)) {
		fprintf(stderr, "oomcatch: %s\n", err.msg);
		return 1;
	}
	for (int i = 3; i < argc; i++) {
		int rc = gh_oom_watch__add(w, atoi(argv[i]), &err);

		printf("watch %s %d %s\n", argv[i], rc ? err.code : 0,
		       rc ? err.msg : "");
	}
	printf("ready\n");
	fflush(stdout);
	while (gh_oom_watch__count(w) && now_s() < end)
		if (gh_oom_watch__poll(w, 100, &err) < 0) {
			fprintf(stderr, "oomcatch: %s\n", err.msg);
			gh_oom_watch__free(w);
			return 1;
		}
	gh_oom_watch__free(w);
	return 0;
}
