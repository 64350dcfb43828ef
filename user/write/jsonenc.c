/* jsonenc.c - see jsonenc.h. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "write/jsonenc.h"

/* Length of the valid UTF-8 sequence at s, 0 if s does not start one.
 * Never reads past a NUL: each byte is checked before the next is read. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		/* No overlong forms (E0 80..9F), no surrogates (ED A0..BF). */
		if (s[0] == 0xe0)
			lo = 0xa0;
		if (s[0] == 0xed)
			hi = 0x9f;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		/* No overlong forms (F0 80..8F), nothing past U+10FFFF. */
		if (s[0] == 0xf0)
			lo = 0x90;
		if (s[0] == 0xf4)
			hi = 0x8f;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

static const char *short_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	}
	return NULL;
}

/* < > & go out as \u escapes, as Go's encoding/json writes them by
 * default, so that a document is safe inside HTML too (the server embeds
 * its strings). */
static bool html_special(unsigned char c)
{
	return c == '<' || c == '>' || c == '&';
}

/* Bytes at s that go out as they are: valid UTF-8, no control character,
 * quote, backslash or < > &, no U+2028/U+2029. */
static size_t plain_run(const unsigned char *s)
{
	size_t len = 0, n;

	while (s[len] >= 0x20 && !short_escape(s[len]) &&
	       !html_special(s[len]) && (n = utf8_len(s + len)) &&
	       !(n == 3 && s[len] == 0xe2 && s[len + 1] == 0x80 &&
		 (s[len + 2] == 0xa8 || s[len + 2] == 0xa9)))
		len += n;
	return len;
}

/* Plain runs go out in one write: a large profile's JSON runs to hundreds
 * of MB. */
void jsonenc_escaped(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n = plain_run(s);
		const char *esc;

		if (n) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		n = utf8_len(s);
		esc = short_escape(*s);
		if (!n) {
			fputs("\xef\xbf\xbd", f); /* U+FFFD for a bad byte */
			n = 1;
		} else if (esc) {
			fputs(esc, f);
		} else if (*s < 0x20 || html_special(*s)) {
			fprintf(f, "\\u%04x", *s);
		} else {
			/* U+2028 or U+2029 */
			fprintf(f, "\\u%04x", s[2] == 0xa8 ? 0x2028 : 0x2029);
		}
		s += n;
	}
}

void gh_json__quote(FILE *f, const char *s)
{
	fputc('"', f);
	jsonenc_escaped(f, s);
	fputc('"', f);
}

void jsonenc_double(FILE *f, double x)
{
	bool plain = x == 0 || (fabs(x) >= 1e-6 && fabs(x) < 1e21);
	int prec, max = plain ? 30 : 17;
	char buf[128];

	for (prec = plain ? 0 : 1; prec <= max; prec++) {
		snprintf(buf, sizeof(buf), plain ? "%.*f" : "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	fputs(buf, f);
}
