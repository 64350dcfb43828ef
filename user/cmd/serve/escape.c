/* escape.c - text made safe for HTML, Prometheus labels and log lines
 * (escape.h). */
#include <stdbool.h>
#include <string.h>

#include "cmd/serve/escape.h"

size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c = s[0], min;
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Each character of s to put (one code point, or U+FFFD for a byte that
 * starts none), with the bytes that spell it. */
typedef void (*put_fn)(FILE *f, uint32_t cp, const unsigned char *at,
		       size_t len);

static void walk(FILE *f, const char *s, put_fn put)
{
	static const unsigned char replacement[] = "\xef\xbf\xbd";
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), len;
	uint32_t cp;

	while (n) {
		len = utf8_next(p, n, &cp);
		if (len)
			put(f, cp, p, len);
		else
			put(f, 0xfffd, replacement, 3);
		len = len ? len : 1;
		p += len;
		n -= len;
	}
}

static void put_html(FILE *f, uint32_t cp, const unsigned char *at, size_t len)
{
	switch (cp) {
	case '&':
		fputs("&amp;", f);
		return;
	case '<':
		fputs("&lt;", f);
		return;
	case '>':
		fputs("&gt;", f);
		return;
	case '"':
		fputs("&quot;", f);
		return;
	case '\'':
		fputs("&#39;", f);
		return;
	}
	if ((cp < 0x20 && cp != '\t' && cp != '\n') ||
	    (cp >= 0x7f && cp < 0xa0))
		fputs("\xef\xbf\xbd", f);
	else
		fwrite(at, 1, len, f);
}

void esc_html(FILE *f, const char *s)
{
	walk(f, s, put_html);
}

static void put_label(FILE *f, uint32_t cp, const unsigned char *at, size_t len)
{
	if (cp == '\\' || cp == '"')
		fprintf(f, "\\%c", (char)cp);
	else if (cp == '\n')
		fputs("\\n", f);
	else
		fwrite(at, 1, len, f);
}

void esc_label(FILE *f, const char *s)
{
	walk(f, s, put_label);
}

char *esc_log(char *out, size_t size, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool plain = c >= 0x20 && c < 0x7f && c != '\\' && c != '"';

		/* room for this byte's 4 and the 3 dots and NUL after it */
		if (o + (plain ? 1 : 4) + 4 > size) {
			memcpy(out + o, "...", 4);
			return out;
		}
		if (plain) {
			out[o++] = (char)c;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	out[o] = '\0';
	return out;
}
