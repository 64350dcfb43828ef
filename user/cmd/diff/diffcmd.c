/* diffcmd.c - `goheap-bpf diff OLD NEW`: the library reads the two heap
 * (or goroutine) profiles, takes NEW minus OLD as go tool pprof -diff_base
 * OLD NEW does and ranks the stacks by in-use growth (by goroutines); this
 * writes the difference as a pprof and the ranking as a table. --output FILE
 * takes the pprof, and stdout the table; without it the pprof goes to stdout
 * when that is not a terminal (the table then to stderr), and a terminal gets
 * the table alone: a binary profile is never sprayed over one. */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/commonflags.h"
#include "cmd/run.h"
#include "cmd/say.h"

struct diff_opts {
	const char *old, *now, *output;
	size_t top_n;
};

static const char doc[] =
	"Write NEW minus OLD, two pprof heap profiles (runtime/pprof's "
	"/debug/pprof/heap, goheap-bpf -f pprof; gzip or not) or two "
	"goroutine profiles (/debug/pprof/goroutine, goheap-bpf --profile "
	"goroutine -f pprof), as go tool pprof -diff_base OLD NEW computes "
	"it, and print the stacks ranked by in-use growth (goroutines: by "
	"the growth in goroutines).\v"
	"The pprof goes to --output FILE (the table then to stdout), else to "
	"stdout when it is not a terminal (the table then to stderr); on a "
	"terminal only the table is printed.\n"
	"\nExit status: 0 ok, 2 usage, a file that cannot be opened or "
	"profiles of two kinds, 5 a file that is not a pprof heap or "
	"goroutine profile (damaged, or another kind: a CPU profile), 12 "
	"output not written, 1 other failure.";

static const struct argp_option options[] = {
	FLAG_OUTPUT("write the difference as a pprof here (- = stdout), by "
		    "the rules of the main command's --output",
		    0),
	FLAG_TOP("rows of the growth table (default 20; 0 = all)", 0),
	{0},
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct diff_opts *o = state->input;
	unsigned long long v;
	char *end;

	switch (key) {
	case 'o':
		o->output = arg;
		return 0;
	case 'n':
		errno = 0;
		v = strtoull(arg, &end, 10);
		if (errno || end == arg || *end || *arg == '-' || v > SIZE_MAX)
			argp_error(state, "invalid --top '%s': want N >= 0",
				   arg);
		o->top_n = (size_t)v;
		return 0;
	case ARGP_KEY_ARG:
		if (state->arg_num > 1)
			argp_error(state, "unexpected argument '%s'", arg);
		*(state->arg_num ? &o->now : &o->old) = arg;
		return 0;
	case ARGP_KEY_END:
		if (state->arg_num < 2)
			argp_error(state, "want two profiles: OLD NEW");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static int write_pprof(const char *path, const struct gh_profile *d,
		       struct gh_err *err)
{
	const struct gh_write_opts w = {.sz = sizeof(struct gh_write_opts),
					.format = GH_FORMAT_PPROF};
	struct gh_output *out;

	if (gh_output__open(path, &out, err))
		return -1;
	if (gh_profile__write(d, gh_output__file(out), &w, err)) {
		gh_output__abort(out);
		return -1;
	}
	return gh_output__commit(out, err);
}

static int write_both(const struct diff_opts *o, const struct gh_profile *d,
		      const struct gh_growth *g, struct gh_err *err)
{
	bool pprof_stdout = o->output ? strcmp(o->output, "-") == 0
				      : !isatty(STDOUT_FILENO);

	if ((o->output || pprof_stdout) &&
	    write_pprof(o->output ? o->output : "-", d, err))
		return -1;
	return gh_growth__write(g, pprof_stdout ? stderr : stdout, o->top_n,
				err);
}

int run_diff(int argc, char **argv)
{
	struct argp argp = {options, parse_opt, "OLD NEW", doc,
			    NULL,    NULL,	NULL};
	struct diff_opts o = {.top_n = 20};
	struct gh_profile *old = NULL, *now = NULL, *d = NULL;
	struct gh_growth *g = NULL;
	struct gh_err err = {GH_OK, ""};
	int st = GH_OK;

	/* argp names the program by argv[0] in usage and errors */
	static char name[] = "goheap-bpf diff";

	argv[0] = name;
	argp_err_exit_status = GH_E_USAGE;
	if (argp_parse(&argp, argc, argv, 0, NULL, &o))
		return GH_E_USAGE;
	if (gh_profile__read_file(o.old, &old, &err) ||
	    gh_profile__read_file(o.now, &now, &err) ||
	    gh_profile__diff(old, now, &d, &err) ||
	    gh_profile__growth(d, &g, &err) || write_both(&o, d, g, &err)) {
		say("", err.msg);
		st = err.code ? err.code : GH_E_FAILED;
	}
	gh_growth__free(g);
	gh_profile__free(d);
	gh_profile__free(now);
	gh_profile__free(old);
	return st;
}
