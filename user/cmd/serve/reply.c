/* reply.c - building an HTTP answer in memory (reply.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/serve/reply.h"

void reply__header(struct reply *r, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *v;

	if (r->nh == REPLY_HEADERS)
		return;
	v = r->h[r->nh].value;
	va_start(ap, fmt);
	vsnprintf(v, REPLY_VALUE_MAX, fmt, ap);
	va_end(ap);
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			*v = ' ';
	r->h[r->nh++].name = name;
}

void reply__text(struct reply *r, int status, const char *fmt, ...)
{
	va_list ap;
	int n;

	free(r->body);
	r->body = NULL;
	r->len = 0;
	r->status = status;
	r->type = "text/plain; charset=utf-8";
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(r->body = malloc((size_t)n + 2)))
		return;
	va_start(ap, fmt);
	vsnprintf(r->body, (size_t)n + 1, fmt, ap);
	va_end(ap);
	r->body[n] = '\n';
	r->len = (size_t)n + 1;
}

FILE *reply__open(struct reply *r)
{
	FILE *f;

	free(r->body);
	r->body = NULL;
	r->len = 0;
	f = open_memstream(&r->body, &r->len);
	if (!f)
		reply__text(r, 500, "out of memory for the response");
	return f;
}

void reply__close(struct reply *r, FILE *f, int status, const char *type)
{
	bool bad = ferror(f);

	if (fclose(f) || bad) {
		reply__text(r, 500, "out of memory for the response");
		return;
	}
	r->status = status;
	r->type = type;
}

void reply__free(struct reply *r)
{
	free(r->body);
	r->body = NULL;
}
