/* trigger.h - when a watched process gets a snapshot: the triggers'
 * state for one process, fed what was observed and when, with no clock,
 * file or process of its own (so that tests drive it). */
#ifndef GH_WATCH_TRIGGER_H
#define GH_WATCH_TRIGGER_H

#include "goheap.h"

/* Triggers, as bits of what fired; the first set names a snapshot. */
enum {
	TRIG_CGROUP = 1 << GH_TRIGGER_CGROUP,
	TRIG_RSS = 1 << GH_TRIGGER_RSS,
	TRIG_PRESSURE = 1 << GH_TRIGGER_PRESSURE,
	TRIG_GROWTH = 1 << GH_TRIGGER_GROWTH,
	TRIG_EVERY = 1 << GH_TRIGGER_EVERY,
	TRIG_GOROUTINES = 1 << GH_TRIGGER_GOROUTINES,
};

/* RSS samples a growth window keeps (the oldest dropped beyond). */
#define TRIG_RING 256
/* Go runtimes of a process whose at-peak maxima are kept apart. */
#define TRIG_RUNTIMES 8

struct trig_obs {
	uint64_t now_ms;		     /* monotonic */
	uint64_t rss;			     /* 0: not read */
	uint64_t cgroup_usage, cgroup_limit; /* limit UINT64_MAX: none */
	bool pressure;			     /* a PSI event came */
	bool has_goroutines;		     /* goroutines was read */
	uint64_t goroutines;		     /* runtime.NumGoroutine() */
};

struct trig_state {
	bool started;
	bool rss_fired, cgroup_fired; /* above, and already snapshot */
	bool goroutines_fired;
	bool wrote;
	bool pending; /* a condition held back by the cooldown: look again,
			 even where only events would say */
	uint64_t last_write_ms, next_every_ms;
	struct {
		uint64_t ms, rss;
	} ring[TRIG_RING];
	size_t head, n;
	int64_t peak[TRIG_RUNTIMES]; /* at-peak maxima written, by runtime
					 - 1; -1: none */
};

void trig_init(struct trig_state *s);

/* The triggers that fire now (TRIG_* bits; 0: none), given o: each
 * condition is edge-triggered (fires once when it starts to hold, again
 * only after it stopped holding), except pressure (each event) and
 * every (each period); within the cooldown after a snapshot none fires,
 * and a crossing met then fires when the cooldown ends if it still holds
 * (pending says to look again; a pressure event within it is dropped).
 * why: what crossed what, for the first one. */
unsigned trig_check(struct trig_state *s, const struct gh_watch_opts *w,
		    const struct trig_obs *o, char *why, size_t size);

/* A snapshot of those triggers was written at now_ms. */
void trig_wrote(struct trig_state *s, const struct gh_watch_opts *w,
		unsigned fired, uint64_t now_ms);

/* At-peak: would inuse, the in-use bytes of Go runtime rt (from 1), be a
 * new maximum? Never for runtimes past TRIG_RUNTIMES. */
bool trig_peak(const struct trig_state *s, size_t rt, int64_t inuse);
/* Its snapshot was written: inuse is runtime rt's maximum now. */
void trig_peak_wrote(struct trig_state *s, size_t rt, int64_t inuse);

#endif
