/* query.h - a request's query string, read as Go's net/http reads it for
 * net/http/pprof (url.ParseQuery, Request.FormValue, strconv.Atoi and
 * ParseInt), so that ?seconds=, ?debug= and ?gc= mean to the server what
 * they mean to the target's own /debug/pprof/heap, malformed ones
 * included. Pure functions over the bytes given, for the fuzzer. */
#ifndef GH_CMD_QUERY_H
#define GH_CMD_QUERY_H

#include <stddef.h>
#include <stdint.h>

/* The first value of key in the raw query q[0..n) (after the '?'),
 * decoded ('+' as space, %XX) into buf, which must hold n bytes: its
 * length, or -1 when no pair names key. As url.ParseQuery, pairs are
 * split at '&'; a pair holding ';' or a bad %-escape is skipped; a pair
 * without '=' has the empty value. */
long query_value(const char *q, size_t n, const char *key, char *buf);

/* The value of a hexadecimal digit (either case), or -1. */
int hex_digit(char c);

/* Go's strconv.ParseInt(s, 10, 64) on s[0..n) (which may hold NULs):
 * 0 with *v; -1 for a syntax error (*v = 0); 1 for a value out of range
 * (*v clamped to INT64_MIN or INT64_MAX, as Go returns it). Atoi is the
 * same on 64-bit. */
int go_parse_int(const char *s, size_t n, int64_t *v);

#endif
