/* main.c - the goheap-bpf command: parse flags, hand the library one
 * request, and render what it returns: each Go runtime's profile in the
 * chosen format, or one line on stderr saying why there is none. The exit
 * status is the library's status of the results (the first failure's). */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "goheap.h"

#define MAX_PIDS 4096

/* Long-only flags. */
enum {
	OPT_TIMEOUT = 256,
	OPT_MAX_BUCKETS,
	OPT_MAX_STACK,
	OPT_MAX_READ_MB,
	OPT_MAX_TARGET_MS,
};

/* The default of --timeout: a read this long is surely stuck. */
#define DEFAULT_TIMEOUT_MS 60000

struct opts {
	int pids[MAX_PIDS];
	size_t npids;
	uint64_t timeout_ms;
	struct gh_bounds bounds;
	struct gh_write_opts w;
	bool top_given;
	const char *output;
	enum gh_backend backend;
	const char *runtime; /* --runtime: index or file; NULL = all */
	bool verbose;
};

const char *argp_program_version = "goheap-bpf " GOHEAP_VERSION;
static const char doc[] =
	"Print which allocation stacks hold a running Go process's heap, as "
	"its /debug/pprof/heap would, read from outside the process with "
	"BPF.\v"
	"EXAMPLES:\n"
	"  goheap-bpf --pid 1234                      top inuse_space stacks\n"
	"  goheap-bpf -p 1234 -f pprof -o heap.pb.gz  write a pprof file\n"
	"  goheap-bpf -p 1234 -f json -n 50           JSON, 50 entries\n"
	"  goheap-bpf -p 1234 -i alloc_space -n 10    top by bytes allocated\n"
	"  goheap-bpf -p 1234,5678 -f pprof -o heap.pb.gz\n"
	"                                             two processes, one "
	"pass:\n"
	"                                             heap.pb.gz.1234, "
	"heap.pb.gz.5678\n"
	"  goheap-bpf -p 1234 -r libgo.so -f pprof -o heap.pb.gz\n"
	"                                             one Go library's "
	"runtime\n"
	"\nA process holding several Go runtimes (a C program loading Go "
	"c-shared libraries) gives one profile per runtime: the executable's "
	"first, then the libraries' in address order; with --output FILE the "
	"N-th (N >= 2) goes to FILE.N. With several processes, each one's "
	"goes to FILE.PID (FILE.PID.N).\n"
	"\nExit status: 0 ok, 2 usage, 3 no such process, 4 not a Go "
	"program, 5 unsupported, 6 profiling disabled, 7 no data yet, 8 "
	"missing privileges, 9 kernel lacks support, 10 process exited, 11 "
	"partial result written, 12 output not written, 13 not read in time "
	"(deadline, or perf and an idle process), 1 other failure. SIGINT, "
	"SIGTERM or SIGHUP (unless ignored from the start, as by nohup): the "
	"temporary files being written are removed, and goheap-bpf ends by "
	"that signal (a shell shows 130, 143 or 129).";

