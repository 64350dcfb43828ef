/* query.c - query strings and integers as Go reads them (query.h). */
#include <stdbool.h>
#include <string.h>

#include "cmd/serve/query.h"

int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* url.QueryUnescape of s[0..n) into out: its length, or -1 for a bad
 * escape. */
static long unescape(const char *s, size_t n, char *out)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '+') {
			out[o++] = ' ';
		} else if (s[i] != '%') {
			out[o++] = s[i];
		} else {
			int hi, lo;

			if (i + 2 >= n)
				return -1;
			hi = hex_digit(s[i + 1]);
			lo = hex_digit(s[i + 2]);
			if (hi < 0 || lo < 0)
				return -1;
			out[o++] = (char)(hi << 4 | lo);
			i += 2;
		}
	}
	return (long)o;
}

long query_value(const char *q, size_t n, const char *key, char *buf)
{
	size_t klen = strlen(key);
	const char *end = q + n, *pair, *amp, *eq;
	long k;

	for (pair = q; pair < end; pair = amp + 1) {
		amp = memchr(pair, '&', (size_t)(end - pair));
		if (!amp)
			amp = end;
		if (amp == pair || memchr(pair, ';', (size_t)(amp - pair)))
			continue;
		eq = memchr(pair, '=', (size_t)(amp - pair));
		if (!eq)
			eq = amp;
		k = unescape(pair, (size_t)(eq - pair), buf);
		if (k != (long)klen || memcmp(buf, key, klen))
			continue;
		if (eq == amp)
			return 0;
		k = unescape(eq + 1, (size_t)(amp - eq - 1), buf);
		if (k >= 0)
			return k;
	}
	return -1;
}

int go_parse_int(const char *s, size_t n, int64_t *v)
{
	const uint64_t cutoff = (uint64_t)1 << 63;
	uint64_t u = 0;
	bool neg = false;
	size_t i = 0;

	*v = 0;
	if (n && (s[0] == '+' || s[0] == '-')) {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == n)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		/* As ParseUint: an overflow ends the parse at once, whatever
		 * follows. */
		if (u > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10) {
			*v = neg ? INT64_MIN : INT64_MAX;
			return 1;
		}
		u = u * 10 + (uint64_t)(s[i] - '0');
	}
	if (!neg && u >= cutoff) {
		*v = INT64_MAX;
		return 1;
	}
	if (neg && u > cutoff) {
		*v = INT64_MIN;
		return 1;
	}
	*v = neg && u ? -(int64_t)(u - 1) - 1 : (int64_t)u;
	return 0;
}
