/* watch.h - a watch's insides, shared by watch.c (the loop: events,
 * triggers, snapshots) and watchscan.c (which processes, which event
 * sources). */
#ifndef GH_COLLECT_WATCH_H
#define GH_COLLECT_WATCH_H

#include <signal.h>

#include "collect/collector.h"
#include "collect/trigger.h"
#include "proc/memevent.h"
#include "proc/memstat.h"
#include "write/watchdir.h"

/* A watched process. */
struct wproc {
	int pid;
	uint64_t start; /* with pid, its identity */
	bool seen;	/* found by the scan under way */
	struct trig_state ts;
	int src_cgroup;	    /* its threshold source, or -1 */
	int src_psi;	    /* its pressure source, or -1 */
	bool told_no_limit; /* that --cgroup-above cannot apply to it */
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
	struct gh_watch_opts o;
	struct psi_spec psi;
	struct memcg_roots roots; /* the cgroup mounts, found once */
	struct watchdir *dir;
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

/* Milliseconds of CLOCK_MONOTONIC; nanoseconds of the wall clock. */
uint64_t watch_now_ms(void);
int64_t watch_wall_ns(void);

/* Find the processes again, and their event sources. Named processes
 * that cannot be watched fail the first scan (first). */
int watch_scan(struct gh_watch *w, bool first, struct gh_err *err);

/* The system's pressure source, opened first (KERNEL: no PSI). */
int watch_open_psi(struct gh_watch *w, struct gh_err *err);

#endif
