/* clock.h - the wall clock as profiles and events carry it. */
#ifndef GH_BASE_CLOCK_H
#define GH_BASE_CLOCK_H

#include <stdint.h>

/* Now, in nanoseconds since the Unix epoch (CLOCK_REALTIME). */
int64_t clock_wall_ns(void);

#endif
