/* trigger.c - the triggers' state machine for one watched process (see
 * trigger.h): thresholds on RSS, on cgroup usage and on the goroutine
 * count, growth within a
 * window, pressure events, a period, the cooldown that spaces snapshots,
 * and the at-peak maximum. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "watch/trigger.h"

void trig_init(struct trig_state *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < TRIG_RUNTIMES; i++)
		s->peak[i] = -1;
}

static double mib(uint64_t b)
{
	return (double)b / (1 << 20);
}

/* Keep (ms, rss); drop what fell out of the window. */
static void ring_add(struct trig_state *s, uint64_t ms, uint64_t rss,
		     uint64_t window_ms)
{
	size_t tail;

	if (s->n == TRIG_RING) {
		s->head = (s->head + 1) % TRIG_RING;
		s->n--;
	}
	tail = (s->head + s->n) % TRIG_RING;
	s->ring[tail].ms = ms;
	s->ring[tail].rss = rss;
	s->n++;
	while (s->n > 1 && ms - s->ring[s->head].ms > window_ms) {
		s->head = (s->head + 1) % TRIG_RING;
		s->n--;
	}
}

/* The lowest RSS within the window. */
static uint64_t ring_min(const struct trig_state *s)
{
	uint64_t m = UINT64_MAX;

	for (size_t i = 0; i < s->n; i++) {
		uint64_t v = s->ring[(s->head + i) % TRIG_RING].rss;

		m = v < m ? v : m;
	}
	return m;
}

static bool cgroup_above(const struct gh_watch_opts *w,
			 const struct trig_obs *o)
{
	return w->cgroup_above > 0 && o->cgroup_limit != UINT64_MAX &&
	       o->cgroup_limit &&
	       (double)o->cgroup_usage >=
		       (double)o->cgroup_limit * w->cgroup_above / 100;
}

/* What holds now, before the cooldown and edges are applied. */
static unsigned conditions(struct trig_state *s, const struct gh_watch_opts *w,
			   const struct trig_obs *o)
{
	unsigned c = 0;

	if (w->rss_above && o->rss > w->rss_above)
		c |= TRIG_RSS;
	if (cgroup_above(w, o))
		c |= TRIG_CGROUP;
	if (w->goroutines_above && o->has_goroutines &&
	    o->goroutines > w->goroutines_above)
		c |= TRIG_GOROUTINES;
	if (o->pressure)
		c |= TRIG_PRESSURE;
	if (w->growth_bytes && o->rss) {
		ring_add(s, o->now_ms, o->rss, w->growth_window_ms);
		if (o->rss - ring_min(s) >= w->growth_bytes)
			c |= TRIG_GROWTH;
	}
	if (w->every_ms && o->now_ms >= s->next_every_ms)
		c |= TRIG_EVERY;
	return c;
}

static void describe(unsigned fired, const struct gh_watch_opts *w,
		     const struct trig_state *s, const struct trig_obs *o,
		     char *why, size_t size)
{
	if (fired & TRIG_CGROUP)
		snprintf(why, size,
			 "cgroup usage %.1fMiB reached %g%% of its limit "
			 "%.1fMiB",
			 mib(o->cgroup_usage), w->cgroup_above,
			 mib(o->cgroup_limit));
	else if (fired & TRIG_RSS)
		snprintf(why, size, "RSS %.1fMiB went above %.1fMiB",
			 mib(o->rss), mib(w->rss_above));
	else if (fired & TRIG_PRESSURE)
		snprintf(why, size, "memory pressure reached %s",
			 w->pressure ? w->pressure : "its trigger");
	else if (fired & TRIG_GROWTH)
		snprintf(why, size,
			 "RSS grew %.1fMiB (from %.1fMiB to %.1fMiB) within "
			 "%" PRIu64 "ms, at least %.1fMiB",
			 mib(o->rss - ring_min(s)), mib(ring_min(s)),
			 mib(o->rss), w->growth_window_ms,
			 mib(w->growth_bytes));
	else if (fired & TRIG_EVERY)
		snprintf(why, size, "every %" PRIu64 "ms", w->every_ms);
	else if (fired & TRIG_GOROUTINES)
		snprintf(why, size,
			 "goroutines %" PRIu64 " went above %" PRIu64,
			 o->goroutines, w->goroutines_above);
}

unsigned trig_check(struct trig_state *s, const struct gh_watch_opts *w,
		    const struct trig_obs *o, char *why, size_t size)
{
	unsigned c, fired;
	bool cooling;

	if (!s->started) {
		s->started = true;
		s->next_every_ms = o->now_ms + w->every_ms;
	}
	c = conditions(s, w, o);
	/* a condition that stopped holding may fire again */
	if (!(c & TRIG_RSS))
		s->rss_fired = false;
	if (!(c & TRIG_CGROUP))
		s->cgroup_fired = false;
	/* a count not read (a failed read) is no crossing back */
	if (!(c & TRIG_GOROUTINES) && o->has_goroutines)
		s->goroutines_fired = false;
	fired = c & ~((s->rss_fired ? TRIG_RSS : 0u) |
		      (s->cgroup_fired ? TRIG_CGROUP : 0u) |
		      (s->goroutines_fired ? TRIG_GOROUTINES : 0u));
	/* held back: a condition that holds is looked at again (pending);
	 * a pressure event is gone */
	cooling = s->wrote && o->now_ms - s->last_write_ms < w->cooldown_ms;
	s->pending = cooling && (fired & ~(unsigned)TRIG_PRESSURE);
	if (cooling)
		fired = 0;
	if (fired && why && size)
		describe(fired, w, s, o, why, size);
	return fired;
}

void trig_wrote(struct trig_state *s, const struct gh_watch_opts *w,
		unsigned fired, uint64_t now_ms)
{
	s->wrote = true;
	s->last_write_ms = now_ms;
	if (fired & TRIG_RSS)
		s->rss_fired = true;
	if (fired & TRIG_CGROUP)
		s->cgroup_fired = true;
	if (fired & TRIG_GOROUTINES)
		s->goroutines_fired = true;
	if (fired & TRIG_GROWTH)
		s->n = 0; /* the next growth is counted from here */
	if (fired & TRIG_EVERY)
		s->next_every_ms = now_ms + w->every_ms;
}

bool trig_peak(const struct trig_state *s, size_t rt, int64_t inuse)
{
	return rt >= 1 && rt <= TRIG_RUNTIMES && inuse > s->peak[rt - 1];
}

void trig_peak_wrote(struct trig_state *s, size_t rt, int64_t inuse)
{
	if (trig_peak(s, rt, inuse))
		s->peak[rt - 1] = inuse;
}

const char *gh_trigger__name(enum gh_trigger t)
{
	static const char *const names[] = {
		"cgroup-above", "rss-above", "pressure", "growth",
		"every",	"at-peak",   "oom",	 "goroutines-above"};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : NULL;
}
