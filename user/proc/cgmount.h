/* cgmount.h - the cgroup mounts this process sees (/proc/self/mountinfo),
 * and the cgroup path that a directory under one of them names: what a
 * person copies from a shell (/sys/fs/cgroup/memory/x) turned into what
 * /proc/PID/cgroup says (/x), for gh_cgroup__path (goheap.h). */
#ifndef GH_PROC_CGMOUNT_H
#define GH_PROC_CGMOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "goheap.h"

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
