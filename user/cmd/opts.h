/* opts.h - what the command was asked to do, from its flags (flags.c). */
#ifndef GH_CMD_OPTS_H
#define GH_CMD_OPTS_H

#include "goheap.h"

#define MAX_PIDS 4096

struct opts {
	int pids[MAX_PIDS];
	size_t npids;
	/* --all: every Go process that passes the filters (a sweep) */
	bool all;
	struct gh_select select; /* the filters only (selectflags.c) */
	const char *output_dir;
	uint64_t timeout_ms;
	struct gh_bounds bounds;
	struct gh_write_opts w;
	const char *output;
	enum gh_backend backend;
	const char *runtime; /* --runtime: index or file; NULL = all */
	enum gh_kind kind;   /* --profile: the list read */
	const char *index;   /* --sample-index as given; NULL: the kind's */
	bool verbose;
	/* --profile goroutine: its debug level (0: pprof, --format pprof,
	 * and the formats of a gh_profile, top and json; 1: debug=1,
	 * --format legacy; 2: debug=2, --format goroutines),
	 * --max-goroutines, and the leak view (goroutine_leak: 1 --format
	 * leak, 2 --format leak-json; --min-wait) */
	bool goroutines;
	int goroutine_debug;
	size_t max_goroutines;
	int goroutine_leak;
	uint64_t min_wait_ms;
};

/* Parse argv into o; a bad flag ends the process (exit status 2). */
void opts__parse(int argc, char **argv, struct opts *o);

#endif
