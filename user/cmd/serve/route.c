/* route.c - a request's method, target and token into an endpoint and its
 * arguments, or the error status to answer (route.h). The query options
 * of a profile are judged as net/http/pprof judges them (query.c), in its
 * order: seconds, then gc, then debug. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd/serve/query.h"
#include "cmd/serve/route.h"

static void fail(struct route *r, int status, const char *fmt, ...)
{
	va_list ap;

	r->status = status;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

bool route_is_profile(enum endpoint ep)
{
	return ep == EP_HEAP || ep == EP_ALLOCS || ep == EP_BLOCK ||
	       ep == EP_MUTEX || ep == EP_GOROUTINE;
}

/* A decimal number in [1, max], without sign or leading zero, as the
 * whole of s[0..n): its value, or 0. */
static long number(const char *s, size_t n, long max)
{
	long v = 0;

	if (!n || n > 9 || s[0] == '0')
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return v <= max ? v : 0;
}

/* The path p[0..n), %-escapes decoded, into out (n + 1 bytes); -1 for a
 * bad escape or a decoded byte that is a control character. */
static long decode_path(const char *p, size_t n, char *out)
{
	size_t i, o = 0;
	unsigned char c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)p[i];
		if (c == '%') {
			int hi = i + 2 < n ? hex_digit(p[i + 1]) : -1,
			    lo = i + 2 < n ? hex_digit(p[i + 2]) : -1;

			if (hi < 0 || lo < 0)
				return -1;
			c = (unsigned char)(hi << 4 | lo);
			i += 2;
		}
		if (c < 0x20 || c == 0x7f)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return (long)o;
}

static const char profile_paths[] =
	"a process's profiles are /pid/PID/debug/pprof/heap, allocs, block, "
	"mutex and goroutine (/pid/PID/runtime/N/... for its N-th Go "
	"runtime)";

/* "heap", "allocs", "block", "mutex" or "goroutine" after
 * "/debug/pprof/", else 404. */
static void profile_name(const char *s, struct route *r)
{
	if (!strcmp(s, "/debug/pprof/heap"))
		r->ep = EP_HEAP;
	else if (!strcmp(s, "/debug/pprof/allocs"))
		r->ep = EP_ALLOCS;
	else if (!strcmp(s, "/debug/pprof/block"))
		r->ep = EP_BLOCK;
	else if (!strcmp(s, "/debug/pprof/mutex"))
		r->ep = EP_MUTEX;
	else if (!strcmp(s, "/debug/pprof/goroutine"))
		r->ep = EP_GOROUTINE;
	else
		fail(r, 404, "no such endpoint: %s", profile_paths);
}

/* "/pid/PID/debug/pprof/NAME" or "/pid/PID/runtime/N/debug/pprof/NAME";
 * s is what follows "/pid/". */
static void pid_path(const char *s, struct route *r)
{
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);

	r->pid = (int)number(s, n, ROUTE_PID_MAX);
	if (!r->pid) {
		fail(r, 400,
		     "bad PID in the path: want a process ID from 1 to %d, "
		     "in decimal without leading zeros",
		     ROUTE_PID_MAX);
		return;
	}
	if (!slash) {
		fail(r, 404, "no such endpoint: %s", profile_paths);
		return;
	}
	if (strncmp(slash, "/runtime/", 9)) {
		profile_name(slash, r);
		return;
	}
	s = slash + 9;
	slash = strchr(s, '/');
	n = slash ? (size_t)(slash - s) : strlen(s);
	r->runtime = (unsigned)number(s, n, ROUTE_RUNTIME_MAX);
	if (!r->runtime)
		fail(r, 400,
		     "bad Go runtime number in the path: want 1 to %d (1 is "
		     "the executable's or the first library's)",
		     ROUTE_RUNTIME_MAX);
	else if (!slash)
		fail(r, 404, "no such endpoint: %s", profile_paths);
	else
		profile_name(slash, r);
}

