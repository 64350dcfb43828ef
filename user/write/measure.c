/* measure.c - see measure.h. */
#include <stdio.h>
#include <string.h>

#include "write/measure.h"

struct measure_unit {
	const char *name;
	double factor;
};

static const struct measure_unit byte_units[] = {
	{"B", 1},
	{"kB", 1024.0},
	{"MB", 1024.0 * 1024},
	{"GB", 1024.0 * 1024 * 1024},
	{"TB", 1024.0 * 1024 * 1024 * 1024},
	{"PB", 1024.0 * 1024 * 1024 * 1024 * 1024},
};

/* measurement's autoScale: the largest of n units that keeps v at
 * least 1 (the first when none does). */
static const struct measure_unit *scale_in(const struct measure_unit *units,
					   size_t n, int64_t v)
{
	const struct measure_unit *u = &units[0];

	for (size_t i = 0; i < n; i++)
		if ((double)measure_abs64(v) / units[i].factor >= 1.0)
			u = &units[i];
	return u;
}

static const struct measure_unit *auto_unit(int64_t v)
{
	return scale_in(byte_units, sizeof(byte_units) / sizeof(byte_units[0]),
			v);
}

static const struct measure_unit count_unit = {"", 1};

/* measurement's time units, as Label scales nanoseconds ("auto"). */
static const struct measure_unit time_units[] = {
	{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"hrs", 3.6e12},
};
#define NTIME (sizeof(time_units) / sizeof(time_units[0]))

static const struct measure_unit *unit_for(const struct measure_fmt *fm,
					   int64_t v)
{
	return fm->nanos ? scale_in(time_units, NTIME, v) : auto_unit(v);
}

/* ScaledLabel: "%.2f" in the unit, ".00" dropped, "0" for zero. */
static void scaled_label(int64_t v, const struct measure_unit *u, char *buf,
			 size_t len)
{
	size_t n;

	snprintf(buf, len, "%.2f", (double)v / u->factor);
	n = strlen(buf);
	if (n > 3 && strcmp(buf + n - 3, ".00") == 0)
		buf[n -= 3] = '\0';
	if (strcmp(buf, "0") == 0 || strcmp(buf, "-0") == 0)
		return;
	snprintf(buf + n, len - n, "%s", u->name);
}

void measure_fmt__value(const struct measure_fmt *fm, int64_t v, char *buf,
			size_t len)
{
	const struct measure_unit *u = fm->to ? fm->to : unit_for(fm, v);

	scaled_label(v, fm->bytes || fm->nanos ? u : &count_unit, buf, len);
}

void measure_duration(int64_t nanos, char *buf, size_t len)
{
	scaled_label(nanos, scale_in(time_units, NTIME, nanos), buf, len);
}

void measure_value(int64_t v, bool bytes, char *buf, size_t len)
{
	const struct measure_fmt fm = {.bytes = bytes};

	measure_fmt__value(&fm, v, buf, len);
}

void measure_pct(int64_t v, int64_t total, char *buf, size_t len)
{
	double r = total ? (double)v / (double)total : 0;

	r = (r < 0 ? -r : r) * 100;
	if (r >= 99.95 && r <= 100.05)
		snprintf(buf, len, "  100%%");
	else if (r >= 1.0)
		snprintf(buf, len, "%5.2f%%", r);
	else
		snprintf(buf, len, "%5.2g%%", r);
}

void measure_fmt__choose(struct measure_fmt *fm, int64_t min, int64_t max)
{
	const struct measure_unit *lo, *hi;

	if (!min)
		min = max;
	lo = unit_for(fm, min);
	hi = unit_for(fm, max);
	fm->to = lo != hi && min * 100 < max ? unit_for(fm, 100 * min) : lo;
}
