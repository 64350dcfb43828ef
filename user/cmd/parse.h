/* parse.h - the numbers and durations the command's flags take (flags.c,
 * and the server's, serveflags.c), parsed one way for both. */
#ifndef GH_CMD_PARSE_H
#define GH_CMD_PARSE_H

#include <stdint.h>

/* A decimal integer in [min, max], nothing after it; 0, or -1. */
int parse_long(const char *s, long min, long max, long *v);
/* "500ms", "2s", "1.5s", "1m" (a bare number is seconds), at most a day,
 * into milliseconds (at least 1); 0, or -1. */
int parse_duration(const char *s, uint64_t *ms);

#endif
