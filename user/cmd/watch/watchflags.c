/* watchflags.c - the flags of `goheap-bpf watch` (argp): targets,
 * triggers, retention, and the one-line error for a bad one (status 2). */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commonflags.h"
#include "cmd/parse.h"
#include "cmd/selectflags.h"
#include "cmd/watch/watchopts.h"

enum {
	OPT_INTERVAL = 256,
	OPT_RSS_ABOVE,
	OPT_CGROUP_ABOVE,
	OPT_PRESSURE,
	OPT_GROWTH,
	OPT_AT_PEAK,
	OPT_EVERY,
	OPT_LEAK_WINDOW,
	OPT_NO_OOM,
	OPT_OOM_RING,
	OPT_COOLDOWN,
	OPT_KEEP,
	OPT_KEEP_BYTES,
	OPT_GOROUTINES_ABOVE,
};

static const char doc[] =
	"Watch Go processes and write a heap profile (pprof and JSON, with "
	"what triggered it) into --output-dir when memory goes wrong, and "
	"when the kernel OOM-kills one (unless --no-oom).\v"
	"EXAMPLES:\n"
	"  goheap-bpf watch -d heaps --cgroup /app --cgroup-above 80\n"
	"  goheap-bpf watch -d heaps -p 1234 --rss-above 2G --cooldown 5m\n"
	"  goheap-bpf watch -d heaps --comm '^api$' --growth 100M/1m "
	"--at-peak\n"
	"  goheap-bpf watch -d heaps --pressure some:150ms/1s --every 10m\n"
	"  goheap-bpf watch -d heaps -p 1234 --goroutines-above 10000\n"
	"  goheap-bpf watch -d heaps --cgroup /kubepods   (OOM kills only)\n"
	"\nFiles: COMM-PID-TIME-TRIGGER.pb.gz and .json per snapshot, "
	"COMM-PID-peak.pb.gz and .json for --at-peak, "
	"COMM-PID-TIME-goroutines-above.goroutine.pb.gz (the goroutine "
	"profile) beside --goroutines-above's, index.jsonl naming "
	"what is kept. SIGHUP looks for the processes again; SIGINT or "
	"SIGTERM ends the watch once the file being written is whole (a "
	"second one at once), by that signal (status 130 or 143).\n"
	"\nExit status: 0 when every --pid process exited, 2 usage, 3 no "
	"such process, 4 not a Go program, 8 missing privileges, 9 kernel "
	"lacks PSI (--pressure), 12 output directory unusable, 1 other "
	"failure.";