static void match(const char *path, struct route *r)
{
	static const struct {
		const char *path;
		enum endpoint ep;
	} fixed[] = {{"/", EP_INDEX},
		     {"/healthz", EP_HEALTHZ},
		     {"/metrics", EP_METRICS},
		     {"/processes", EP_PROCESSES},
		     {"/targets", EP_TARGETS}};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcmp(path, fixed[i].path)) {
			r->ep = fixed[i].ep;
			return;
		}
	if (!strncmp(path, "/pid/", 5))
		pid_path(path + 5, r);
	else
		fail(r, 404,
		     "no such endpoint: the server has /, /healthz, /metrics, "
		     "/processes, /targets, and %s",
		     profile_paths);
}

/* ?seconds=N (its value v[0..n), not empty), as serveDeltaProfile reads
 * it: a positive integer below the server's timeout, without debug. */
static void seconds(const char *v, size_t n, int64_t debug, uint64_t max_s,
		    struct route *r)
{
	if (go_parse_int(v, n, &r->seconds) || r->seconds <= 0)
		fail(r, 400,
		     "invalid value for \"seconds\" - must be a positive "
		     "integer");
	else if (max_s && (uint64_t)r->seconds >= max_s)
		fail(r, 400,
		     "profile duration exceeds server's WriteTimeout: "
		     "seconds=%lld is not below --request-timeout (%llu s); "
		     "ask for fewer, or start the server with a longer "
		     "--request-timeout",
		     (long long)r->seconds, (unsigned long long)max_s);
	else if (debug)
		fail(r, 400, "seconds and debug params are incompatible");
}

/* net/http/pprof's reading of ?seconds, ?gc and ?debug, for a profile,
 * in its order: a delta first, then gc (heap only), then debug. */
static void options(const char *q, size_t n, uint64_t max_s, struct route *r)
{
	char buf[ROUTE_TARGET_MAX];
	int64_t gc = 0, debug = 0;
	long k;

	k = query_value(q, n, "debug", buf);
	if (k > 0)
		go_parse_int(buf, (size_t)k, &debug);
	k = query_value(q, n, "seconds", buf);
	if (k > 0) {
		seconds(buf, (size_t)k, debug, max_s, r);
		return;
	}
	k = query_value(q, n, "gc", buf);
	if (k > 0)
		go_parse_int(buf, (size_t)k, &gc);
	if (r->ep == EP_HEAP && gc > 0)
		fail(r, 400,
		     "gc=N is refused: goheap-bpf reads the process from "
		     "outside and never makes it act (no GC); leave gc out "
		     "for the profile as of its last GC");
	r->debug = debug != 0;
	/* writeGoroutine: debug >= 2 the stacks, > 0 the text, else pprof */
	r->goroutine_debug = debug >= 2 ? 2 : debug > 0 ? 1 : 0;
}

void route__parse(const struct route_in *in, struct route *r)
{
	char path[ROUTE_TARGET_MAX + 1];
	const char *q;
	size_t pn;

	*r = (struct route){.status = 0};
	r->head = !strcmp(in->method, "HEAD");
	if (!r->head && strcmp(in->method, "GET")) {
		fail(r, 405, "only GET and HEAD are served");
		return;
	}
	if (in->target_len > ROUTE_TARGET_MAX) {
		fail(r, 414, "request target over %d bytes", ROUTE_TARGET_MAX);
		return;
	}
	if (!in->target_len || in->target[0] != '/') {
		fail(r, 400,
		     "the request target must be a path, starting "
		     "with /");
		return;
	}
	q = memchr(in->target, '?', in->target_len);
	pn = q ? (size_t)(q - in->target) : in->target_len;
	if (decode_path(in->target, pn, path) < 0) {
		fail(r, 400, "bad %%-escape or control character in the path");
		return;
	}
	if (in->token && strcmp(path, "/healthz") &&
	    !auth_ok(in->token, in->authorization)) {
		fail(r, 401,
		     "%s bearer token: send the server's token as "
		     "\"Authorization: Bearer TOKEN\"",
		     in->authorization ? "wrong" : "no");
		return;
	}
	match(path, r);
	if (!r->status && route_is_profile(r->ep) && q)
		options(q + 1, in->target_len - pn - 1, in->max_seconds, r);
}
