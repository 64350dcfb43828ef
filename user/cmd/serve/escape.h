/* escape.h - text from processes (names, paths, cgroups: any bytes a
 * local user chose) and from clients (request targets, methods), made
 * safe for each place the server writes it: HTML, a Prometheus label
 * value, a log line. A JSON string is the library's gh_json__quote, the
 * one escaper of every JSON document. Every writer but the log's turns
 * bytes that are not valid UTF-8 into U+FFFD, one per byte, as Go's
 * encoding/json does. */
#ifndef GH_CMD_ESCAPE_H
#define GH_CMD_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The length (1 to 4) of the valid UTF-8 sequence at s[0..n) (n >= 1),
 * its code point in *cp; 0 when s does not start with one (a stray or
 * missing continuation byte, an overlong form, a surrogate, past
 * U+10FFFF). */
size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

/* s as HTML text or a quoted attribute value: & < > " ' as entities,
 * control characters (but tab and newline) as U+FFFD. */
void esc_html(FILE *f, const char *s);
/* s as a Prometheus text-format label value, without its quotes: \ " and
 * newline escaped. */
void esc_label(FILE *f, const char *s);
/* s[0..n) for a log line, into out (NUL-terminated, size >= 8): printable
 * ASCII as it is but \ and ", every other byte as \xHH; cut with "..."
 * when it does not fit. Returns out. */
char *esc_log(char *out, size_t size, const char *s, size_t n);

#endif
