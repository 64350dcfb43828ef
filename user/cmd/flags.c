/* flags.c - the command's flags (argp): what each means, its default,
 * and the one-line error for a bad one (exit status 2). */
#include <argp.h>
#include <limits.h>
#include <string.h>

#include "cmd/commonflags.h"
#include "cmd/opts.h"
#include "cmd/parse.h"
#include "cmd/selectflags.h"

/* Long-only flags. */
enum {
	OPT_MAX_BUCKETS = 256,
	OPT_MAX_STACK,
	OPT_MAX_READ_MB,
	OPT_MAX_TARGET_MS,
	OPT_PROFILE,
	OPT_MAX_GOROUTINES,
	OPT_MIN_WAIT,
};

/* The default of --timeout: a read this long is surely stuck. */
#define DEFAULT_TIMEOUT_MS 60000

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
	"  goheap-bpf --all                           every Go process, "
	"ranked\n"
	"                                             by in-use bytes\n"
	"  goheap-bpf --all --container 3f4b -d out   one container's: "
	"pprof\n"
	"                                             files and index.jsonl "
	"in out\n"
	"  goheap-bpf --all --profile mutex -d out   every Go process's "
	"mutex\n"
	"                                             profile, ranked by "
	"delay\n"
	"  goheap-bpf --all --comm '^api' -f jsonl -n 10\n"
	"                                             JSON Lines, one "
	"process a\n"
	"                                             line, 10 entries each\n"
	"\nA process holding several Go runtimes (a C program loading Go "
	"c-shared libraries) gives one profile per runtime: the executable's "
	"first, then the libraries' in address order; with --output FILE the "
	"N-th (N >= 2) goes to FILE.N. With several processes, each one's "
	"goes to FILE.PID (FILE.PID.N).\n"
	"\nWith --all, --output-dir DIR gets one pprof file per profile (of "
	"the --profile kind), "
	"named COMM-PID.pb.gz (COMM-PID-N.pb.gz for a process's N-th Go "
	"runtime; COMM with each character but A-Z a-z 0-9 _ - . as _), each "
	"labelled with its process (go tool pprof -comments), and "
	"index.jsonl, a line per process.\n"
	"\ngoheap-bpf serve [--listen ADDR:PORT] ... serves the profiles over "
	"HTTP instead, as each process's own net/http/pprof would: see "
	"goheap-bpf serve --help.\n"
	"\ngoheap-bpf diff OLD NEW compares two heap profiles instead: see "
	"goheap-bpf diff --help.\n"
	"\nExit status: 0 ok, 2 usage, 3 no such process, 4 not a Go "
	"program, 5 unsupported, 6 profiling disabled, 7 no data yet, 8 "
	"missing privileges, 9 kernel lacks support, 10 process exited, 11 "
	"partial result written, 12 output not written, 13 not read in time "
	"(deadline, or perf and an idle process), 1 other failure. With "
	"--all: 0 when every selected Go process was profiled, 11 when some "
	"were, else the first failure's status (4: no Go process found; "
	"block, mutex: 6 when no process turned it on). "
	"SIGINT, SIGTERM or SIGHUP (unless ignored from the start, as by "
	"nohup): the temporary files being written are removed, and "
	"goheap-bpf ends by that signal (a shell shows 130, 143 or 129).";

