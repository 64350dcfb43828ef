/* watchopts.h - what `goheap-bpf watch` was asked to do (watchflags.c). */
#ifndef GH_CMD_WATCHOPTS_H
#define GH_CMD_WATCHOPTS_H

#include "cmd/opts.h"

struct watch_cli {
	int pids[MAX_PIDS];
	struct gh_watch_opts w;	 /* w.select: &select */
	struct gh_select select; /* --pid and the filters */
	enum gh_backend backend;
	bool verbose;
};

/* Parse `watch ...` (argv[0] "watch") into o; a bad flag ends the
 * process (exit status 2). */
void watch_opts_parse(int argc, char **argv, struct watch_cli *o);

#endif
