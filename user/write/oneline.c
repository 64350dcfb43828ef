/* oneline.c - JSON Lines from an indented JSON document: a cookie stream
 * (fopencookie) that drops each newline and the spaces after it. */
#include <stdbool.h>
#include <stdlib.h>

#include "write/oneline.h"

struct oneline {
	FILE *f;
	bool indent; /* after a newline: spaces are indentation */
};

static ssize_t oneline_write(void *cookie, const char *buf, size_t n)
{
	struct oneline *o = cookie;
	size_t i, from = 0;

	for (i = 0; i < n; i++) {
		bool drop = buf[i] == '\n' || (o->indent && buf[i] == ' ');

		o->indent = buf[i] == '\n' || (o->indent && buf[i] == ' ');
		if (!drop)
			continue;
		if (i > from &&
		    fwrite(buf + from, 1, i - from, o->f) != i - from)
			return -1;
		from = i + 1;
	}
	if (n > from && fwrite(buf + from, 1, n - from, o->f) != n - from)
		return -1;
	return (ssize_t)n;
}

static int oneline_close(void *cookie)
{
	struct oneline *o = cookie;
	int rc = ferror(o->f) ? -1 : 0;

	free(o);
	return rc;
}

FILE *oneline_open(FILE *f)
{
	cookie_io_functions_t io = {.write = oneline_write,
				    .close = oneline_close};
	struct oneline *o = calloc(1, sizeof(*o));
	FILE *s;

	if (!o)
		return NULL;
	o->f = f;
	s = fopencookie(o, "w", io);
	if (!s)
		free(o);
	return s;
}
