/* auth.c - the bearer token: loaded from its file, compared in constant
 * time (auth.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd/serve/auth.h"

int auth_load(const char *path, struct token *t, char *why, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n, i;
	int c;

	if (!f) {
		snprintf(why, size,
			 "cannot read --token-file %s: %s; give a file this "
			 "user can read, holding the token",
			 path, strerror(errno));
		return -1;
	}
	n = fread(t->v, 1, sizeof(t->v), f);
	c = fgetc(f);
	fclose(f);
	if (n && t->v[n - 1] == '\n')
		n--;
	if (n && t->v[n - 1] == '\r')
		n--;
	if (c != EOF || !n) {
		snprintf(why, size,
			 "--token-file %s holds %s token: want 1 to %d bytes "
			 "on one line",
			 path, n ? "too long a" : "no", AUTH_TOKEN_MAX - 2);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (t->v[i] <= ' ' || t->v[i] > '~') {
			snprintf(why, size,
				 "--token-file %s: the token holds a space or "
				 "a byte that is not visible ASCII (at byte "
				 "%zu); a bearer token may not",
				 path, i + 1);
			return -1;
		}
	t->n = n;
	return 0;
}

bool auth_ok(const struct token *t, const char *h)
{
	volatile unsigned char d;
	size_t n, i;

	if (!h || strncasecmp(h, "Bearer ", 7))
		return false;
	for (h += 7; *h == ' '; h++)
		;
	n = strnlen(h, AUTH_TOKEN_MAX + 1);
	d = n != t->n;
	for (i = 0; i < t->n; i++)
		d |= (unsigned char)(t->v[i] ^ (i < n ? h[i] : 0));
	return d == 0;
}
