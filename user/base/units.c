/* units.c - sizes and durations in the spellings of the watch's flags and
 * trigger specs. strtod reads the number, so "1.5G" works; everything
 * after it must be a known unit, nothing else (no spaces, no sign). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/units.h"
#include "goheap.h"

/* A non-negative decimal number at the start of s (no sign, no hex, no
 * inf/nan: strtod takes all of those); *end after it. */
static int number(const char *s, double *v, const char **end)
{
	char *e;

	if (!isdigit((unsigned char)s[0]) && s[0] != '.')
		return -1;
	for (const char *p = s; *p && p - s < 64; p++)
		if (*p == 'x' || *p == 'X' || *p == 'p' || *p == 'P')
			return -1;
	errno = 0;
	*v = strtod(s, &e);
	if (errno || e == s || *v <= 0)
		return -1;
	*end = e;
	return 0;
}

int units_size(const char *s, uint64_t *bytes)
{
	static const char units[] = "kmgt";
	const char *end, *u;
	double v, mul = 1;

	if (!s || number(s, &v, &end))
		return -1;
	if (*end && (u = strchr(units, tolower((unsigned char)*end)))) {
		for (const char *k = units; k <= u; k++)
			mul *= 1024;
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -1;
	v *= mul;
	if (v < 1 || v > (double)UNITS_SIZE_MAX)
		return -1;
	*bytes = (uint64_t)v;
	return 0;
}

int units_duration_us(const char *s, uint64_t *us)
{
	static const struct {
		const char *name;
		double us;
	} units[] = {{"us", 1},	  {"ms", 1e3},	 {"s", 1e6},
		     {"m", 60e6}, {"h", 3600e6}, {"", 1e6}};
	const char *end;
	double v;

	if (!s || number(s, &v, &end))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].name))
			continue;
		v *= units[i].us;
		if (v < 1 || v > (double)UNITS_DURATION_MAX)
			return -1;
		*us = (uint64_t)v;
		return 0;
	}
	return -1;
}

int gh_size__parse(const char *s, uint64_t *bytes)
{
	return units_size(s, bytes);
}

int gh_duration__parse(const char *s, uint64_t *ms)
{
	uint64_t us;

	if (units_duration_us(s, &us) || us < 1000)
		return -1;
	*ms = us / 1000;
	return 0;
}