static const struct argp_option options[] = {
	FLAG_OUTPUT_DIR("where the snapshots go (made if missing); required",
			0),
	FLAG_PID("watch these processes (may be repeated); default: every "
		 "Go process that passes the filters, looked for at each "
		 "interval",
		 0),
	{0, 0, NULL, 0, "Triggers (at least one; any together):", 1},
	{"cgroup-above", OPT_CGROUP_ABOVE, "PERCENT", 0,
	 "the process's memory cgroup's usage reaches PERCENT of its limit "
	 "(an event on cgroup v1; polled on v2)",
	 1},
	{"rss-above", OPT_RSS_ABOVE, "SIZE", 0,
	 "the process's RSS goes above SIZE (e.g. 512M, 2G)", 1},
	{"pressure", OPT_PRESSURE, "some|full:STALL/WINDOW", 0,
	 "a PSI trigger fires on the cgroup's memory.pressure (v2) or "
	 "/proc/pressure/memory (e.g. some:150ms/1s)",
	 1},
	{"growth", OPT_GROWTH, "SIZE/DURATION", 0,
	 "RSS grows SIZE within DURATION (e.g. 100M/1m)", 1},
	{"at-peak", OPT_AT_PEAK, NULL, 0,
	 "keep one snapshot per process, replaced when its in-use bytes "
	 "reach a new maximum (read at each interval)",
	 1},
	{"every", OPT_EVERY, "DURATION", 0, "a snapshot each DURATION", 1},
	{"goroutines-above", OPT_GOROUTINES_ABOVE, "N", 0,
	 "the process's runtime.NumGoroutine() goes above N (read at each "
	 "interval); its goroutine profile is written beside the snapshot",
	 1},
	{"leak-window", OPT_LEAK_WINDOW, "K", 0,
	 "name as likely leaks the stacks whose in-use bytes grew at each "
	 "of a process's last K snapshots (default 3; 1 to 16)",
	 1},
	{"no-oom", OPT_NO_OOM, NULL, 0,
	 "do not capture OOM kills (on by default: the victim's profile, "
	 "walked in its own context as it dies; Linux 5.17+ with BTF)",
	 1},
	{"oom-ring", OPT_OOM_RING, "SIZE", 0,
	 "the OOM capture's ring buffer, memory the watch holds (default "
	 "32M, about 100k buckets; a power of two from 64K to 1G): a "
	 "larger victim's list is complete only if drained in time",
	 1},
	{0, 0, NULL, 0, "Pacing and retention:", 2},
	{"interval", OPT_INTERVAL, "DURATION", 0,
	 "polling and discovery period (default 1s)", 2},
	{"cooldown", OPT_COOLDOWN, "DURATION", 0,
	 "per process, at least this between snapshots (default 0)", 2},
	{"keep", OPT_KEEP, "N", 0,
	 "snapshots kept per process, the oldest removed (default 20; 0 = "
	 "no bound)",
	 2},
	{"keep-bytes", OPT_KEEP_BYTES, "SIZE", 0,
	 "bytes of snapshots kept per process (default 1G; the newest "
	 "always)",
	 2},
	FLAG_BACKEND('b', FLAG_BACKEND_DOC, 2),
	FLAG_TIMEOUT("DURATION", "give up a read after DURATION (default 10s)",
		     2),
	FLAG_VERBOSE("say how many processes are watched, as that changes", 2),
	{0},
};

/* The filters (--comm, ...), among the targets after --pid. */
static const struct argp_child children[] = {
	{&select_argp, 0, "", 0},
	{0},
};

/* "100M/1m" */
static void growth(struct argp_state *state, const char *arg,
		   struct gh_watch_opts *w)
{
	const char *slash = strchr(arg, '/');
	char size[64];

	if (!slash || (size_t)(slash - arg) >= sizeof(size) ||
	    gh_duration__parse(slash + 1, &w->growth_window_ms))
		flag_bad(state, "growth", arg, "SIZE/DURATION such as 100M/1m");
	memcpy(size, arg, (size_t)(slash - arg));
	size[slash - arg] = '\0';
	if (gh_size__parse(size, &w->growth_bytes))
		flag_bad(state, "growth", arg, "SIZE/DURATION such as 100M/1m");
}

static void percent(struct argp_state *state, const char *arg,
		    struct gh_watch_opts *w)
{
	char *end;

	errno = 0;
	w->cgroup_above = strtod(arg, &end);
	if (errno || end == arg || (*end && strcmp(end, "%")) ||
	    !(w->cgroup_above > 0 && w->cgroup_above <= 100))
		flag_bad(state, "cgroup-above", arg,
			 "a percentage above 0, at most 100");
}

/* --oom-ring SIZE: what gh_oom_watch_opts.ring_bytes takes. */
static uint32_t ring_size(struct argp_state *state, const char *arg)
{
	uint64_t v = flag_size(state, "oom-ring", arg);

	if (v < (64u << 10) || v > (1u << 30) || (v & (v - 1)))
		flag_bad(state, "oom-ring", arg,
			 "a power of two from 64K to 1G (e.g. 1M, 32M)");
	return (uint32_t)v;
}

static int trigger_key(int key, char *arg, struct argp_state *state,
		       struct watch_cli *o)
{
	struct gh_watch_opts *w = &o->w;
	long v;

