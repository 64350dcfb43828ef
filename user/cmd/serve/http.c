/* http.c - libmicrohttpd's callbacks and the life of a request (http.h):
 * its exchange is made when its first line arrives (the raw target, for
 * routing and logging), routed once its headers are in, answered at once
 * or handed to the jobs thread with its connection suspended, sent when
 * its reply is made, logged and freed when done. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmdclock.h"
#include "cmd/serve/deltapage.h"
#include "cmd/serve/escape.h"
#include "cmd/serve/exch.h"
#include "cmd/serve/goroutinepage.h"
#include "cmd/serve/http.h"
#include "cmd/serve/listpage.h"
#include "cmd/serve/mhd.h"
#include "cmd/serve/pprofpage.h"

/* libmicrohttpd's own messages (a malformed request it refused itself,
 * a socket error), one line each. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	fprintf(stderr, "goheap-bpf: libmicrohttpd: %s\n", line);
}

/* The first line is in: the exchange, with the raw target. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct server *srv = cls;
	struct exch *x = calloc(1, sizeof(*x));
	size_t n = strlen(uri);

	if (!x)
		return NULL;
	x->srv = srv;
	x->conn = conn;
	x->start_ns = now_ns();
	x->deadline_ns = x->start_ns + srv->o.deadline_ms * 1000000ull;
	x->target_len = n;
	memcpy(x->target, uri, n < ROUTE_TARGET_MAX ? n : ROUTE_TARGET_MAX);
	atomic_fetch_add(&srv->inflight, 1);
	return x;
}

/* The Host header, kept when it is a plain host[:port] (for /targets). */
static void keep_host(struct exch *x)
{
	const char *h =
		mhd.lookup_connection_value(x->conn, MHD_HEADER_KIND, "Host");
	size_t n = h ? strlen(h) : 0;

	if (!n || n >= sizeof(x->host) ||
	    strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789.-:[]") != n)
		return;
	memcpy(x->host, h, n + 1);
}

static enum MHD_Result send_reply(struct exch *x)
{
	struct reply *r = &x->reply;
	struct MHD_Response *resp;
	enum MHD_Result rc;

	resp = mhd.create_response_from_buffer(r->len, r->body,
					       MHD_RESPMEM_MUST_FREE);
	if (!resp)
		return MHD_NO;
	r->body = NULL; /* libmicrohttpd's to free now */
	if (r->type)
		mhd.add_response_header(resp, "Content-Type", r->type);
	mhd.add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (r->status != 200 && route_is_profile(x->route.ep))
		mhd.add_response_header(resp, "X-Go-Pprof", "1");
	for (size_t i = 0; i < r->nh; i++)
		mhd.add_response_header(resp, r->h[i].name, r->h[i].value);
	if (atomic_load(&x->srv->stopping))
		mhd.add_response_header(resp, "Connection", "close");
	rc = mhd.queue_response(x->conn, (unsigned)r->status, resp);
	mhd.destroy_response(resp);
	return rc;
}

static void run_job(struct queued_job *j)
{
	struct exch *x =
		(struct exch *)((char *)j - offsetof(struct exch, job));

	if (x->route.seconds) {
		if (!delta_page(x))
			return; /* queued again, for its second read */
	} else if (x->route.ep == EP_GOROUTINE) {
		goroutine_page(x);
	} else if (route_is_profile(x->route.ep)) {
		pprof_page(x);
	} else {
		listing_page(x);
	}
	/* From here on the exchange is the polling thread's again. */
	mhd.resume_connection(x->conn);
}

/* Hand x to the jobs thread, or answer 503 when too many wait. */
static enum MHD_Result to_jobs(struct exch *x)
{
	struct server *srv = x->srv;

	if (!job_queue__reserve(&srv->jobs)) {
		reply__text(&x->reply, 503,
			    "%u requests already wait for the collector "
			    "(--max-queue); retry later",
			    srv->o.max_queue);
		reply__header(&x->reply, "Retry-After", "1");
		return send_reply(x);
	}
	x->queued = true;
	x->job.run = run_job;
	mhd.suspend_connection(x->conn);
	job_queue__push(&srv->jobs, &x->job);
	return MHD_YES;
}

/* The headers are in: route, and answer or queue. */
static enum MHD_Result start(struct exch *x, const char *method)
{
	struct server *srv = x->srv;
	struct route_in in = {
		.method = method,
		.target = x->target,
		.target_len = x->target_len,
		.authorization = mhd.lookup_connection_value(
			x->conn, MHD_HEADER_KIND, "Authorization"),
		.token = srv->token,
		.max_seconds = (srv->o.deadline_ms + 999) / 1000};
	struct route *rt = &x->route;
	struct snap *s;

	snprintf(x->method, sizeof(x->method), "%s", method);
	route__parse(&in, rt);
	if (rt->status) {
		reply__text(&x->reply, rt->status, "%s", rt->why);
		if (rt->status == 401)
			reply__header(&x->reply, "WWW-Authenticate",
				      "Bearer realm=\"goheap-bpf\"");
		else if (rt->status == 405)
			reply__header(&x->reply, "Allow", "GET, HEAD");
		return send_reply(x);
	}
	keep_host(x);
	if (rt->ep == EP_HEALTHZ) {
		if (atomic_load(&srv->stopping))
			reply__text(&x->reply, 503, "shutting down");
		else
			reply__text(&x->reply, 200, "ok");
		return send_reply(x);
	}
	if (route_is_profile(rt->ep) || !(s = cache__fresh(&srv->cache)))
		return to_jobs(x);
	listing_render(x, s);
	snap__put(s);
	return send_reply(x);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **ctx)
{
	struct exch *x = *ctx;

	(void)cls;
	(void)conn;
	(void)url;
	(void)version;
	(void)upload;
	if (!x)
		return MHD_NO; /* out of memory when the request began */
	/* A body is never read: only GET and HEAD are served. */
	if (*upload_size) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (x->queued)
		return send_reply(x); /* resumed: the reply is made */
	return start(x, method);
}

/* The request is done (sent, or the connection lost): its log line. */
static void on_done(void *cls, struct MHD_Connection *conn, void **ctx,
		    enum MHD_RequestTerminationCode toe)
{
	struct server *srv = cls;
	struct exch *x = *ctx;
	char target[512], method[80], status[16] = "-";
	size_t bytes;

	(void)conn;
	if (!x)
		return;
	if (x->reply.status) {
		snprintf(status, sizeof(status), "%d", x->reply.status);
		stats__http(&srv->stats, x->reply.status);
	}
	bytes = x->route.head ? 0 : x->reply.len;
	fprintf(stderr, "goheap-bpf: %s \"%s\" %s %zu B %.1f ms%s\n",
		x->method[0] ? esc_log(method, sizeof(method), x->method,
				       strlen(x->method))
			     : "-",
		esc_log(target, sizeof(target), x->target,
			x->target_len < ROUTE_TARGET_MAX ? x->target_len
							 : ROUTE_TARGET_MAX),
		status, bytes, (now_ns() - x->start_ns) / 1e6,
		toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? ""
		: toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED
			? " (idle connection timed out)"
		: toe == MHD_REQUEST_TERMINATED_CLIENT_ABORT
			? " (the client went away)"
			: " (not sent whole)");
	reply__free(&x->reply);
	free(x);
	*ctx = NULL;
	atomic_fetch_sub(&srv->inflight, 1);
}

struct MHD_Daemon *http_start(struct server *srv, char *why, size_t size)
{
	struct MHD_Daemon *d = mhd.start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG,
		0, NULL, NULL, on_request, srv, MHD_OPTION_EXTERNAL_LOGGER,
		mhd_log, NULL, MHD_OPTION_LISTEN_SOCKET, srv->l.fd,
		MHD_OPTION_URI_LOG_CALLBACK, on_uri, srv,
		MHD_OPTION_NOTIFY_COMPLETED, on_done, srv,
		MHD_OPTION_CONNECTION_LIMIT, srv->o.max_connections,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_IDLE_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_REQUEST_MAX,
		MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_END);

	if (!d)
		snprintf(why, size,
			 "libmicrohttpd could not start serving on %s (its "
			 "message above says why)",
			 srv->l.addr);
	return d;
}

void http_quiesce(struct MHD_Daemon *d)
{
	mhd.quiesce_daemon(d);
}

void http_stop(struct MHD_Daemon *d)
{
	mhd.stop_daemon(d);
}
