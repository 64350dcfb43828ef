/* pidout.h - what --pid's heap profiles (pids.c) and goroutine profiles
 * (goroutines.c) write alike: one output per Go runtime of each process,
 * its name and its top header by the same rule. */
#ifndef GH_CMD_PID_PIDOUT_H
#define GH_CMD_PID_PIDOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/opts.h"

/* Where p's runtime's output goes: --output, FILE.N for a process's N-th
 * runtime, FILE.PID[.N] when several processes were asked for (when
 * several_files: more than one result); NULL when out of memory. */
char *pid_output_path(const struct opts *o, const struct gh_profile *p,
		      bool several_files);

/* p written to path in the chosen format (top: a header naming the
 * runtime when the process holds several), all or nothing. */
int pid_write_one(const struct opts *o, const char *path,
		  const struct gh_profile *p, struct gh_err *err);

/* pprof is binary: one profile at most on stdout. -1, saying so (the fix:
 * --output, --runtime), when n profiles would go there. */
int pid_check_stdout(const struct opts *o, size_t n);

#endif