static const struct argp_option options[] = {
	{"pid", 'p', "PID[,PID...]", 0,
	 "Go process(es) to profile (required; may be repeated)", 0},
	{"format", 'f', "FMT", 0, "top (default), pprof or json", 0},
	{"output", 'o', "FILE", 0,
	 "write here instead of stdout (- = stdout): a file is replaced "
	 "whole, keeping its mode and owner (a new one: 0666 minus the "
	 "umask); a link is followed if it is yours or root's (another "
	 "user's: only to that user's file); block devices are refused "
	 "(README \"Output files\")",
	 0},
	{"sample-index", 'i', "INDEX", 0,
	 "inuse_space (default), inuse_objects, alloc_space, alloc_objects", 0},
	{"top", 'n', "N", 0,
	 "top/json: show at most N entries (top default 20, json all; 0 = "
	 "all)",
	 0},
	{"backend", 'b', "NAME", 0,
	 "auto (default: the first that works), iter, perf or procmem", 0},
	{"runtime", 'r', "N|FILE", 0,
	 "profile only this Go runtime of the process: its number (1 = the "
	 "first) or the file holding it (path or file name)",
	 0},
	{"verbose", 'v', NULL, 0,
	 "say what is done (counts, timings, backends); libbpf debug output",
	 0},
	{0, 0, NULL, 0, "Bounds (a read that meets one ends partial):", 1},
	{"timeout", OPT_TIMEOUT, "TIME", 0,
	 "give up reading after TIME (e.g. 500ms, 2s, 1m; default 60s)", 1},
	{"max-buckets", OPT_MAX_BUCKETS, "N", 0,
	 "buckets per process (default 16777216)", 1},
	{"max-stack-depth", OPT_MAX_STACK, "N", 0,
	 "stack words a bucket may hold (default: the Go version's limit)", 1},
	{"max-read-mb", OPT_MAX_READ_MB, "MB", 0,
	 "bytes received per process, in MiB (default: no bound)", 1},
	{"max-target-ms", OPT_MAX_TARGET_MS, "MS", 0,
	 "perf: CPU its walk may take in the target (default 500)", 1},
	{0},
};

static int parse_long(const char *s, long min, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return (errno || end == s || *end || *v < min || *v > max) ? -1 : 0;
}

/* "500ms", "2s", "1.5s", "1m" (a bare number is seconds) into ms. */
static int parse_duration(const char *s, uint64_t *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0)
		return -1;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m"))
		v *= 60;
	else if (*end && strcmp(end, "s"))
		return -1;
	if (v * 1000 > 86400000.0)
		return -1;
	*ms = v * 1000 < 1 ? 1 : (uint64_t)(v * 1000);
	return 0;
}

/* "1234" or "1234,5678,...": every PID valid, at most MAX_PIDS in all. */
static int parse_pids(struct opts *o, char *arg)
{
	char *save = NULL, *tok;
	long v;

	if (!*arg || arg[strlen(arg) - 1] == ',')
		return -1;
	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (parse_long(tok, 1, INT_MAX, &v) || o->npids == MAX_PIDS)
			return -1;
		o->pids[o->npids++] = (int)v;
	}
	return 0;
}

static const char *const bound_names[] = {"max-buckets", "max-stack-depth",
					  "max-read-mb", "max-target-ms"};

