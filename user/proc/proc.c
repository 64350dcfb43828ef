/* proc.c - reading /proc/PID: identity (start time), thread-group
 * membership, executable mappings, the load bias of the executable and of
 * shared libraries, and the cgroup.
 *
 * /proc text is untrusted in the sense that it is parsed strictly: a line
 * that does not have the expected shape is an error, never half-used. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/err.h"
#include "proc/proc.h"

/* include/linux/sched.h: the task is exiting. */
#define PF_EXITING 0x4u

static int no_process(int pid, struct gh_err *err)
{
	return err_set(err, GH_E_NOPROC,
		       "no process with PID %d; check the PID (ps -e)", pid);
}

static int open_proc(int pid, const char *what, FILE **f, struct gh_err *err)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	*f = fopen(path, "re");
	if (*f)
		return 0;
	if (errno == ENOENT || errno == ESRCH)
		return no_process(pid, err);
	if (errno == EACCES || errno == EPERM)
		return err_set(err, GH_E_PERM,
			       "cannot read %s: permission denied; run as root "
			       "or with CAP_SYS_PTRACE",
			       path);
	return err_set(err, GH_E_FAILED, "cannot open %s: %s", path,
		       strerror(errno));
}

/* Do the flags field at p hold PF_EXITING? Set as the process starts to
 * exit, before its memory and its exe link go, while field 3 still says
 * 'R' or 'S'. */
static bool exiting(const char *p)
{
	return strtoul(p, NULL, 10) & PF_EXITING;
}

int proc_read_stat(FILE *f, char *state, uint64_t *ticks)
{
	char buf[4096], *p, *end;
	size_t n;
	int i;

	n = fread(buf, 1, sizeof(buf) - 1, f);
	if (!n)
		return 1;
	buf[n] = '\0';
	/* comm may hold spaces and ')': the fields start after the last ')',
	 * ") S " first (so that no search below starts past the text's
	 * end). */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	*state = p[2];
	p++;
	/* After ")": field 3 (state) ... field 9 (flags) = 7th token, field
	 * 22 (starttime) = 20th. */
	for (i = 0; i < 19; i++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -1;
		if (i == 5 && exiting(p + 1) && *state != 'Z')
			*state = 'X';
	}
	errno = 0;
	*ticks = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1 || (*end != ' ' && *end != '\n'))
		return -1;
	return 0;
}

int proc_state(int pid, char *state, uint64_t *ticks, struct gh_err *err)
{
	FILE *f;
	int rc;

	if (open_proc(pid, "stat", &f, err))
		return -1;
	rc = proc_read_stat(f, state, ticks);
	fclose(f);
	/* Reaped since it was opened: the read fails (ESRCH), no text. */
	if (rc > 0)
		return no_process(pid, err);
	if (rc)
		return err_set(err, GH_E_FAILED, "cannot parse /proc/%d/stat",
			       pid);
	return 0;
}

int proc_start_time(int pid, uint64_t *ticks, struct gh_err *err)
{
	char state;

	return proc_state(pid, &state, ticks, err);
}

long proc_read_tgid(FILE *f)
{
	char line[256];
	long tgid = -1;

	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	return tgid;
}

int proc_is_tgid(int pid, struct gh_err *err)
{
	long tgid;
	FILE *f;

	if (open_proc(pid, "status", &f, err))
		return -1;
	tgid = proc_read_tgid(f);
	fclose(f);
	if (tgid < 0)
		return err_set(err, GH_E_FAILED, "no Tgid in /proc/%d/status",
			       pid);
	if (tgid != pid)
		return err_set(err, GH_E_NOPROC,
			       "PID %d is a thread of process %ld; give the "
			       "thread-group leader's PID, %ld",
			       pid, tgid, tgid);
	return 0;
}

static int parse_hex(const char **s, char stop, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!isxdigit((unsigned char)**s))
		return -1;
	*v = strtoull(*s, &end, 16);
	if (errno || *end != stop)
		return -1;
	*s = end + 1;
	return 0;
}

