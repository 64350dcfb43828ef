/* measure.h - values as go tool pprof prints them (its
 * internal/measurement): bytes scaled to a unit, counts as they are,
 * percentages, durations; for the top table and the diff's growth
 * table. */
#ifndef GH_WRITE_MEASURE_H
#define GH_WRITE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct measure_unit;

/* How a table prints its values: in bytes (to: one unit for all, NULL:
 * each scaled by itself), in time units when nanos (a block or mutex
 * profile's delay), else as plain counts. */
struct measure_fmt {
	bool bytes;
	const struct measure_unit *to;
	bool nanos;
};

/* |v|, wrapping as pprof's abs64 does: INT64_MIN stays itself, not
 * undefined behaviour. */
static inline int64_t measure_abs64(int64_t v)
{
	return v < 0 ? (int64_t)(0 - (uint64_t)v) : v;
}

/* v as fm says (ScaledLabel): "%.2f" in the unit, ".00" dropped, "0" for
 * zero. */
void measure_fmt__value(const struct measure_fmt *fm, int64_t v, char *buf,
			size_t len);

/* selectOutputUnit: one unit for a table whose smallest value is min (0:
 * none) and whose total is max: min's, or that of 100 times min when the
 * total is more than 100 times bigger and in another unit. */
void measure_fmt__choose(struct measure_fmt *fm, int64_t min, int64_t max);

/* v as go tool pprof prints it (measurement.ScaledLabel): bytes in the
 * largest unit that keeps it at least 1 ("10.50MB"), a count as is; ".00"
 * dropped, "0" for zero. */
void measure_value(int64_t v, bool bytes, char *buf, size_t len);

/* measurement.Percentage of v in total, with its 6-column padding. */
void measure_pct(int64_t v, int64_t total, char *buf, size_t len);

/* A duration in nanoseconds as Label scales it ("auto"). */
void measure_duration(int64_t nanos, char *buf, size_t len);

#endif
