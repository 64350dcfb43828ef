/* cmdclock.h - the command's clocks: monotonic nanoseconds for
 * deadlines, ages and progress (the server's, the sweep's progress line),
 * Unix seconds for what it reports. The library's (base/clock.h) is not
 * the command's to use: libgoheap exports only gh_* symbols. */
#ifndef GH_CMD_CMDCLOCK_H
#define GH_CMD_CMDCLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double now_unix(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