	switch (key) {
	case OPT_RSS_ABOVE:
		w->rss_above = flag_size(state, "rss-above", arg);
		return 0;
	case OPT_CGROUP_ABOVE:
		percent(state, arg, w);
		return 0;
	case OPT_PRESSURE:
		w->pressure = arg;
		return 0;
	case OPT_GROWTH:
		growth(state, arg, w);
		return 0;
	case OPT_AT_PEAK:
		w->at_peak = true;
		return 0;
	case OPT_EVERY:
		w->every_ms = flag_duration(state, "every", arg);
		return 0;
	case OPT_GOROUTINES_ABOVE:
		if (parse_long(arg, 1, LONG_MAX, &v))
			flag_bad(state, "goroutines-above", arg, "N >= 1");
		w->goroutines_above = (uint64_t)v;
		return 0;
	case OPT_NO_OOM:
		w->no_oom = true;
		return 0;
	case OPT_OOM_RING:
		w->oom_ring_bytes = ring_size(state, arg);
		return 0;
	case OPT_LEAK_WINDOW:
		if (parse_long(arg, 1, 16, &v))
			flag_bad(state, "leak-window", arg, "K from 1 to 16");
		w->leak_window = (size_t)v;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static int pacing_key(int key, char *arg, struct argp_state *state,
		      struct watch_cli *o)
{
	struct gh_watch_opts *w = &o->w;
	long v;

	switch (key) {
	case OPT_INTERVAL:
		w->interval_ms = flag_duration(state, "interval", arg);
		return 0;
	case OPT_COOLDOWN:
		w->cooldown_ms = flag_duration(state, "cooldown", arg);
		return 0;
	case KEY_TIMEOUT:
		w->timeout_ms = flag_duration(state, "timeout", arg);
		return 0;
	case OPT_KEEP:
		if (parse_long(arg, 0, LONG_MAX, &v))
			flag_bad(state, "keep", arg, "N >= 0");
		w->keep_files = (size_t)v;
		return 0;
	case OPT_KEEP_BYTES:
		w->keep_bytes = flag_size(state, "keep-bytes", arg);
		return 0;
	case 'b':
		o->backend = flag_backend(state, arg);
		return 0;
	default:
		return trigger_key(key, arg, state, o);
	}
}

static void check_all(struct argp_state *state, struct watch_cli *o)
{
	const struct gh_watch_opts *w = &o->w;

	if (!w->output_dir)
		argp_error(state, "--output-dir DIR is required");
	if (w->no_oom && !w->rss_above && !w->cgroup_above && !w->pressure &&
	    !w->growth_bytes && !w->at_peak && !w->every_ms &&
	    !w->goroutines_above)
		argp_error(state, "no trigger: with --no-oom, give at least "
				  "one of --cgroup-above, --rss-above, "
				  "--pressure, --growth, --at-peak, --every, "
				  "--goroutines-above");
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct watch_cli *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->select;
		return 0;
	case 'd':
		o->w.output_dir = arg;
		return 0;
	case 'p':
		flag_pids(state, arg, o->pids, &o->select.npids, MAX_PIDS);
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		check_all(state, o);
		return 0;
	default:
		return pacing_key(key, arg, state, o);
	}
}

void watch_opts_parse(int argc, char **argv, struct watch_cli *o)
{
	static char name[] = "goheap-bpf watch"; /* in usage and errors */
	struct argp argp = {options, parse_opt, "", doc, children, NULL, NULL};

	memset(o, 0, sizeof(*o));
	o->w.sz = sizeof(o->w);
	o->w.keep_files = 20;
	o->w.keep_bytes = 1ULL << 30;
	o->w.select = &o->select;
	o->select.sz = sizeof(o->select);
	o->select.pids = o->pids;
	flag_parse(&argp, argc, argv, name, o);
	/* --pid with filters: the PIDs are one more filter */
	o->select.pids_filter = o->select.npids && select_filtered(&o->select);
}