static const struct argp_option options[] = {
	FLAG_PID("Go process(es) to profile (may be repeated; with --all, a "
		 "filter)",
		 0),
	{"all", 'a', NULL, 0,
	 "every Go process on the host that passes the filters below, read "
	 "in one pass: a summary ranked by in-use bytes (block, mutex: by "
	 "delay; goroutine: by goroutines)",
	 0},
	{"format", 'f', "FMT", 0,
	 "top (default), pprof, json, jsonl (JSON on one line) or legacy "
	 "(the ?debug=1 text); goroutines (the goroutine profile's ?debug=2 "
	 "text), leak (its leak view: stacks by goroutines waiting and how "
	 "long) or leak-json (that view as JSON); with --all: the summary "
	 "(default) or jsonl, for every --profile",
	 0},
	FLAG_OUTPUT("write here instead of stdout (- = stdout): a file is "
		    "replaced whole, keeping its mode and owner (a new one: "
		    "0666 minus the umask); a link is followed if it is yours "
		    "or root's (another user's: only to that user's file); "
		    "block devices are refused (goheap-bpf(8), OUTPUT FILES)",
		    0),
	{"profile", OPT_PROFILE, "KIND", 0,
	 "heap (default), allocs (the heap profile as /debug/pprof/allocs "
	 "writes it: alloc_space its default), block or mutex (once the "
	 "program turned them on), or goroutine (top, pprof, json, jsonl; "
	 "?debug=1 text with --format legacy, ?debug=2 with --format "
	 "goroutines, the leak view with --format leak; iter or procmem); "
	 "with --all, each process's, a pprof file each with --output-dir",
	 0},
	{"sample-index", 'i', "INDEX", 0,
	 "heap: inuse_space (default), inuse_objects, alloc_space, "
	 "alloc_objects; block, mutex: delay (default), contentions",
	 0},
	FLAG_TOP("top/json/jsonl: show at most N entries (top default 20, "
		 "json all; 0 = all)",
		 0),
	FLAG_BACKEND('b',
		     "auto (default: the first that works), iter, perf or "
		     "procmem",
		     0),
	{"runtime", 'r', "N|FILE", 0,
	 "profile only this Go runtime of the process: its number (1 = the "
	 "first) or the file holding it (path or file name)",
	 0},
	FLAG_VERBOSE("say what is done (counts, timings, backends); libbpf "
		     "debug output",
		     0),
	{0, 0, NULL, 0, "Sweep (--all):", 1},
	FLAG_OUTPUT_DIR("write each profile as a pprof file into DIR (made "
			"if missing), and index.jsonl",
			1),
	{0, 0, NULL, 0, "Bounds (a read that meets one ends partial):", 2},
	FLAG_TIMEOUT("TIME",
		     "give up reading after TIME, for all processes together "
		     "(e.g. 500ms, 2s, 1m; default 60s)",
		     2),
	{"max-buckets", OPT_MAX_BUCKETS, "N", 0,
	 "buckets per process (default 16777216)", 2},
	{"max-stack-depth", OPT_MAX_STACK, "N", 0,
	 "stack words a bucket may hold (default: the Go version's limit)", 2},
	{"max-read-mb", OPT_MAX_READ_MB, "MB", 0,
	 "bytes received per process, in MiB (default: no bound)", 2},
	{"max-target-ms", OPT_MAX_TARGET_MS, "MS", 0,
	 "perf: CPU its walk may take in the target (default 500)", 2},
	{"max-goroutines", OPT_MAX_GOROUTINES, "N", 0,
	 "--profile goroutine: goroutines read (default 1000000)", 2},
	{"min-wait", OPT_MIN_WAIT, "TIME", 0,
	 "--format leak, leak-json: only goroutines waiting at least TIME "
	 "(e.g. 30s, "
	 "5m, 1h), as the runtime's own wait time (g.waitsince) says",
	 2},
	{0},
};

/* The filters (--comm, ...), after this parser's own group 1 rows. */
static const struct argp_child children[] = {
	{&select_argp, 0, "", 1},
	{0},
};

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

/* --profile goroutine: for --pid, as pprof, top, JSON, its two texts or
 * the leak view, read with iter or procmem. */
