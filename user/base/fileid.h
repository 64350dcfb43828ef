/* fileid.h - a file known by what it is, not by its name: device, inode,
 * size and modification time. Caches of what a file holds (a parsed
 * binary, a build ID) key their entries by it: one path may name another
 * file later, and one file may be reached by many paths (/proc/PID/exe,
 * /proc/PID/map_files/..., another mount namespace). */
#ifndef GH_BASE_FILEID_H
#define GH_BASE_FILEID_H

#include <stdbool.h>
#include <stdint.h>

struct fileid {
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
};

/* The identity of the file path names (links followed); -1 with errno. */
int fileid__of(const char *path, struct fileid *id);

uint64_t fileid__hash(const struct fileid *id);
bool fileid__eq(const struct fileid *a, const struct fileid *b);

#endif