/* "start-end perms offset major:minor inode   path" */
static int parse_map_line(const char *s, struct procmap *m)
{
	uint64_t maj, min;
	char *end;
	int i;

	if (parse_hex(&s, '-', &m->start) || parse_hex(&s, ' ', &m->end) ||
	    m->end < m->start)
		return -1;
	for (i = 0; i < 4; i++)
		if (!s[i] || s[i] == ' ')
			return -1;
	memcpy(m->perms, s, 4);
	m->perms[4] = '\0';
	s += 4;
	if (*s++ != ' ' || parse_hex(&s, ' ', &m->offset) ||
	    parse_hex(&s, ':', &maj) || parse_hex(&s, ' ', &min))
		return -1;
	m->dev_major = (uint32_t)maj;
	m->dev_minor = (uint32_t)min;
	errno = 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	m->inode = strtoull(s, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end))
		return -1;
	s = end;
	while (*s == ' ')
		s++;
	m->path = strndup(s, strcspn(s, "\n"));
	return m->path ? 0 : -1;
}

int proc_read_maps(FILE *f, int pid, struct procmaps *out, struct gh_err *err)
{
	char *line = NULL;
	size_t cap = 0, alloc = 0;

	memset(out, 0, sizeof(*out));
	while (getline(&line, &cap, f) > 0) {
		if (out->n == alloc) {
			size_t na = alloc ? alloc * 2 : 64;
			void *nv = realloc(out->v, na * sizeof(*out->v));

			if (!nv)
				goto nomem;
			out->v = nv;
			alloc = na;
		}
		if (parse_map_line(line, &out->v[out->n])) {
			err_set(err, GH_E_FAILED,
				"cannot parse /proc/%d/maps line: %.80s", pid,
				line);
			goto fail;
		}
		out->n++;
	}
	free(line);
	return 0;
nomem:
	err_set(err, GH_E_FAILED, "out of memory reading /proc/%d/maps", pid);
fail:
	free(line);
	procmaps__free(out);
	return -1;
}

int proc_maps(int pid, struct procmaps *out, struct gh_err *err)
{
	FILE *f;
	int rc;

	memset(out, 0, sizeof(*out));
	if (open_proc(pid, "maps", &f, err))
		return -1;
	rc = proc_read_maps(f, pid, out, err);
	fclose(f);
	return rc;
}

const struct procmap *procmaps__find(const struct procmaps *m, uint64_t addr)
{
	for (size_t i = 0; i < m->n; i++)
		if (addr >= m->v[i].start && addr < m->v[i].end)
			return &m->v[i];
	return NULL;
}

bool procmaps__readable(const struct procmaps *m, uint64_t addr, uint64_t n)
{
	const struct procmap *p = procmaps__find(m, addr);

	for (; p && p->perms[0] == 'r'; p = procmaps__find(m, p->end))
		if (n <= p->end - addr)
			return true;
	return false;
}

