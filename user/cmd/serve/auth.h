/* auth.h - the server's optional bearer token (--token-file): loaded once,
 * and compared with a request's Authorization header in time that does
 * not depend on where the two differ. */
#ifndef GH_CMD_AUTH_H
#define GH_CMD_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#define AUTH_TOKEN_MAX 4096

struct token {
	char v[AUTH_TOKEN_MAX];
	size_t n;
};

/* The token in the file at path: its content less one trailing newline
 * (LF or CRLF); 1 to AUTH_TOKEN_MAX bytes, each visible ASCII (what a
 * header's token68 may hold). 0, or -1 with a one-line reason in why. */
int auth_load(const char *path, struct token *t, char *why, size_t size);

/* Does the header value h ("Bearer <token>", scheme in any case; NULL when
 * the request has none) carry t? The time taken depends on t's length
 * only. */
bool auth_ok(const struct token *t, const char *h);

#endif
