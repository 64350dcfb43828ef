/* main.c - the goheap-bpf command: parse flags, open the target's Go
 * runtimes, take one snapshot of each with the BPF reader, build each
 * profile, write it. Diagnostics go to stderr as one line per failure; the
 * exit status is the gh_status (the first failure's when a process holds
 * several Go runtimes). */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "goheap.h"
#include "write/output.h"

enum format { FMT_TOP, FMT_PPROF, FMT_JSON };

struct opts {
	int pid;
	enum format format;
	const char *output;
	enum gh_value index;
	long top; /* -1: the format's default */
	enum gh_backend backend;
	const char *runtime; /* --runtime: index or file; NULL = all */
	bool verbose;
};

const char *argp_program_version = "goheap-bpf 0.1";
static const char doc[] =
	"Print which allocation stacks hold a running Go process's heap, as "
	"its /debug/pprof/heap would, read from outside the process with "
	"BPF.\v"
	"EXAMPLES:\n"
	"  goheap-bpf --pid 1234                      top inuse_space stacks\n"
	"  goheap-bpf -p 1234 -f pprof -o heap.pb.gz  write a pprof file\n"
	"  goheap-bpf -p 1234 -f json -n 50           JSON, 50 entries\n"
	"  goheap-bpf -p 1234 -i alloc_space -n 10    top by bytes allocated\n"
	"  goheap-bpf -p 1234 -r libgo.so -f pprof -o heap.pb.gz\n"
	"                                             one Go library's "
	"runtime\n"
	"\nA process holding several Go runtimes (a C program loading Go "
	"c-shared libraries) gives one profile per runtime: the executable's "
	"first, then the libraries' in address order; with --output FILE the "
	"N-th (N >= 2) goes to FILE.N.\n"
	"\nExit status: 0 ok, 2 usage, 3 no such process, 4 not a Go "
	"program, 5 unsupported, 6 profiling disabled, 7 no data yet, 8 "
	"missing privileges, 9 kernel lacks support, 10 process exited, 11 "
	"partial result written, 12 output not written, 1 other failure.";

