/* proc.h - what /proc tells about a process: identity (TGID + start time),
 * executable mappings, the load bias of its executable, its cgroup. */
#ifndef GH_PROC_H
#define GH_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "goheap.h"

/* One /proc/PID/maps line. */
struct procmap {
	uint64_t start, end, offset;
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	char perms[5];
	char *path; /* "" for anonymous mappings; " (deleted)" kept */
};

struct procmaps {
	struct procmap *v;
	size_t n;
};

/* Start time of pid in clock ticks since boot (field 22 of /proc/PID/stat).
 * NOPROC when the process does not exist; FAILED for unparsable text. */
int proc_start_time(int pid, uint64_t *ticks, struct gh_err *err);
/* The same, and its state (field 3: 'R', 'S', ..., 'Z' for a zombie, 'X'
 * for one on its way out: dead, or exiting by its flags, field 9). */
int proc_state(int pid, char *state, uint64_t *ticks, struct gh_err *err);

/* Is pid a thread-group leader (TGID == pid)? NOPROC when absent. */
int proc_is_tgid(int pid, struct gh_err *err);

/* Parse /proc/PID/maps. */
int proc_maps(int pid, struct procmaps *out, struct gh_err *err);
void procmaps__free(struct procmaps *m);
/* The mapping holding addr, or NULL. */
const struct procmap *procmaps__find(const struct procmaps *m, uint64_t addr);
/* Are the n bytes at addr in readable mappings (one, or several end to
 * end)? A bucket header that runs into no mapping is not a page out of
 * memory but a bad address. */
bool procmaps__readable(const struct procmaps *m, uint64_t addr, uint64_t n);

/* Identify the mapping of the file behind /proc/PID/exe (by device and
 * inode) and compute the load bias for an ET_DYN executable whose first
 * PT_LOAD is (vaddr, offset): bias = start - offset - (vaddr - offset of
 * that segment), page-aligned. 0 for ET_EXEC. */
int proc_exe_bias(int pid, const struct procmaps *m, bool is_dyn,
		  uint64_t load_vaddr, uint64_t load_offset, uint64_t *bias,
		  struct gh_err *err);

/* The same for a shared library: the mapping of file (dev, inode) holding
 * its first PT_LOAD (vaddr, offset) gives bias = start - page(vaddr).
 * FAILED when no mapping of that file holds that offset. */
int proc_file_bias(int pid, const struct procmaps *m,
		   const struct procmap *file, uint64_t load_vaddr,
		   uint64_t load_offset, uint64_t *bias, struct gh_err *err);

/* The process's cgroup path from /proc/PID/cgroup: the cgroup v1 memory
 * controller's line when there is one (hybrid hierarchies keep memory on
 * v1), else the v2 "0::" line; "" when neither exists. NOPROC when the
 * process is gone. */
int proc_cgroup(int pid, char *buf, size_t size, struct gh_err *err);

/* The process's name (/proc/PID/comm), at most size - 1 bytes. */
int proc_comm(int pid, char *buf, size_t size, struct gh_err *err);

/* The parsers of the files above, over the text of an open stream (the
 * functions above pass the /proc file; tests/fuzz/fuzz_proc.c, memory):
 * stat's state ('X' when exiting) and start time (-1 when unparsable, 1
 * for no text: the process was reaped), status's Tgid (-1 when there is
 * none), maps (pid names the file in the error) and cgroup. */
int proc_read_stat(FILE *f, char *state, uint64_t *ticks);
long proc_read_tgid(FILE *f);
int proc_read_maps(FILE *f, int pid, struct procmaps *out, struct gh_err *err);
void proc_read_cgroup(FILE *f, char *buf, size_t size);

/* Every process on the host (the numeric entries of /proc, threads not
 * included), unsorted: *out (free it) of *n. */
int proc_pids(int **out, size_t *n, struct gh_err *err);

#endif
