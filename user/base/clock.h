/* clock.h - the wall clock as profiles and events carry it, and the
 * monotonic clock every deadline, pace and age of the library is
 * measured on (one, so that they all compare). */
#ifndef GH_BASE_CLOCK_H
#define GH_BASE_CLOCK_H

#include <stdint.h>

/* Now, in nanoseconds since the Unix epoch (CLOCK_REALTIME). */
int64_t clock_wall_ns(void);
/* Now on CLOCK_MONOTONIC, in nanoseconds. */
uint64_t clock_mono_ns(void);
/* The same in milliseconds. */
double clock_mono_ms(void);

#endif