static void check_goroutine(struct argp_state *state, struct opts *o)
{
	if (!o->goroutines) {
		if (o->goroutine_debug == 2 || o->goroutine_leak)
			argp_error(state,
				   "--format %s is the goroutine profile's: "
				   "add --profile goroutine",
				   o->goroutine_leak == 1   ? "leak"
				   : o->goroutine_leak == 2 ? "leak-json"
							    : "goroutines");
		if (o->max_goroutines || o->min_wait_ms)
			argp_error(state, "--%s is for --profile goroutine",
				   o->min_wait_ms ? "min-wait"
						  : "max-goroutines");
		return;
	}
	if (o->all && (o->goroutine_debug == 2 || o->goroutine_leak))
		argp_error(state,
			   "--all writes no %s: give each process with --pid "
			   "instead",
			   o->goroutine_leak ? "leak view"
					     : "goroutine text (--format "
					       "goroutines)");
	if (o->min_wait_ms && !o->goroutine_leak)
		argp_error(state, "--min-wait is for the leak view: add "
				  "--format leak");
	if (o->index && strcmp(o->index, "goroutine"))
		argp_error(state,
			   "invalid --sample-index '%s' for the "
			   "goroutine profile: it has one, goroutine",
			   o->index);
	if (o->backend == GH_BACKEND_PERF)
		argp_error(state, "--profile goroutine reads with the iter or "
				  "the procmem backend: give --backend iter, "
				  "procmem or auto");
	o->w.index = (enum gh_value)0; /* goroutine/count, its one value */
	if (!o->goroutine_debug && o->w.format == GH_FORMAT_LEGACY)
		o->goroutine_debug = 1;
}

/* --profile KIND: the list, and the default sample index. */
static void set_profile(struct argp_state *state, struct opts *o,
			const char *arg)
{
	int k = strcmp(arg, "allocs") ? gh_kind__parse(arg) : GH_KIND_HEAP;

	if (k == GH_KIND_GOROUTINE) { /* not a gh_profile yet: its texts */
		o->goroutines = true;
		return;
	}
	if (k < 0)
		flag_bad(state, "profile", arg,
			 "heap, allocs, block, mutex or goroutine");
	o->kind = (enum gh_kind)k;
	if (!strcmp(arg, "allocs"))
		o->w.index = GH_ALLOC_SPACE;
	else if (k != GH_KIND_HEAP)
		o->w.index = (enum gh_value)GH_DELAY;
}

/* --sample-index, against the profile's own sample types. */
static void set_index(struct argp_state *state, struct opts *o)
{
	int i;

	if (!o->index)
		return;
	if (o->kind == GH_KIND_HEAP)
		i = gh_value__parse(o->index);
	else
		i = !strcmp(o->index, "delay")	       ? GH_DELAY
		    : !strcmp(o->index, "contentions") ? GH_CONTENTIONS
						       : -1;
	if (i < 0)
		argp_error(state,
			   "invalid --sample-index '%s' for the %s "
			   "profile",
			   o->index, gh_kind__name(o->kind));
	o->w.index = (enum gh_value)i;
}

/* What the flags ask, checked together once all are read. */
static void check_all(struct argp_state *state, struct opts *o)
{
	const struct gh_select *s = &o->select;
	bool filters = select_filtered(s) || s->exclude_self;

	if (!o->goroutines)
		set_index(state, o);
	if (!o->all && !o->npids)
		argp_error(state, "--pid or --all is required");
	if (!o->all && (filters || o->output_dir))
		argp_error(state, "--comm, --cgroup, --container, "
				  "--exclude-self and --output-dir are for "
				  "a sweep: add --all");
	if (o->all && o->w.format == GH_FORMAT_PPROF)
		argp_error(state, "--all writes one pprof file per process: "
				  "give --output-dir DIR instead of --format "
				  "pprof");
	if (o->all && o->w.format == GH_FORMAT_JSON)
		argp_error(state, "--all writes one JSON document per process: "
				  "use --format jsonl (one per line)");
	if (o->all && o->w.format == GH_FORMAT_LEGACY)
		argp_error(state, "--all writes no legacy text: give each "
				  "process with --pid instead");
	check_goroutine(state, o);
}