static void set_bound(struct opts *o, int key, uint64_t v)
{
	switch (key) {
	case OPT_MAX_BUCKETS:
		o->bounds.max_buckets = v;
		break;
	case OPT_MAX_STACK:
		o->bounds.max_stack_depth = (uint32_t)v;
		break;
	case OPT_MAX_READ_MB:
		o->bounds.max_read_bytes = v << 20;
		break;
	default:
		o->bounds.max_target_ms = v;
	}
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct opts *o = state->input;
	char *copy;
	long v;
	int i;

	switch (key) {
	case 'p':
		copy = strdup(arg);
		i = copy ? parse_pids(o, copy) : -1;
		free(copy);
		if (i)
			argp_error(state,
				   "invalid --pid '%s': want process IDs, "
				   "comma-separated",
				   arg);
		break;
	case 'f':
		if ((i = gh_format__parse(arg)) < 0)
			argp_error(state,
				   "invalid --format '%s': want top, "
				   "pprof or json",
				   arg);
		o->w.format = (enum gh_format)i;
		break;
	case 'o':
		o->output = arg;
		break;
	case 'i':
		if ((i = gh_value__parse(arg)) < 0)
			argp_error(state, "invalid --sample-index '%s'", arg);
		o->w.index = (enum gh_value)i;
		break;
	case 'n':
		if (parse_long(arg, 0, LONG_MAX, &v))
			argp_error(state, "invalid --top '%s': want N >= 0",
				   arg);
		o->w.top_n = (size_t)v;
		o->top_given = true;
		break;
	case 'b':
		if ((i = gh_backend__parse(arg)) < 0)
			argp_error(state,
				   "invalid --backend '%s': want auto, "
				   "iter, perf or procmem",
				   arg);
		o->backend = (enum gh_backend)i;
		break;
	case 'r':
		if (!*arg)
			argp_error(state, "invalid --runtime '': want a number "
					  "or a file");
		o->runtime = arg;
		break;
	case 'v':
		o->verbose = true;
		break;
	case OPT_TIMEOUT:
		if (parse_duration(arg, &o->timeout_ms))
			argp_error(state,
				   "invalid --timeout '%s': want a duration "
				   "such as 500ms, 2s or 1m",
				   arg);
		break;
	case OPT_MAX_BUCKETS:
	case OPT_MAX_STACK:
	case OPT_MAX_READ_MB:
	case OPT_MAX_TARGET_MS:
		if (parse_long(arg, 1, key == OPT_MAX_STACK ? 1024 : LONG_MAX,
			       &v))
			argp_error(state, "invalid --%s '%s': want N >= 1%s",
				   bound_names[key - OPT_MAX_BUCKETS], arg,
				   key == OPT_MAX_STACK ? ", <= 1024" : "");
		set_bound(o, key, (uint64_t)v);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (!o->npids)
			argp_error(state, "--pid is required");
		if (!o->top_given)
			o->w.top_n = o->w.format == GH_FORMAT_TOP ? 20 : 0;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The library names its fixes in its own terms; the command's user needs
 * the flags that apply them. */
static const char *const flag_words[][2] = {
	{"the iter backend (Linux 5.18+) or the procmem backend",
	 "--backend iter (Linux 5.18+) or --backend procmem"},
	{"use the iter or the procmem backend",
	 "use --backend iter or --backend procmem"},
	{"the verifier's log is in the debug output",
	 "rerun with --verbose for the verifier log"},
};

static void say(const char *prefix, const char *msg)
{
	char buf[2 * GH_ERR_MSG_MAX], *at;
	size_t i, n;

	snprintf(buf, sizeof(buf), "%s", msg);
	for (i = 0; i < sizeof(flag_words) / sizeof(flag_words[0]); i++) {
		at = strstr(buf, flag_words[i][0]);
		if (!at)
			continue;
		n = strlen(flag_words[i][0]);
		memmove(at + strlen(flag_words[i][1]), at + n,
			strlen(at + n) + 1);
		memcpy(at, flag_words[i][1], strlen(flag_words[i][1]));
	}
	fprintf(stderr, "goheap-bpf: %s%s\n", prefix, buf);
}

/* GOHEAP_TEST_PAUSE_MS: tests replace or kill the target in this window,
 * after it is opened and before it is read, to check that a vanished
 * process is reported, never misread. */
static void test_pause(void *arg)
{
	const char *s = getenv("GOHEAP_TEST_PAUSE_MS");
	struct timespec ts;
	long ms;

	(void)arg;
	if (!s || parse_long(s, 0, 600000, &ms))
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
}

/* A signal that ends the run: no temporary file may stay behind. Then
 * the same signal again, its default restored on entry (SA_RESETHAND),
 * ends the process once this returns, so that whoever started it sees
 * what ended it. BPF programs, links and perf events go with the
 * process's descriptors: nothing is pinned. */
static void on_signal(int sig)
{
	gh_output__cleanup();
	raise(sig);
}

/* A signal ignored from the start stays ignored: nohup's SIGHUP, a
 * script's background job's SIGINT. */
static void catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal,
			       .sa_flags = SA_RESETHAND},
			 was;
	size_t i;

	/* One handler at a time: the others wait, and end the process. */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &was) &&
		    was.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

static void debug_line(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "%s\n", line);
}

/* Where result i's output goes: --output, FILE.N for a process's N-th
 * runtime, FILE.PID[.N] when several processes were asked for. */
