/* reply.h - an HTTP answer being built, apart from libmicrohttpd: its
 * status, content type, extra headers and a body in memory. http.c sends
 * it. */
#ifndef GH_CMD_REPLY_H
#define GH_CMD_REPLY_H

#include <stddef.h>
#include <stdio.h>

#define REPLY_HEADERS	6
#define REPLY_VALUE_MAX 256

struct reply {
	int status; /* 0: none yet */
	const char *type;
	char *body; /* malloc'd */
	size_t len;
	struct {
		const char *name;
		char value[REPLY_VALUE_MAX];
	} h[REPLY_HEADERS];
	size_t nh;
};

/* Add a header (name static; the value cut to fit, and never holding a
 * control character: every one becomes a space). */
void reply__header(struct reply *r, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* status with a one-line text/plain body (the line and "\n"). */
void reply__text(struct reply *r, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A body to write into (NULL when out of memory: then r is a 500). */
FILE *reply__open(struct reply *r);
/* The body written into f is r's, with status and type; a write that
 * failed makes r a 500 instead. */
void reply__close(struct reply *r, FILE *f, int status, const char *type);
void reply__free(struct reply *r);

#endif
