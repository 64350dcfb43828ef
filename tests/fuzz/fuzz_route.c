/* fuzz_route.c - what `goheap-bpf serve` reads from a client before it
 * does anything: the request's method, raw target (path and query) and
 * Authorization header, to route__parse (user/cmd/serve/route.c, with
 * the query options read as Go reads them, query.c, and the token
 * compared, auth.c); and the escapers (escape.c) that put client and
 * process text into JSON, HTML, Prometheus labels and log lines.
 *
 * Input: byte 0 says what is set (bit 0 a token, bit 1 an Authorization
 * header, bits 2-3 the method: GET, HEAD, POST, or the first string);
 * then three NUL-terminated strings: the method, the Authorization value,
 * the token (its first AUTH_TOKEN_MAX bytes); the rest is the request
 * target, bytes as they come (NULs included), read through its length
 * only. Checked: the status is one route__parse may give, with a one-line
 * reason exactly when it is an error; an endpoint's PID and runtime are
 * in range; with a token, only /healthz passes without it; every
 * escaper's output is valid UTF-8 without the characters its place
 * forbids. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "cli/cli.h"
#include "cmd/serve/escape.h"
#include "cmd/serve/route.h"
#include "goheap.h"

static char *next_string(struct input *in)
{
	const uint8_t *p = in->p;
	size_t n = 0;
	char *s;

	while (n < in->n && p[n])
		n++;
	s = strndup((const char *)p, n);
	in->p += n < in->n ? n + 1 : n;
	in->n -= n < in->n ? n + 1 : n;
	if (!s)
		abort();
	return s;
}

static void check_route(const struct route_in *in, const struct route *r)
{
	static const int statuses[] = {0, 400, 401, 404, 405, 414};
	bool known = false;
	size_t n = strnlen(r->why, sizeof(r->why));

	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		known |= r->status == statuses[i];
	if (!known || n == sizeof(r->why) || !n != !r->status ||
	    strchr(r->why, '\n'))
		abort();
	if (r->status)
		return;
	if (route_is_profile(r->ep) &&
	    (r->pid < 1 || r->pid > ROUTE_PID_MAX ||
	     r->runtime > ROUTE_RUNTIME_MAX || r->seconds < 0 ||
	     (uint64_t)r->seconds >= in->max_seconds ||
	     (r->seconds && r->debug)))
		abort();
	if (in->token && r->ep != EP_HEALTHZ &&
	    !auth_ok(in->token, in->authorization))
		abort();
}

/* out[0..n) is valid UTF-8 holding none of the bytes in bad. */
static void check_text(const char *out, size_t n, const char *bad, size_t nbad)
{
	const unsigned char *p = (const unsigned char *)out;
	size_t len;
	uint32_t cp;

	for (size_t i = 0; i < n; i += len) {
		len = utf8_next(p + i, n - i, &cp);
		if (!len || memchr(bad, p[i], nbad))
			abort();
	}
}

static void check_escapers(const char *s)
{
	void (*const esc[])(FILE *, const char *) = {gh_json__quote, esc_html,
						     esc_label};
	/* What each may never write raw: JSON's controls and <>&, HTML's
	 * markup, a label's newline. The JSON string's own quotes are at
	 * its ends only. */
	static const char *const bad[] = {"\x01\x02\n\r\t<>&", "<>\"'\x01\r",
					  "\n"};
	static const size_t nbad[] = {8, 6, 1};
	char logbuf[64], *buf = NULL;
	size_t n = 0;

	for (size_t k = 0; k < 3; k++) {
		FILE *f = open_memstream(&buf, &n);

		if (!f)
			abort();
		esc[k](f, s);
		fclose(f);
		if (k == 0) {
			if (n < 2 || buf[0] != '"' || buf[n - 1] != '"')
				abort();
			check_text(buf + 1, n - 2, bad[k], nbad[k]);
		} else {
			check_text(buf, n, bad[k], nbad[k]);
		}
		free(buf);
		buf = NULL;
	}
	esc_log(logbuf, sizeof(logbuf), s, strlen(s));
	for (char *c = logbuf; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const methods[] = {"GET", "HEAD", "POST"};
	struct input in = {data, size};
	uint8_t which = in_u8(&in);
	char *method = next_string(&in), *auth = next_string(&in),
	     *tok = next_string(&in), *target;
	struct token t = {.n = strnlen(tok, AUTH_TOKEN_MAX)};
	struct route_in ri = {.method = (which >> 2 & 3) < 3
						? methods[which >> 2 & 3]
						: method,
			      .target = (const char *)in.p,
			      .target_len = in.n,
			      .authorization = which & 2 ? auth : NULL,
			      .token = which & 1 && t.n ? &t : NULL,
			      /* the default --request-timeout's */
			      .max_seconds = 30};
	struct route r;

	memcpy(t.v, tok, t.n);
	route__parse(&ri, &r);
	check_route(&ri, &r);
	target = strndup((const char *)in.p, in.n);
	if (!target)
		abort();
	check_escapers(target);
	free(target);
	free(method);
	free(auth);
	free(tok);
	return 0;
}
