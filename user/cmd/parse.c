/* parse.c - the flags' numbers, durations, sizes and PID lists, and the
 * error for a bad one (parse.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cmd/parse.h"
#include "goheap.h"

void flag_bad(const struct argp_state *state, const char *flag, const char *arg,
	      const char *want)
{
	argp_error(state, "invalid --%s '%s': want %s", flag, arg, want);
}

void flag_parse(const struct argp *argp, int argc, char **argv, char *name,
		void *input)
{
	if (name)
		argv[0] = name;
	argp_err_exit_status = GH_E_USAGE;
	if (argp_parse(argp, argc, argv, 0, NULL, input))
		exit(GH_E_USAGE);
}

const char *flag_nonempty(const struct argp_state *state, const char *flag,
			  const char *arg, const char *want)
{
	if (!*arg)
		flag_bad(state, flag, arg, want);
	return arg;
}

int parse_long(const char *s, long min, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return (errno || end == s || *end || *v < min || *v > max) ? -1 : 0;
}

uint64_t flag_duration(const struct argp_state *state, const char *flag,
		       const char *arg)
{
	uint64_t ms = 0;

	if (gh_duration__parse(arg, &ms))
		flag_bad(state, flag, arg,
			 "a duration such as 500ms, 2s or 1m");
	return ms;
}

enum gh_backend flag_backend(const struct argp_state *state, const char *arg)
{
	int b = gh_backend__parse(arg);

	if (b < 0)
		flag_bad(state, "backend", arg, "auto, iter, perf or procmem");
	return (enum gh_backend)b;
}

uint64_t flag_size(const struct argp_state *state, const char *flag,
		   const char *arg)
{
	uint64_t bytes = 0;

	if (gh_size__parse(arg, &bytes))
		flag_bad(state, flag, arg, "a size such as 512M, 2G or 1.5GiB");
	return bytes;
}

/* One PID at *s, up to a ',' or the end; where it ends, or NULL. Digits
 * only: strtol alone would take a sign or leading spaces. */
static const char *one_pid(const char *s, int *pid)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return NULL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || v < 1 || v > INT_MAX || (*end && *end != ','))
		return NULL;
	*pid = (int)v;
	return end;
}

void flag_pids(const struct argp_state *state, const char *arg, int *pids,
	       size_t *n, size_t max)
{
	const char *p = arg;

	do {
		if (*n == max || !(p = one_pid(p, &pids[*n])))
			flag_bad(state, "pid", arg,
				 "process IDs, comma-separated");
		++*n;
	} while (*p++ == ',');
}
