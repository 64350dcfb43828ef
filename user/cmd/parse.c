/* parse.c - the flags' numbers and durations (parse.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/parse.h"

int parse_long(const char *s, long min, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return (errno || end == s || *end || *v < min || *v > max) ? -1 : 0;
}

int parse_duration(const char *s, uint64_t *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0)
		return -1;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m"))
		v *= 60;
	else if (*end && strcmp(end, "s"))
		return -1;
	if (v * 1000 > 86400000.0)
		return -1;
	*ms = v * 1000 < 1 ? 1 : (uint64_t)(v * 1000);
	return 0;
}