static const struct argp_option options[] = {
	{"pid", 'p', "PID", 0, "Go process to profile (required)", 0},
	{"format", 'f', "FMT", 0, "top (default), pprof or json", 0},
	{"output", 'o', "FILE", 0, "write here instead of stdout (- = stdout)",
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
	{"verbose", 'v', NULL, 0, "say what is done; libbpf debug output", 0},
	{0},
};

static const char *const index_names[GH_NVALUES] = {
	"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"};

static int parse_long(const char *s, long min, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return (errno || end == s || *end || *v < min || *v > max) ? -1 : 0;
}

/* The position of s in names[0..n), or -1: the flags that take a name. */
static int parse_name(const char *s, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static const char *const format_names[] = {"top", "pprof", "json"};
static const char *const backend_names[] = {"auto", "iter", "perf", "procmem"};
#define NAMES(a) (a), (int)(sizeof(a) / sizeof((a)[0]))

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct opts *o = state->input;
	long v;
	int i;

	switch (key) {
	case 'p':
		if (parse_long(arg, 1, INT_MAX, &v))
			argp_error(state,
				   "invalid --pid '%s': want a process ID",
				   arg);
		o->pid = (int)v;
		break;
	case 'f':
		if ((i = parse_name(arg, NAMES(format_names))) < 0)
			argp_error(state,
				   "invalid --format '%s': want top, "
				   "pprof or json",
				   arg);
		o->format = (enum format)i;
		break;
	case 'o':
		o->output = arg;
		break;
	case 'i':
		if ((i = parse_name(arg, NAMES(index_names))) < 0)
			argp_error(state, "invalid --sample-index '%s'", arg);
		o->index = (enum gh_value)i;
		break;
	case 'n':
		if (parse_long(arg, 0, LONG_MAX, &o->top))
			argp_error(state, "invalid --top '%s': want N >= 0",
				   arg);
		break;
	case 'b':
		if ((i = parse_name(arg, NAMES(backend_names))) < 0)
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
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (!o->pid)
			argp_error(state, "--pid is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* GOHEAP_TEST_PAUSE_MS: tests replace or kill the target in this window to
 * check that a vanished process is reported, never misread. */
static void test_pause(void)
{
	const char *s = getenv("GOHEAP_TEST_PAUSE_MS");
	long ms;
	struct timespec ts;

	if (!s || parse_long(s, 0, 600000, &ms))
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
}

/* Runtime i of n in a process (for the top table's title and messages);
 * NULL when the process has only one. */
struct which {
	size_t i, n;
	const char *file;
};

static int write_profile(const struct opts *o, const char *path,
			 const struct gh_profile *p, const struct which *w,
			 struct gh_err *err)
{
	struct outfile out;
	size_t top =
		o->top < 0 ? (o->format == FMT_TOP ? 20 : 0) : (size_t)o->top;
	int rc;

	if (outfile_open(&out, path, err))
		return -1;
	if (o->format == FMT_PPROF) {
		rc = gh_write_pprof(out.f, p, err);
	} else if (o->format == FMT_JSON) {
		rc = gh_write_json(out.f, p, o->index, top, err);
	} else {
		if (w)
			fprintf(out.f, "Go runtime %zu of %zu: %s\n", w->i,
				w->n, w->file);
		rc = gh_write_top(out.f, p, o->index, top, err);
	}
	if (rc) {
		outfile_abort(&out);
		return -1;
	}
	return outfile_commit(&out, err);
}

static void verbose_snapshot(const struct opts *o, const struct gh_profile *p)
{
	if (!o->verbose)
		return;
	fprintf(stderr,
		"goheap-bpf: pid %d %s (%s): %zu buckets (%zu in use), "
		"%zu locations, %zu functions, MemProfileRate %lld, read in "
		"%.1f ms by backend %s\n",
		p->pid, p->go_version, p->runtime_file, p->nbuckets,
		p->nbuckets_inuse, p->nlocations, p->nfunctions,
		(long long)p->period, p->duration_ms, p->backend);
	if (p->backend_notes[0])
		fprintf(stderr, "goheap-bpf: passed over: %s\n",
			p->backend_notes);
}

/* Read and build the profile of one runtime: the profile, or -1 with err. */
static int take_profile(struct gh_reader *r, const struct gh_target *t,
			bool stream, struct gh_profile **p, struct gh_err *err)
{
	if (gh_reader__profile(r, t, stream, p, err))
		return -1;
	snprintf((*p)->backend, sizeof((*p)->backend), "%s",
		 gh_reader__backend(r));
	snprintf((*p)->backend_notes, sizeof((*p)->backend_notes), "%s",
		 gh_reader__notes(r));
	snprintf((*p)->runtime_file, sizeof((*p)->runtime_file), "%s",
		 gh_target__file(t));
	snprintf((*p)->cgroup, sizeof((*p)->cgroup), "%s",
		 gh_target__cgroup(t));
	return 0;
}

/* JSON consumers get a document even when there is no profile: the status
 * says why. t is NULL when no runtime could be opened. */
static void json_failure(const struct opts *o, const char *path,
			 const struct gh_target *t, const struct gh_err *err)
{
	struct gh_profile p = {.pid = o->pid};
	struct gh_err e2;

	/* The target has no profile to give (off, empty, or a build whose
	 * variables cannot be located): unavailable; anything else failed. */
	p.status = (err->code == GH_E_DISABLED || err->code == GH_E_NODATA ||
		    err->code == GH_E_UNSUPPORTED)
			   ? GH_SNAP_UNAVAILABLE
			   : GH_SNAP_FAILED;
	snprintf(p.status_reason, sizeof(p.status_reason), "%s", err->msg);
	if (t) {
		snprintf(p.go_version, sizeof(p.go_version), "%s",
			 gh_target__go_version(t));
		snprintf(p.runtime_file, sizeof(p.runtime_file), "%s",
			 gh_target__file(t));
		snprintf(p.cgroup, sizeof(p.cgroup), "%s",
			 gh_target__cgroup(t));
	}
	write_profile(o, path, &p, NULL, &e2);
}

/* Does --runtime name runtime i (0-based) of the process? */
static bool selected(const char *sel, size_t i, const struct gh_target *t)
{
	const char *file = gh_target__file(t), *base = strrchr(file, '/');
	long n;

	if (!parse_long(sel, 1, LONG_MAX, &n))
		return (size_t)n == i + 1;
	return strcmp(sel, file) == 0 || (base && strcmp(sel, base + 1) == 0);
}

/* Which runtimes to profile: every one, or the one --runtime names. */
static int select_runtimes(const struct opts *o, struct gh_target **ts,
			   size_t n, bool *want, struct gh_err *err)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		want[i] = !o->runtime || selected(o->runtime, i, ts[i]);
		k += want[i];
	}
	if (o->runtime && k != 1)
		return err_set(err, GH_E_USAGE,
			       "--runtime %s names %s of the %zu Go "
			       "runtimes of process %d; give a number from "
			       "1 to %zu or the full path of the file",
			       o->runtime, k ? "several" : "none", n, o->pid,
			       n);
	if (k > 1 && o->format == FMT_PPROF &&
	    (!o->output || strcmp(o->output, "-") == 0))
		return err_set(err, GH_E_USAGE,
			       "process %d holds %zu Go runtimes, each with "
			       "its own profile; write them to files with "
			       "--output FILE (FILE, FILE.2, ...) or pick "
			       "one with --runtime N",
			       o->pid, k);
	return 0;
}

/* Where runtime i's output goes: --output, or --output.N for the N-th
 * runtime after the first when several are written. */
static char *output_path(const struct opts *o, size_t i, bool several)
{
	char *path;

	if (!o->output || strcmp(o->output, "-") == 0 || !several || i == 0)
		return strdup(o->output ? o->output : "-");
	if (asprintf(&path, "%s.%zu", o->output, i + 1) < 0)
		return NULL;
	return path;
}

static void report(const struct which *w, const struct gh_err *err)
{
	if (w)
		fprintf(stderr, "goheap-bpf: Go runtime %zu (%s): %s\n", w->i,
			w->file, err->msg);
	else
		fprintf(stderr, "goheap-bpf: %s\n", err->msg);
}

/* Profile and write runtime i; its exit status. */
static int one_runtime(const struct opts *o, struct gh_reader *r,
		       struct gh_target *const *ts, size_t n, size_t i,
		       size_t nwanted)
{
	struct which w = {i + 1, n, gh_target__file(ts[i])};
	const struct which *wp = n > 1 ? &w : NULL;
	struct gh_err err = {GH_OK, ""};
	struct gh_profile *p = NULL;
	char *path = output_path(o, i, nwanted > 1);
	int st = GH_OK;

	if (!path) {
		err_set(&err, GH_E_FAILED, "out of memory");
		goto fail;
	}
	/* A pprof file needs no sample kept: stream them. */
	if (take_profile(r, ts[i], o->format == FMT_PPROF, &p, &err)) {
		if (o->format == FMT_JSON)
			json_failure(o, path, ts[i], &err);
		goto fail;
	}
	verbose_snapshot(o, p);
	if (write_profile(o, path, p, wp, &err))
		goto fail;
	if (p->status == GH_SNAP_PARTIAL) {
		fprintf(stderr, "goheap-bpf: partial profile written: %s\n",
			p->status_reason);
		st = GH_E_PARTIAL;
	}
	goto done;
fail:
	report(wp, &err);
	st = err.code ? (int)err.code : GH_E_FAILED;
done:
	gh_profile__free(p);
	free(path);
	return st;
}

int main(int argc, char **argv)
{
	struct opts o = {.format = FMT_TOP, .index = GH_INUSE_SPACE, .top = -1};
	struct argp argp = {options, parse_opt, NULL, doc, NULL, NULL, NULL};
	struct gh_err err = {GH_OK, ""};
	struct gh_target **ts = NULL;
	struct gh_reader *r = NULL;
	bool *want = NULL;
	size_t n = 0, i, nwanted = 0;
	int st = GH_OK, one;

	argp_err_exit_status = GH_E_USAGE;
	if (argp_parse(&argp, argc, argv, 0, NULL, &o))
		return GH_E_USAGE;
	if (gh_target__open_all(o.pid, &ts, &n, &err))
		goto fail;
	want = calloc(n, sizeof(*want));
	if (!want) {
		err_set(&err, GH_E_FAILED, "out of memory");
		goto fail;
	}
	if (select_runtimes(&o, ts, n, want, &err) ||
	    gh_reader__open(&r, o.backend, o.verbose, &err))
		goto fail;
	test_pause();
	for (i = 0; i < n; i++)
		nwanted += want[i];
	for (i = 0; i < n; i++) {
		if (!want[i])
			continue;
		one = one_runtime(&o, r, ts, n, i, nwanted);
		/* The first failure decides; a partial result only when
		 * nothing failed. */
		if (one != GH_OK && (st == GH_OK || st == GH_E_PARTIAL))
			st = one;
	}
	goto done;
fail:
	if (o.format == FMT_JSON && err.code != GH_E_USAGE)
		json_failure(&o, o.output, NULL, &err);
	fprintf(stderr, "goheap-bpf: %s\n", err.msg);
	st = err.code ? (int)err.code : GH_E_FAILED;
done:
	gh_reader__free(r);
	gh_target__free_all(ts, n);
	free(want);
	return st;
}
