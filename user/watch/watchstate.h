/* watchstate.h - a watch's insides, shared by watchloop.c (the loop: events,
 * triggers, snapshots), watchscan.c (which processes, which event
 * sources) and oomtrigger.c (the OOM trigger). */
#ifndef GH_WATCH_WATCHSTATE_H
#define GH_WATCH_WATCHSTATE_H

#include <signal.h>

#include "collect/collector.h"
#include "watch/leaks.h"
#include "watch/trigger.h"
#include "watch/memevent.h"
#include "watch/memstat.h"
#include "watch/watchdir.h"

/* A watched process. */
struct wproc {
	int pid;
	uint64_t start; /* with pid, its identity */
	bool seen;	/* found by the scan under way */
	struct trig_state ts;
	int src_cgroup;	    /* its threshold source, or -1 */
	int src_psi;	    /* its pressure source, or -1 */
	bool told_no_limit; /* that --cgroup-above cannot apply to it */
	bool oom_tried;	    /* given to the OOM watch (taken or refused) */
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
	struct gh_watch_opts o;
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

/* Milliseconds of CLOCK_MONOTONIC. */
uint64_t watch_now_ms(void);

/* Find the processes again, and their event sources. Named processes
 * that cannot be watched fail the first scan (first). */
int watch_scan(struct gh_watch *w, bool first, struct gh_err *err);

/* The system's pressure source, opened first (KERNEL: no PSI). */
int watch_open_psi(struct gh_watch *w, struct gh_err *err);

/* The memory pressure felt in a memory cgroup (version, dir): its v2
 * memory.pressure, else the system's; "" without PSI. */
void watch_pressure(int version, const char *dir, char *buf, size_t size);

/* p is no longer watched: its leak series go. */
void watch_forget(struct gh_watch *w, struct wproc *p);

/* The OOM trigger (oomtrigger.c). Open its watch unless no_oom says not;
 * when it cannot be, fail if it is the only trigger (alone), else say
 * so once (problem, pid 0) and go on without it. */
int watch_oom_open(struct gh_watch *w, bool alone, struct gh_err *err);
/* Register p, newly watched (a refusal is said once; a PID still held by
 * an exited process's entry is tried again at the next scan). */
void watch_oom_add(struct gh_watch *w, struct wproc *p);
/* p is no longer watched: removed if it lives (a dead one may be a
 * victim the next poll hands over). */
void watch_oom_forget(struct gh_watch *w, const struct wproc *p);
/* The descriptor to poll for kills; -1 without the OOM trigger. */
int watch_oom_fd(const struct gh_watch *w);
/* Write the victims whose walks are over (recorded: the descriptor
 * polled readable, so drain walks under way for a while). */
int watch_oom_poll(struct gh_watch *w, bool recorded, struct gh_err *err);

#endif