void procmaps__free(struct procmaps *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

/* The executable's first mapping: same inode and file offset, and the same
 * device when /proc agrees with stat (overlayfs may report another). */
static const struct procmap *find_exe_map(const struct procmaps *m,
					  const struct stat *st, uint64_t off)
{
	const struct procmap *inode_only = NULL;
	size_t i;

	for (i = 0; i < m->n; i++) {
		const struct procmap *e = &m->v[i];

		if (e->inode != st->st_ino || e->offset != off)
			continue;
		if (e->dev_major == major(st->st_dev) &&
		    e->dev_minor == minor(st->st_dev))
			return e;
		if (!inode_only)
			inode_only = e;
	}
	return inode_only;
}

/* The kernel maps segments at its own page size: 4 KiB on amd64, 4, 16
 * or 64 KiB on arm64 (Go's arm64 linker aligns segments to 64 KiB). */
static uint64_t page_mask(void)
{
	long n = sysconf(_SC_PAGESIZE);

	return n > 0 ? (uint64_t)n - 1 : 0xfff;
}

int proc_exe_bias(int pid, const struct procmaps *m, bool is_dyn,
		  uint64_t load_vaddr, uint64_t load_offset, uint64_t *bias,
		  struct gh_err *err)
{
	const struct procmap *e;
	char path[64];
	struct stat st;

	*bias = 0;
	if (!is_dyn)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if (stat(path, &st))
		return err_set(err, GH_E_NOPROC,
			       "cannot stat %s: %s; the process may have "
			       "exited",
			       path, strerror(errno));
	e = find_exe_map(m, &st, load_offset & ~page_mask());
	if (!e)
		return err_set(err, GH_E_FAILED,
			       "cannot find the executable's mapping in "
			       "/proc/%d/maps to compute its load bias",
			       pid);
	*bias = e->start - (load_vaddr & ~page_mask());
	return 0;
}

int proc_file_bias(int pid, const struct procmaps *m,
		   const struct procmap *file, uint64_t load_vaddr,
		   uint64_t load_offset, uint64_t *bias, struct gh_err *err)
{
	uint64_t off = load_offset & ~page_mask();
	size_t i;

	for (i = 0; i < m->n; i++) {
		const struct procmap *e = &m->v[i];

		if (e->inode == file->inode &&
		    e->dev_major == file->dev_major &&
		    e->dev_minor == file->dev_minor && e->offset == off) {
			*bias = e->start - (load_vaddr & ~page_mask());
			return 0;
		}
	}
	return err_set(err, GH_E_FAILED,
		       "cannot find the first segment of %s in /proc/%d/maps "
		       "to compute its load bias; the library may have "
		       "been unloaded, run goheap-bpf again",
		       file->path, pid);
}

/* "N:controllers:path": is "memory" one of the controllers? */
static bool v1_memory(const char *ctl, size_t n)
{
	const char *p = ctl, *end = ctl + n;

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t len = (size_t)((comma ? comma : end) - p);

		if (len == 6 && memcmp(p, "memory", 6) == 0)
			return true;
		p += len + 1;
	}
	return false;
}

void proc_read_cgroup(FILE *f, char *buf, size_t size)
{
	char *line = NULL, *c1, *c2;
	size_t cap = 0;
	bool have_v1 = false;

	buf[0] = '\0';
	while (getline(&line, &cap, f) > 0) {
		c1 = strchr(line, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (v1_memory(c1 + 1, (size_t)(c2 - c1 - 1))) {
			snprintf(buf, size, "%s", c2 + 1);
			have_v1 = true;
		} else if (!have_v1 && strncmp(line, "0::", 3) == 0) {
			snprintf(buf, size, "%s", c2 + 1);
		}
	}
	free(line);
}

int proc_cgroup(int pid, char *buf, size_t size, struct gh_err *err)
{
	FILE *f;

	buf[0] = '\0';
	if (open_proc(pid, "cgroup", &f, err))
		return -1;
	proc_read_cgroup(f, buf, size);
	fclose(f);
	return 0;
}

int proc_comm(int pid, char *buf, size_t size, struct gh_err *err)
{
	FILE *f;
	size_t n;

	if (open_proc(pid, "comm", &f, err))
		return -1;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* A /proc entry's name as a PID: all digits, in range; else 0. */
static int pid_of(const char *name)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)name[0]))
		return 0;
	errno = 0;
	v = strtol(name, &end, 10);
	return errno || *end || v <= 0 || v > INT32_MAX ? 0 : (int)v;
}

int proc_pids(int **out, size_t *n, struct gh_err *err)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t cap = 0;
	int *v = NULL, pid;

	*out = NULL;
	*n = 0;
	if (!d)
		return err_set(err, GH_E_FAILED, "cannot list /proc: %s",
			       strerror(errno));
	while ((de = readdir(d))) {
		if (!(pid = pid_of(de->d_name)))
			continue;
		if (*n == cap) {
			void *nv = realloc(v, (cap = cap ? 2 * cap : 256) *
						      sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				return err_set(err, GH_E_FAILED,
					       "out of memory");
			}
			v = nv;
		}
		v[(*n)++] = pid;
	}
	closedir(d);
	*out = v;
	return 0;
}
