/* selectflags.c - the process filters, one argp child for the front ends
 * that select processes (--all, serve, watch): each flag's row, help and
 * check written once, filling a struct gh_select (selectflags.h). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cmd/parse.h"
#include "cmd/say.h"
#include "cmd/selectflags.h"
#include "goheap.h"

/* Apart from the parents' keys (256 and up), though argp tells a child's
 * long options from its parent's by group anyway. */
enum {
	OPT_COMM = 1024,
	OPT_CGROUP,
	OPT_CONTAINER,
	OPT_EXCLUDE_SELF,
};

static const struct argp_option options[] = {
	{"comm", OPT_COMM, "REGEX", 0,
	 "only processes whose name (/proc/PID/comm) matches this extended "
	 "regular expression",
	 0},
	{"cgroup", OPT_CGROUP, "PREFIX", 0,
	 "only processes whose cgroup path (as /proc/PID/cgroup shows it) "
	 "starts with PREFIX; a directory under a cgroup mount "
	 "(/sys/fs/cgroup/memory/x, /sys/fs/cgroup/x) is taken as its "
	 "cgroup (/x)",
	 0},
	{"container", OPT_CONTAINER, "ID", 0,
	 "only processes in a container whose ID starts with ID (docker, "
	 "containerd, cri-o, podman; an nspawn machine's name)",
	 0},
	{"exclude-self", OPT_EXCLUDE_SELF, NULL, 0,
	 "leave out goheap-bpf itself (a build linking Go)", 0},
	{0},
};

/* --cgroup's prefix: a directory copied from a shell becomes the cgroup
 * path it names, for a path under a cgroup mount point matches no
 * process's. One front end per process, so one buffer. A refusal is one
 * line, "goheap-bpf: --cgroup: <cause>; <fix>", with its status
 * (2 for a path beside the mounts). */
static const char *cgroup_prefix(const struct argp_state *state,
				 const char *arg)
{
	static char cg[GH_PATH_MAX];
	struct gh_err err;

	flag_nonempty(state, "cgroup", arg, "a cgroup path");
	if (!gh_cgroup__path(arg, cg, sizeof(cg), &err))
		return cg;
	say("--cgroup: ", err.msg);
	exit(err.code);
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct gh_select *s = state->input;

	switch (key) {
	case OPT_COMM:
		s->comm = arg;
		return 0;
	case OPT_CGROUP:
		/* empty: every process, surely a mistake (an unset
		 * shell variable) */
		s->cgroup = cgroup_prefix(state, arg);
		return 0;
	case OPT_CONTAINER:
		s->container = flag_nonempty(state, "container", arg,
					     "a container ID or its prefix");
		return 0;
	case OPT_EXCLUDE_SELF:
		s->exclude_self = true;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp select_argp = {options, parse_opt, NULL, NULL,
				 NULL,	  NULL,	     NULL};

bool select_filtered(const struct gh_select *s)
{
	return s->comm || s->cgroup || s->container;
}

void select_say_none(const struct gh_select *s, const char *then)
{
	flockfile(stderr);
	fputs("goheap-bpf: no Go process matches", stderr);
	if (s->comm)
		fprintf(stderr, " --comm '%s'", s->comm);
	if (s->cgroup)
		fprintf(stderr, " --cgroup %s", s->cgroup);
	if (s->container)
		fprintf(stderr, " --container %s", s->container);
	fprintf(stderr, "; %s\n", then);
	funlockfile(stderr);
}
