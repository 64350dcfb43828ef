/* serveflags.c - the flags of `goheap-bpf serve` (argp): what each means,
 * its default, and the one-line error for a bad one (exit status 2). */
#include <argp.h>

#include "cmd/commonflags.h"
#include "cmd/parse.h"
#include "cmd/selectflags.h"
#include "cmd/serve/serveopts.h"

enum {
	OPT_LISTEN = 256,
	OPT_TOKEN_FILE,
	OPT_REFRESH,
	OPT_DEADLINE,
	OPT_MAX_QUEUE,
	OPT_MAX_CONNECTIONS,
	OPT_MAX_KEPT_MB,
};

static const char doc[] =
	"Serve the heap profiles of this host's Go processes over HTTP, read "
	"from outside them, as each one's own net/http/pprof would serve "
	"them; and their totals as Prometheus metrics.\v"
	"ENDPOINTS:\n"
	"  /pid/PID/debug/pprof/heap     the process's heap profile (gzip "
	"pprof)\n"
	"  /pid/PID/debug/pprof/allocs   the same, for allocations\n"
	"  /pid/PID/debug/pprof/block, .../mutex\n"
	"                                its block and mutex profiles\n"
	"  /pid/PID/runtime/N/debug/pprof/heap, .../allocs, ...\n"
	"                                its N-th Go runtime (c-shared "
	"libraries)\n"
	"  /processes                    the Go processes, as JSON\n"
	"  /targets                      the same as Prometheus http_sd "
	"targets\n"
	"  /metrics                      Prometheus metrics\n"
	"  /healthz, /                   liveness; an HTML index\n"
	"A profile takes net/http/pprof's ?seconds=N (the delta over N "
	"seconds) and ?debug=1 (the legacy text); ?gc=1 is refused.\n"
	"\nEXAMPLES:\n"
	"  goheap-bpf serve\n"
	"  go tool pprof http://127.0.0.1:6061/pid/1234/debug/pprof/heap\n"
	"  go tool pprof -seconds 10 "
	"http://127.0.0.1:6061/pid/1234/debug/pprof/allocs\n"
	"  goheap-bpf serve --listen 0.0.0.0:6061 --token-file "
	"/etc/goheap/token\n"
	"\nOnly GET and HEAD are served; the server never writes a file and "
	"never acts on a process. SIGTERM or SIGINT: it stops accepting, "
	"finishes the requests in flight and exits 0. Exit status: 0 after "
	"such a signal, 1 when it cannot listen or start, 2 for bad flags, 8 "
	"when installed set-uid or set-gid.";

static const struct argp_option options[] = {
	{"listen", OPT_LISTEN, "ADDR:PORT", 0,
	 "the address to serve on (default " SERVE_LISTEN
	 ": loopback only); IPv6 as [ADDR]:PORT; port 0 picks a free one",
	 0},
	{"token-file", OPT_TOKEN_FILE, "FILE", 0,
	 "require \"Authorization: Bearer TOKEN\" with the token in FILE "
	 "(every endpoint but /healthz)",
	 0},
	{0, 0, NULL, 0, "What is exposed (a process outside these is 404):", 1},
	FLAG_BACKEND(KEY_BACKEND, FLAG_BACKEND_DOC, 1),
	{0, 0, NULL, 0, "Bounds:", 2},
	{"refresh", OPT_REFRESH, "TIME", 0,
	 "sweep the host for /metrics, /processes, /targets and / at most "
	 "this often; scrapes meanwhile share the last sweep (default 15s)",
	 2},
	{"request-timeout", OPT_DEADLINE, "TIME", 0,
	 "each request's deadline, waiting for the collector included; a "
	 "?seconds=N must be below it (default 30s)",
	 2},
	{"max-queue", OPT_MAX_QUEUE, "N", 0,
	 "requests that may wait for or use the collector at once; more are "
	 "answered 503 (default 16)",
	 2},
	{"max-connections", OPT_MAX_CONNECTIONS, "N", 0,
	 "open connections; more are closed at once (default 256)", 2},
	{"max-kept-mb", OPT_MAX_KEPT_MB, "MB", 0,
	 "memory for what is kept between reads of a process: bucket "
	 "stacks, locations, compressed pieces (default 256)",
	 2},
	{0},
};

/* The filters (--comm, ...), with --backend under "What is exposed". */
static const struct argp_child children[] = {
	{&select_argp, 0, "", 1},
	{0},
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct serve_opts *o = state->input;
	long v;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->select;
		return 0;
	case OPT_LISTEN:
		o->listen = arg;
		return 0;
	case OPT_TOKEN_FILE:
		o->token_file = arg;
		return 0;
	case KEY_BACKEND:
		o->backend = flag_backend(state, arg);
		return 0;
	case OPT_REFRESH:
		o->refresh_ms = flag_duration(state, "refresh", arg);
		return 0;
	case OPT_DEADLINE:
		o->deadline_ms = flag_duration(state, "request-timeout", arg);
		return 0;
	case OPT_MAX_QUEUE:
		if (parse_long(arg, 1, 4096, &v))
			flag_bad(state, "max-queue", arg, "N from 1 to 4096");
		o->max_queue = (unsigned)v;
		return 0;
	case OPT_MAX_CONNECTIONS:
		if (parse_long(arg, 1, 65536, &v))
			flag_bad(state, "max-connections", arg,
				 "N from 1 to 65536");
		o->max_connections = (unsigned)v;
		return 0;
	case OPT_MAX_KEPT_MB:
		if (parse_long(arg, 1, 1 << 20, &v))
			flag_bad(state, "max-kept-mb", arg,
				 "MB from 1 to 1048576");
		o->max_kept_mb = (size_t)v;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

void serve_opts__parse(int argc, char **argv, struct serve_opts *o)
{
	struct argp argp = {options,  parse_opt, NULL, doc,
			    children, NULL,	 NULL};
	static char name[] = "goheap-bpf serve";

	*o = (struct serve_opts){.select = {.sz = sizeof(o->select)},
				 .listen = SERVE_LISTEN,
				 .refresh_ms = SERVE_REFRESH_MS,
				 .deadline_ms = SERVE_DEADLINE_MS,
				 .max_queue = SERVE_MAX_QUEUE,
				 .max_connections = SERVE_MAX_CONNECTIONS,
				 .max_kept_mb = SERVE_MAX_KEPT_MB};
	flag_parse(&argp, argc, argv, name, o);
}
