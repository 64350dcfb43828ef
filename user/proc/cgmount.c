/* cgmount.c - a cgroup given as a directory (cgmount.h). A line of
 * /proc/self/mountinfo is "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS
 * [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS" (proc(5)); the cgroup and
 * cgroup2 ones say where each hierarchy is mounted and which of its
 * cgroups the mount shows at its top (ROOT: "/" on a host, the
 * container's own cgroup in a container without a cgroup namespace), so
 * that a directory under MOUNTPOINT is the cgroup ROOT joined with the
 * rest. Every line is untrusted text: one that is cut, overlong or of
 * another shape is skipped, and no field is copied without its bound. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "proc/cgmount.h"

/* One cgroup mount: its mount point, the cgroup at its top, and how
 * good an example it makes: the hierarchies whose paths the filter is
 * matched against (proc_cgroup: v1's memory controller, else v2) first. */
struct cgmount {
	char dir[GH_PATH_MAX];
	char root[GH_PATH_MAX];
	int rank; /* 2 v1 memory, 1 v2, 0 another v1 controller */
};

/* What a scan of mountinfo found for one path. */
struct cgscan {
	const char *path;
	struct cgmount best;	/* the deepest mount holding path */
	char near[GH_PATH_MAX]; /* a mount beside path, for the error */
	int near_rank;
	bool found;
};

bool cgmount_has_option(const char *opts, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = opts; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, opt, n) && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

bool cgmount_unescape(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; *s; s++) {
		char c = *s;

		if (c == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			c = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				   (s[3] - '0'));
			s += 3;
		}
		if (n + 1 >= size)
			return false;
		out[n++] = c;
	}
	out[n] = '\0';
	return true;
}

/* The length of dir when path is dir or below it, else 0. The root
 * directory holds every absolute path, so a cgroup mounted on "/" could
 * not be told from a cgroup path: it counts as holding none. */
static size_t under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n < 2 || strncmp(path, dir, n) || (path[n] && path[n] != '/'))
		return 0;
	return n;
}

/* A mountinfo line's cgroup mount into *m; false for any other line. */
static bool parse_line(char *line, struct cgmount *m)
{
	char *save, *f[5], *fs = NULL, *opts, *tok;

	for (int i = 0; i < 5; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " \n", &save)))
			return false;
	/* the optional fields end at a lone "-" */
	while ((tok = strtok_r(NULL, " \n", &save)))
		if (!strcmp(tok, "-")) {
			fs = strtok_r(NULL, " \n", &save);
			break;
		}
	if (!fs || (strcmp(fs, "cgroup") && strcmp(fs, "cgroup2")))
		return false;
	strtok_r(NULL, " \n", &save); /* the source */
	opts = strtok_r(NULL, " \n", &save);
	if (!opts)
		return false; /* cut short */
	m->rank = !strcmp(fs, "cgroup2")	       ? 1
		  : cgmount_has_option(opts, "memory") ? 2
						       : 0;
	return f[3][0] == '/' && cgmount_unescape(f[3], m->root, GH_PATH_MAX) &&
	       cgmount_unescape(f[4], m->dir, GH_PATH_MAX);
}

/* Keep m when it holds the path at least as deeply as the best so far (of
 * two mounts on one directory the later, which hides the other), or, as
 * the error's example, when the path is beside it (in its parent). */
static void consider(struct cgscan *s, const struct cgmount *m)
{
	size_t n = under(s->path, m->dir);
	const char *slash = strrchr(m->dir, '/');
	char parent[GH_PATH_MAX];

	if (n && (!s->found || n >= strlen(s->best.dir))) {
		s->best = *m;
		s->found = true;
	}
	if ((s->near[0] && m->rank <= s->near_rank) || !slash ||
	    slash == m->dir)
		return;
	memcpy(parent, m->dir, (size_t)(slash - m->dir));
	parent[slash - m->dir] = '\0';
	if (under(s->path, parent)) {
		memcpy(s->near, m->dir, strlen(m->dir) + 1);
		s->near_rank = m->rank;
	}
}

static void scan(FILE *f, struct cgscan *s)
{
	char line[3 * GH_PATH_MAX];
	struct cgmount m;

	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\n')) {
			/* overlong: skip to its end, then on */
			while (fgets(line, sizeof(line), f) &&
			       !strchr(line, '\n'))
				;
			continue;
		}
		if (parse_line(line, &m))
			consider(s, &m);
	}
}

static int too_long(struct gh_err *err)
{
	return err_set(err, GH_E_USAGE,
		       "cgroup path too long; give a shorter prefix of it");
}

/* The cgroup that s->path names under its mount: the mount's root joined
 * with what follows the mount point, as typed (a trailing "/" keeps a
 * prefix from matching the cgroup's siblings). */
static int join(const struct cgscan *s, char *out, size_t size,
		struct gh_err *err)
{
	const char *rest = s->path + strlen(s->best.dir);
	const char *root = strcmp(s->best.root, "/") ? s->best.root : "";
	int n = snprintf(out, size, "%s%s", root, rest);

	if (n < 0 || (size_t)n >= size)
		return too_long(err);
	if (!out[0])
		memcpy(out, "/", 2);
	return 0;
}

int cgmount_resolve(FILE *mountinfo, const char *path, char *out, size_t size,
		    struct gh_err *err)
{
	struct cgscan s = {.path = path};

	scan(mountinfo, &s);
	if (s.found)
		return join(&s, out, size, err);
	if (s.near[0])
		return err_set(err, GH_E_USAGE,
			       "%s is under no cgroup mount; give a cgroup "
			       "as /proc/PID/cgroup shows it (/x), or a "
			       "directory under a cgroup mount (%s/x)",
			       path, s.near);
	if (strlen(path) >= size)
		return too_long(err);
	memcpy(out, path, strlen(path) + 1);
	return 0;
}

int gh_cgroup__path(const char *path, char *out, size_t size,
		    struct gh_err *err)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int rc;

	if (!f)
		return err_set(err, GH_E_FAILED,
			       "cannot read /proc/self/mountinfo: %s; is /proc "
			       "mounted?",
			       strerror(errno));
	rc = cgmount_resolve(f, path, out, size, err);
	fclose(f);
	return rc;
}
