/* watchstate.h - a watch's insides: its processes, its event sources and
 * struct gh_watch, the state that watchloop.c (the loop: events,
 * triggers), watchsnap.c (the snapshots taken and written), watchscan.c
 * (which processes, which event sources) and oomtrigger.c (the OOM
 * trigger) share, and its clock; each file's functions are declared in
 * its own header. */
#ifndef GH_WATCH_WATCHSTATE_H
#define GH_WATCH_WATCHSTATE_H

#include <signal.h>

#include "base/clock.h"
#include "collect/collector.h"
#include "watch/leaks.h"
#include "watch/memevent.h"
#include "watch/memstat.h"
#include "watch/trigger.h"
#include "watch/watchdir.h"

/* A watched process. */
struct wproc {
	int pid;
	uint64_t start; /* with pid, its identity */
	bool seen;	/* found by the scan under way */
	struct trig_state ts;
	int src_cgroup;		 /* its threshold source, or -1 */
	int src_psi;		 /* its pressure source, or -1 */
	bool told_no_limit;	 /* that --cgroup-above cannot apply to it */
	bool told_no_goroutines; /* that its goroutines cannot be counted */
	bool oom_tried;		 /* given to the OOM watch (taken or refused) */
	/* its likely leaks' series, by runtime (made at its first
	 * snapshot) */
	struct leak_series *leaks[TRIG_RUNTIMES];
};

/* A process found not to be Go, not opened again while it lives. */
struct wskip {
	int pid;
	uint64_t start;
};

/* An event source: a v1 threshold on a cgroup, or a PSI trigger. */
struct wsrc {
	char path[GH_PATH_MAX]; /* the cgroup directory, or pressure file;
				   "": a free slot */
	bool psi;
	int fd;
	uint64_t limit; /* the cgroup's limit when registered */
	bool fired;	/* in the step under way */
	bool fresh;	/* registered since the last wait: the crossing it waits
			   for may be behind already, so look once */
};

struct gh_watch {
	struct gh_collector *c;
	struct gh_watch_opts o;	 /* the caller's, by its sz; select and
				    bounds point to the copies below */
	struct gh_select select; /* the caller's, by its sz */
	struct gh_bounds bounds;
	struct psi_spec psi;
	struct memcg_roots roots; /* the cgroup mounts, found once */
	struct watchdir *dir;
	struct gh_oom_watch *oom; /* NULL: no OOM trigger */
	struct wproc *p;
	size_t np, capp;
	struct wskip *skip;
	size_t nskip;
	struct wsrc *src;
	size_t nsrc, capsrc;
	bool named; /* --pid: the processes are named, not looked for */
	uint64_t next_tick_ms;
	volatile sig_atomic_t rescan, stop;
};

/* Milliseconds of CLOCK_MONOTONIC, as a watch's deadlines count them. */
static inline uint64_t watch_now_ms(void)
{
	return clock_mono_ns() / 1000000;
}

#endif
