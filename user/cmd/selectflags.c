/* selectflags.c - the process filters, one argp child for the three
 * front ends: each flag's row, help and check written once, filling a
 * struct gh_select (selectflags.h). */
#include "cmd/selectflags.h"
#include "cmd/parse.h"
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
	 "only processes whose cgroup path starts with PREFIX", 0},
	{"container", OPT_CONTAINER, "ID", 0,
	 "only processes in a container whose ID starts with ID (docker, "
	 "containerd, cri-o, podman; an nspawn machine's name)",
	 0},
	{"exclude-self", OPT_EXCLUDE_SELF, NULL, 0,
	 "leave out goheap-bpf itself (a build linking Go)", 0},
	{0},
};

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
		s->cgroup =
			flag_nonempty(state, "cgroup", arg, "a cgroup path");
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
