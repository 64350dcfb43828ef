/* mappings.c - the profile's mappings, as runtime/pprof's
 * parseProcSelfMaps builds them from the target's /proc/PID/maps:
 * executable entries with a path, " (deleted)" trimmed, and the GNU build
 * ID of each file read through /proc/PID/map_files (so files in other
 * mount namespaces, or deleted ones, still give theirs), else through
 * /proc/PID/root when that reaches the very file mapped. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/err.h"
#include "profile/mappings.h"

static const char deleted[] = " (deleted)";

static char *trimmed_path(const char *path)
{
	size_t n = strlen(path), d = sizeof(deleted) - 1;

	if (n >= d && strcmp(path + n - d, deleted) == 0)
		n -= d;
	return strndup(path, n);
}

/* The mapped file at /proc/PID/root/PATH, if it is that file (a regular
 * file, same device and inode as the mapping), as an O_PATH descriptor:
 * the way to it for a caller without what map_files takes
 * (CAP_DAC_READ_SEARCH, CAP_CHECKPOINT_RESTORE), whom CAP_SYS_PTRACE lets
 * into the process's root. O_PATH opens nothing (a FIFO or a device that a
 * process swapped in at that path is neither waited on nor acted on), and
 * the descriptor checked is the one read through /proc/self/fd: no window
 * between the check and the read. A deleted file's path names another
 * file, or none. -1 when there is no such file. */
static int via_root(int pid, const struct procmap *m)
{
	char path[64 + GH_PATH_MAX];
	struct stat st;
	int fd;

	if (strstr(m->path, deleted))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/root%s", pid, m->path);
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_ino != m->inode ||
	    major(st.st_dev) != m->dev_major ||
	    minor(st.st_dev) != m->dev_minor) {
		close(fd);
		return -1;
	}
	return fd;
}

/* elfBuildID: "" for [vdso] and files that are not ELF or have none.
 * map_files is checked with the effective IDs and capabilities, which
 * open() uses (access() would drop a non-root caller's). */
static char *build_id_of(int pid, const struct procmap *m, struct buildids *ids)
{
	char path[128 + GH_PATH_MAX];
	char *hex;
	int fd;

	if (m->path[0] == '[')
		return strdup("");
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 pid, m->start, m->end);
	if (!faccessat(AT_FDCWD, path, R_OK, AT_EACCESS))
		return buildids__get(ids, path);
	fd = via_root(pid, m);
	if (fd < 0)
		return strdup("");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	hex = buildids__get(ids, path);
	close(fd);
	return hex;
}

static bool wanted(const struct procmap *m)
{
	/* Executable only; anonymous entries have no path. */
	return m->perms[2] == 'x' && m->path[0] != '\0';
}

int mappings_build(int pid, const struct procmaps *maps, struct buildids *ids,
		   struct gh_profile *p, struct gh_err *err)
{
	size_t i, n = 0;

	p->mappings = calloc(maps->n ? maps->n : 1, sizeof(*p->mappings));
	if (!p->mappings)
		return err_set(err, GH_E_FAILED, "out of memory");
	for (i = 0; i < maps->n; i++) {
		const struct procmap *m = &maps->v[i];
		struct gh_mapping *o = &p->mappings[n];

		if (!wanted(m))
			continue;
		o->start = m->start;
		o->limit = m->end;
		o->offset = m->offset;
		o->file = trimmed_path(m->path);
		o->build_id = build_id_of(pid, m, ids);
		p->nmappings = ++n;
		if (!o->file || !o->build_id)
			return err_set(err, GH_E_FAILED, "out of memory");
	}
	return 0;
}

/* pprof expects a mapping: runtime/pprof fakes one when it has none. */
int mappings_add_fake(struct gh_profile *p, struct gh_err *err)
{
	p->mappings[0].file = strdup("");
	p->mappings[0].build_id = strdup("");
	p->nmappings = 1;
	if (!p->mappings[0].file || !p->mappings[0].build_id)
		return err_set(err, GH_E_FAILED, "out of memory");
	return 0;
}
