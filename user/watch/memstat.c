/* memstat.c - a process's RSS and PSS (/proc/PID/smaps_rollup) and its
 * memory cgroup's usage and limit: memory.usage_in_bytes and
 * memory.limit_in_bytes on v1, memory.current and memory.max on v2. The
 * cgroup path is /proc/PID/cgroup's (proc_cgroup: the v1 memory line when
 * there is one, else v2's), under the mounts this process sees. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "proc/cgmount.h"
#include "proc/proc.h"
#include "watch/memstat.h"

/* v1 reports "no limit" as the largest page-aligned long. */
#define V1_UNLIMITED (1ULL << 62)

/* "Rss:   1234 kB" into bytes; -1 when line is not tag's. */
static int kb_line(const char *line, const char *tag, uint64_t *bytes)
{
	size_t n = strlen(tag);
	char *end;
	unsigned long long kb;

	if (strncmp(line, tag, n))
		return -1;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line < '0' || *line > '9')
		return -1;
	errno = 0;
	kb = strtoull(line, &end, 10);
	if (errno || strncmp(end, " kB", 3) || kb > UINT64_MAX / 1024)
		return -1;
	*bytes = kb * 1024;
	return 0;
}

int memstat_read_rollup(FILE *f, uint64_t *rss, uint64_t *pss)
{
	char line[256];
	bool have_rss = false;

	*rss = *pss = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!kb_line(line, "Rss:", rss))
			have_rss = true;
		else
			kb_line(line, "Pss:", pss);
		/* a line longer than the buffer: skip the rest of it */
		while (!strchr(line, '\n') && fgets(line, sizeof(line), f))
			;
	}
	return have_rss ? 0 : -1;
}

void memstat_read_mounts(FILE *f, struct memcg_roots *r)
{
	char line[4096], dir[GH_PATH_MAX];
	char *save, *dev, *mnt, *type, *opts;

	r->v1[0] = r->v2[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\n')) {
			while (fgets(line, sizeof(line), f) &&
			       !strchr(line, '\n'))
				;
			continue;
		}
		dev = strtok_r(line, " \n", &save);
		mnt = strtok_r(NULL, " \n", &save);
		type = strtok_r(NULL, " \n", &save);
		opts = strtok_r(NULL, " \n", &save);
		if (!dev || !opts || !cgmount_unescape(mnt, dir, sizeof(dir)))
			continue;
		if (!strcmp(type, "cgroup") &&
		    cgmount_has_option(opts, "memory") && !r->v1[0])
			memcpy(r->v1, dir, strlen(dir) + 1);
		else if (!strcmp(type, "cgroup2") && !r->v2[0])
			memcpy(r->v2, dir, strlen(dir) + 1);
	}
}

void memstat_roots(struct memcg_roots *r)
{
	FILE *f = fopen("/proc/self/mounts", "re");

	r->v1[0] = r->v2[0] = '\0';
	if (!f)
		return;
	memstat_read_mounts(f, r);
	fclose(f);
}

int memstat_parse_value(const char *text, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!strcmp(text, "max\n") || !strcmp(text, "max")) {
		*v = UINT64_MAX;
		return 0;
	}
	if (text[0] < '0' || text[0] > '9')
		return -1;
	errno = 0;
	x = strtoull(text, &end, 10);
	if (errno || (*end && strcmp(end, "\n")))
		return -1;
	*v = x >= V1_UNLIMITED ? UINT64_MAX : x;
	return 0;
}

/* One value file of a cgroup directory. */
static int read_value(const char *dir, const char *name, uint64_t *v,
		      struct gh_err *err)
{
	char path[GH_PATH_MAX + 64], text[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return err_set(err, errno == ENOENT ? GH_E_NOPROC : GH_E_FAILED,
			       "cannot read %s: %s; the cgroup may be gone",
			       path, strerror(errno));
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	if (memstat_parse_value(text, v))
		return err_set(err, GH_E_FAILED,
			       "unexpected content in %s; please report it",
			       path);
	return 0;
}

int memstat_cgroup_usage(const char *dir, int version, uint64_t *usage,
			 uint64_t *limit, struct gh_err *err)
{
	bool v1 = version == 1;

	if (read_value(dir, v1 ? "memory.usage_in_bytes" : "memory.current",
		       usage, err))
		return -1;
	return read_value(dir, v1 ? "memory.limit_in_bytes" : "memory.max",
			  limit, err);
}

/* root + cg into dir when the result names file there. */
static bool has_file(const char *root, const char *cg, const char *file,
		     char *dir, size_t size)
{
	char path[GH_PATH_MAX + 64];
	int n;

	if (!root[0] || strstr(cg, "/../") || strstr(cg, "/.."))
		return false;
	n = snprintf(dir, size, "%s%s", root, strcmp(cg, "/") ? cg : "");
	if (n < 0 || (size_t)n >= size)
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, R_OK) == 0;
}

int memstat_cgroup_dir(const struct memcg_roots *r, const char *cg, char *dir,
		       size_t size)
{
	if (cg[0] != '/') {
		dir[0] = '\0';
		return 0;
	}
	if (has_file(r->v1, cg, "memory.usage_in_bytes", dir, size))
		return 1;
	if (has_file(r->v2, cg, "memory.current", dir, size))
		return 2;
	dir[0] = '\0';
	return 0;
}

int gh_memstat__read(int pid, struct gh_memstat *m, struct gh_err *err)
{
	struct memcg_roots roots;

	memstat_roots(&roots);
	return memstat_read(pid, &roots, m, err);
}

int memstat_read(int pid, const struct memcg_roots *roots, struct gh_memstat *m,
		 struct gh_err *err)
{
	char path[64];
	FILE *f;
	int rc;

	memset(m, 0, sizeof(*m));
	m->cgroup_limit = UINT64_MAX;
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
	if (!(f = fopen(path, "re")))
		return err_set(err,
			       errno == ENOENT	 ? GH_E_NOPROC
			       : errno == EACCES ? GH_E_PERM
						 : GH_E_FAILED,
			       "cannot read %s: %s; run as root or with "
			       "CAP_SYS_PTRACE",
			       path, strerror(errno));
	rc = memstat_read_rollup(f, &m->rss, &m->pss);
	fclose(f);
	if (rc)
		return err_set(err, GH_E_GONE,
			       "%s has no Rss line: the process is exiting",
			       path);
	return memstat_read_cgroup(pid, roots, m, err);
}

int memstat_read_cgroup(int pid, const struct memcg_roots *roots,
			struct gh_memstat *m, struct gh_err *err)
{
	char cg[GH_PATH_MAX];

	m->cgroup_version = 0;
	m->cgroup_dir[0] = '\0';
	m->cgroup_usage = 0;
	m->cgroup_limit = UINT64_MAX;
	if (proc_cgroup(pid, cg, sizeof(cg), err))
		return -1;
	m->cgroup_version = memstat_cgroup_dir(roots, cg, m->cgroup_dir,
					       sizeof(m->cgroup_dir));
	if (m->cgroup_version &&
	    memstat_cgroup_usage(m->cgroup_dir, m->cgroup_version,
				 &m->cgroup_usage, &m->cgroup_limit, NULL))
		m->cgroup_version = 0;
	return 0;
}