static char *output_path(const struct opts *o, const struct gh_profile *p,
			 bool several_files)
{
	char *path;
	int rc;

	if (!o->output || strcmp(o->output, "-") == 0 || !several_files)
		return strdup(o->output ? o->output : "-");
	if (o->npids > 1)
		rc = p->runtime > 1
			     ? asprintf(&path, "%s.%d.%zu", o->output, p->pid,
					p->runtime)
			     : asprintf(&path, "%s.%d", o->output, p->pid);
	else if (p->runtime > 1)
		rc = asprintf(&path, "%s.%zu", o->output, p->runtime);
	else
		return strdup(o->output);
	return rc < 0 ? NULL : path;
}

static int write_one(const struct opts *o, const char *path,
		     const struct gh_profile *p, struct gh_err *err)
{
	struct gh_output *out;
	FILE *f;

	if (gh_output__open(path, &out, err))
		return -1;
	f = gh_output__file(out);
	if (o->w.format == GH_FORMAT_TOP && p->nruntimes > 1)
		fprintf(f, "Go runtime %zu of %zu: %s\n", p->runtime,
			p->nruntimes, p->runtime_file);
	if (gh_profile__write(p, f, &o->w, err)) {
		gh_output__abort(out);
		return -1;
	}
	return gh_output__commit(out, err);
}

static void verbose_profile(const struct gh_profile *p)
{
	fprintf(stderr,
		"goheap-bpf: pid %d %s (%s): %zu buckets (%zu in use), "
		"%zu locations, %zu functions, MemProfileRate %lld, read in "
		"%.1f ms by backend %s, %llu bytes received, %.1f ms of the "
		"target's CPU\n",
		p->pid, p->go_version, p->runtime_file, p->nbuckets,
		p->nbuckets_inuse, p->nlocations, p->nfunctions,
		(long long)p->period, p->duration_ms, p->backend,
		(unsigned long long)p->read_bytes, p->target_cpu_ns / 1e6);
	if (p->backend_notes[0])
		fprintf(stderr, "goheap-bpf: passed over: %s\n",
			p->backend_notes);
}

static void verbose_results(const struct gh_results *r, size_t nprocs)
{
	fprintf(stderr,
		"goheap-bpf: %zu process%s, %zu result%s in %.1f ms: %u BPF "
		"load%s, %u iterator pass%s, %u binar%s parsed\n",
		nprocs, nprocs == 1 ? "" : "es", r->n, r->n == 1 ? "" : "s",
		r->duration_ms, r->bpf_loads, r->bpf_loads == 1 ? "" : "s",
		r->iter_passes, r->iter_passes == 1 ? "" : "es",
		r->binaries_parsed, r->binaries_parsed == 1 ? "y" : "ies");
}

/* Render result r: its profile, or why there is none. Its status. */
static enum gh_status one_result(const struct opts *o,
				 const struct gh_result *r, bool several)
{
	const struct gh_profile *p = r->profile;
	struct gh_err err = r->err;
	char prefix[GH_PATH_MAX + 64] = "";
	char *path = output_path(o, p, several);
	bool data = r->err.code == GH_OK || r->err.code == GH_E_PARTIAL;

	if (p->nruntimes > 1)
		snprintf(prefix, sizeof(prefix),
			 "Go runtime %zu (%s): ", p->runtime, p->runtime_file);
	if (!path) {
		say(prefix, "out of memory");
		return GH_E_FAILED;
	}
	if (o->verbose && data)
		verbose_profile(p);
	if (data && write_one(o, path, p, &err)) {
		free(path);
		say(prefix, err.msg);
		return err.code ? err.code : GH_E_FAILED;
	}
	/* JSON consumers get a document even without a profile. */
	if (!data && o->w.format == GH_FORMAT_JSON && r->err.code != GH_E_USAGE)
		write_one(o, path, p, &err);
	free(path);
	if (!data) {
		say(prefix, r->err.msg);
		return r->err.code;
	}
	if (p->status == GH_SNAP_MIXED)
		say(prefix, p->status_reason);
	if (r->err.code == GH_E_PARTIAL) {
		fprintf(stderr, "goheap-bpf: partial profile written: %s\n",
			p->status_reason);
		return GH_E_PARTIAL;
	}
	return GH_OK;
}