static int parse_key(int key, char *arg, struct argp_state *state,
		     struct opts *o)
{
	long v;
	int i;

	switch (key) {
	case 'f':
		o->goroutine_debug = 0;
		o->goroutine_leak = !strcmp(arg, "leak")	? 1
				    : !strcmp(arg, "leak-json") ? 2
								: 0;
		if (!strcmp(arg, "goroutines")) {
			o->goroutine_debug = 2;
			break;
		}
		if (o->goroutine_leak)
			break;
		if ((i = gh_format__parse(arg)) < 0)
			flag_bad(state, "format", arg,
				 "top, pprof, json, jsonl, legacy, "
				 "goroutines, leak or leak-json");
		o->w.format = (enum gh_format)i;
		break;
	case OPT_MAX_GOROUTINES:
		if (parse_long(arg, 1, LONG_MAX, &v))
			flag_bad(state, "max-goroutines", arg, "N >= 1");
		o->max_goroutines = (size_t)v;
		break;
	case 'i':
		o->index = arg;
		break;
	case 'n':
		if (parse_long(arg, 0, LONG_MAX, &v))
			flag_bad(state, "top", arg, "N >= 0");
		o->w.top_n = (size_t)v;
		break;
	case 'b':
		o->backend = flag_backend(state, arg);
		break;
	case KEY_TIMEOUT:
		o->timeout_ms = flag_duration(state, "timeout", arg);
		break;
	case OPT_MIN_WAIT:
		o->min_wait_ms = flag_duration(state, "min-wait", arg);
		break;
	default:
		if (parse_long(arg, 1, key == OPT_MAX_STACK ? 1024 : LONG_MAX,
			       &v))
			argp_error(state, "invalid --%s '%s': want N >= 1%s",
				   bound_names[key - OPT_MAX_BUCKETS], arg,
				   key == OPT_MAX_STACK ? ", <= 1024" : "");
		set_bound(o, key, (uint64_t)v);
	}
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	static bool top_given;
	struct opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->select;
		return 0;
	case 'p':
		flag_pids(state, arg, o->pids, &o->npids, MAX_PIDS);
		return 0;
	case 'a':
		o->all = true;
		return 0;
	case 'o':
		o->output = arg;
		return 0;
	case 'd':
		o->output_dir =
			flag_nonempty(state, "output-dir", arg, "a directory");
		return 0;
	case 'r':
		o->runtime = flag_nonempty(state, "runtime", arg,
					   "a number or a file");
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case OPT_PROFILE:
		set_profile(state, o, arg);
		return 0;
	case 'f':
	case 'i':
	case 'b':
	case KEY_TIMEOUT:
	case OPT_MAX_BUCKETS:
	case OPT_MAX_STACK:
	case OPT_MAX_READ_MB:
	case OPT_MAX_TARGET_MS:
	case OPT_MAX_GOROUTINES:
	case OPT_MIN_WAIT:
		return parse_key(key, arg, state, o);
	case 'n':
		top_given = true;
		return parse_key(key, arg, state, o);
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		check_all(state, o);
		if (!top_given)
			o->w.top_n = o->w.format == GH_FORMAT_TOP &&
						     !o->goroutine_leak &&
						     o->goroutine_debug != 2
					     ? 20
					     : 0;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

void opts__parse(int argc, char **argv, struct opts *o)
{
	struct argp argp = {options,  parse_opt, NULL, doc,
			    children, NULL,	 NULL};

	*o = (struct opts){.select = {.sz = sizeof(o->select)},
			   .bounds = {.sz = sizeof(o->bounds)},
			   .w = {.sz = sizeof(o->w),
				 .format = GH_FORMAT_TOP,
				 .index = GH_INUSE_SPACE},
			   .timeout_ms = DEFAULT_TIMEOUT_MS};
	flag_parse(&argp, argc, argv, NULL, o);
}
