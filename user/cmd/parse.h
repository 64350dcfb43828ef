/* parse.h - the values the command's flags take (flags.c,
 * serve/serveflags.c, watch/watchflags.c), parsed one way for all, and
 * the one error a bad value gets: "invalid --FLAG 'ARG': want ...", exit
 * status 2. */
#ifndef GH_CMD_PARSE_H
#define GH_CMD_PARSE_H

#include <argp.h>
#include <stddef.h>
#include <stdint.h>

#include "goheap.h"

/* Say "invalid --flag 'arg': want want" and exit (argp_error, with
 * argp_err_exit_status set to 2 by each parser). */
void flag_bad(const struct argp_state *state, const char *flag, const char *arg,
	      const char *want);
/* Parse argv by argp into input; a bad flag ends the process with status
 * 2 (GH_E_USAGE). name, unless NULL, stands for argv[0] in usage and
 * errors (argp names the program after it): "goheap-bpf serve". */
void flag_parse(const struct argp *argp, int argc, char **argv, char *name,
		void *input);
/* arg, unless it is empty (then "want want" and exit). */
const char *flag_nonempty(const struct argp_state *state, const char *flag,
			  const char *arg, const char *want);
/* A decimal integer in [min, max], nothing after it; 0, or -1. */
int parse_long(const char *s, long min, long max, long *v);
/* --FLAG's duration in milliseconds, as gh_duration__parse reads it
 * ("500ms", "2s", "1m", "1h"; a bare number is seconds); a bad one ends
 * the process. */
uint64_t flag_duration(const struct argp_state *state, const char *flag,
		       const char *arg);
/* --FLAG's size in bytes, as gh_size__parse reads it ("512M", "2G",
 * "1.5GiB"); a bad one ends the process. */
uint64_t flag_size(const struct argp_state *state, const char *flag,
		   const char *arg);
/* --backend's name, as gh_backend__parse reads it; a bad one ends the
 * process. */
enum gh_backend flag_backend(const struct argp_state *state, const char *arg);
/* --pid's "1234" or "1234,5678,...": each PID appended to pids[*n], at
 * most max in all; a bad list ends the process. */
void flag_pids(const struct argp_state *state, const char *arg, int *pids,
	       size_t *n, size_t max);

#endif