/* pprof is binary: one profile at most on stdout. */
static int check_stdout(const struct opts *o, const struct gh_results *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += r->v[i].err.code == GH_OK ||
		     r->v[i].err.code == GH_E_PARTIAL;
	if (n < 2 || o->w.format != GH_FORMAT_PPROF ||
	    (o->output && strcmp(o->output, "-") != 0))
		return 0;
	if (o->npids == 1)
		fprintf(stderr,
			"goheap-bpf: process %d holds %zu Go runtimes, each "
			"with its own profile; write them to files with "
			"--output FILE (FILE, FILE.2, ...) or pick one with "
			"--runtime N\n",
			o->pids[0], n);
	else
		fprintf(stderr,
			"goheap-bpf: %zu profiles of %zu processes; write "
			"them to files with --output FILE (FILE.PID, ...)\n",
			n, o->npids);
	return -1;
}

/* Installed set-uid or set-gid, goheap-bpf would read every process's
 * heap and write files with its owner's rights for whoever runs it: a
 * privileged caller is the one who runs it with root or the capabilities
 * (README "Privileges"), never one the file's mode makes. */
static bool set_id(void)
{
	if (getuid() == geteuid() && getgid() == getegid())
		return false;
	fprintf(stderr,
		"goheap-bpf: refusing to run set-uid or set-gid (real uid "
		"%u, effective %u; real gid %u, effective %u): it would give "
		"whoever runs it every process's heap; remove the bits "
		"(chmod u-s,g-s) and run it as root or with the capabilities "
		"it needs\n",
		(unsigned)getuid(), (unsigned)geteuid(), (unsigned)getgid(),
		(unsigned)getegid());
	return true;
}

int main(int argc, char **argv)
{
	static struct opts o = {.w = {GH_FORMAT_TOP, GH_INUSE_SPACE, 0},
				.timeout_ms = DEFAULT_TIMEOUT_MS};
	struct argp argp = {options, parse_opt, NULL, doc, NULL, NULL, NULL};
	struct gh_collector_opts co = {0};
	struct gh_request rq = {0};
	struct gh_collector *c = NULL;
	struct gh_results *res = NULL;
	struct gh_err err = {GH_OK, ""};
	enum gh_status st = GH_OK, one;

	if (set_id())
		return GH_E_PERM;
	argp_err_exit_status = GH_E_USAGE;
	if (argp_parse(&argp, argc, argv, 0, NULL, &o))
		return GH_E_USAGE;
	catch_signals();
	co.backend = o.backend;
	if (o.verbose)
		co.debug = debug_line;
	rq.select.pids = o.pids;
	rq.select.npids = o.npids;
	rq.select.runtime = o.runtime;
	rq.render = &o.w;
	rq.nrender = 1;
	rq.opened = test_pause;
	rq.timeout_ms = o.timeout_ms;
	rq.bounds = o.bounds;
	if (gh_collector__new(&co, &c, &err) ||
	    gh_collector__collect(c, &rq, &res, &err)) {
		say("", err.msg);
		gh_collector__free(c);
		return err.code ? err.code : GH_E_FAILED;
	}
	if (o.verbose)
		verbose_results(res, o.npids);
	if (check_stdout(&o, res)) {
		st = GH_E_USAGE;
	} else {
		for (size_t i = 0; i < res->n; i++) {
			one = one_result(&o, &res->v[i], res->n > 1);
			/* The first failure decides; partial only when
			 * nothing failed. */
			if (one != GH_OK && (st == GH_OK || st == GH_E_PARTIAL))
				st = one;
		}
	}
	gh_results__free(res);
	gh_collector__free(c);
	return st;
}
