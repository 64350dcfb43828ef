/* cgmount.h - the cgroup mounts this process sees (/proc/self/mountinfo),
 * and the cgroup path that a directory under one of them names: what a
 * person copies from a shell (/sys/fs/cgroup/memory/x) turned into what
 * /proc/PID/cgroup says (/x), for gh_cgroup__path (the
 * command's: cli/cli.h). */
#ifndef GH_PROC_CGMOUNT_H
#define GH_PROC_CGMOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "goheap.h"

/* The cgroup path (as /proc/PID/cgroup writes it, gh_select.cgroup) that
 * path names, into out: a directory under a cgroup or cgroup2 mount
 * point that /proc/self/mountinfo lists (v1 "/sys/fs/cgroup/memory/x",
 * v2 "/sys/fs/cgroup/x") is the cgroup at the mount's top joined with
 * what follows ("/x"); any other path is taken as a cgroup path already,
 * unchanged, but one beside those mounts ("/sys/fs/cgroup/x" where only
 * /sys/fs/cgroup/memory is one) is refused (GH_E_USAGE) with the forms
 * to use. */
int gh_cgroup__path(const char *path, char *out, size_t size,
		    struct gh_err *err);

/* A mount point as /proc/self/mounts and mountinfo write it: octal
 * escapes for space, tab, newline and backslash; false when it does not
 * fit in size bytes. */
bool cgmount_unescape(const char *s, char *out, size_t size);

/* Does the comma-separated option list opts (a mount's) hold opt? */
bool cgmount_has_option(const char *opts, const char *opt);

/* gh_cgroup__path over the mountinfo text of an open stream (the tests
 * and tests/fuzz/fuzz_memstat.c give it one from memory). */
int cgmount_resolve(FILE *mountinfo, const char *path, char *out, size_t size,
		    struct gh_err *err);

#endif
