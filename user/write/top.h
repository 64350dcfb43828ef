/* top.h - what other writers take from the top table (top.c): its way of
 * printing a value. */
#ifndef GH_WRITE_TOP_H
#define GH_WRITE_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* v as go tool pprof prints it (measurement.ScaledLabel): bytes in the
 * largest unit that keeps it at least 1 ("10.50MB"), a count as is; ".00"
 * dropped, "0" for zero. */
void top_value(int64_t v, bool bytes, char *buf, size_t len);

#endif
