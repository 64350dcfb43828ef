/* selectflags.h - the process filters (--comm, --cgroup, --container,
 * --exclude-self) as one argp child, shared by the sweep (flags.c), the
 * server (serve/serveflags.c) and the watch (watch/watchflags.c). */
#ifndef GH_CMD_SELECTFLAGS_H
#define GH_CMD_SELECTFLAGS_H

#include <argp.h>
#include <stdbool.h>

/* Fills the struct gh_select its parent hands it as its input (the
 * parent sets state->child_inputs[i] at ARGP_KEY_INIT); the parent's
 * struct argp_child names the group and its header. */
extern const struct argp select_argp;

struct gh_select;

/* Whether a name, cgroup or container filter is set. */
bool select_filtered(const struct gh_select *s);

/* "goheap-bpf: no Go process matches --comm 'RE' --cgroup P ...; then":
 * filters that match nothing are said once, naming them, for a prefix
 * that can never match looks the same as a quiet host. */
void select_say_none(const struct gh_select *s, const char *then);

#endif
