/* memstat.h - how much memory a process holds (RSS, PSS) and what its
 * memory cgroup holds and may hold (v1 memory controller, or v2 where the
 * memory controller is enabled), for gh_memstat__read (goheap.h). */
#ifndef GH_WATCH_MEMSTAT_H
#define GH_WATCH_MEMSTAT_H

#include <stdio.h>

#include "goheap.h"

/* Where the cgroup hierarchies are mounted: the v1 memory controller's
 * and the v2 one's; "" for none. */
struct memcg_roots {
	char v1[GH_PATH_MAX];
	char v2[GH_PATH_MAX];
};

/* The parsers, over text from an open stream (tests/fuzz/fuzz_memstat.c
 * gives them memory): smaps_rollup's "Rss:" and "Pss:" lines, in bytes
 * (-1 when there is no Rss line); /proc/self/mounts; a cgroup memory
 * file's one value ("max" and v1's "no limit" as UINT64_MAX; -1 for
 * anything else). */
int memstat_read_rollup(FILE *f, uint64_t *rss, uint64_t *pss);
void memstat_read_mounts(FILE *f, struct memcg_roots *r);
int memstat_parse_value(const char *text, uint64_t *v);

/* The roots from /proc/self/mounts. */
void memstat_roots(struct memcg_roots *r);

/* The memory cgroup directory of cgroup path cg (as /proc/PID/cgroup
 * gives it) under r: version 1 or 2, or 0 with dir "" when neither holds
 * a memory controller for it. */
int memstat_cgroup_dir(const struct memcg_roots *r, const char *cg, char *dir,
		       size_t size);

/* gh_memstat__read with the roots found once (a watch's). */
int memstat_read(int pid, const struct memcg_roots *roots, struct gh_memstat *m,
		 struct gh_err *err);

/* Only m's cgroup fields: cheap (no page-table walk), for a watch's
 * scan. */
int memstat_read_cgroup(int pid, const struct memcg_roots *roots,
			struct gh_memstat *m, struct gh_err *err);

/* Usage and limit of the memory cgroup at dir (version 1 or 2). */
int memstat_cgroup_usage(const char *dir, int version, uint64_t *usage,
			 uint64_t *limit, struct gh_err *err);

#endif
