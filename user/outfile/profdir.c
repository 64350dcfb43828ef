/* profdir.c - gh_profile_dir: a directory of profiles, one gzip pprof file
 * per profile plus index.jsonl, for a sweep or a series of snapshots. Every
 * file goes through gh_output (all or nothing, the output-file rules); the
 * index is written last, so that it never names a file that is not
 * there. The profile files are synced all at once (syncfs) before the
 * index is committed, not one fsync each: a 200-process sweep spent half
 * its time in those. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "outfile/output.h"
#include "outfile/profdir.h"
#include "write/json.h"
#include "write/render.h"

struct gh_profile_dir {
	char *dir;
	struct gh_output *index;
};

/* A link named as the directory is followed only when it is the caller's
 * or root's, or leads to what its owner owns: the rule of goheap.h's
 * output files, for the directory. */
static int check_dir(const char *dir, struct gh_err *err)
{
	struct stat ln, st;

	if (lstat(dir, &ln) || stat(dir, &st))
		return err_set(err, GH_E_OUTPUT,
			       "cannot use output directory %s: %s; give an "
			       "existing directory or one that can be made",
			       dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(err, GH_E_OUTPUT,
			       "output directory %s is not a directory; give "
			       "a directory (one is made if missing)",
			       dir);
	if (S_ISLNK(ln.st_mode) && ln.st_uid != geteuid() && ln.st_uid != 0 &&
	    st.st_uid != ln.st_uid)
		return err_set(err, GH_E_OUTPUT,
			       "output directory %s is a link of user %u's to "
			       "a directory that user does not own; give the "
			       "directory itself",
			       dir, (unsigned)ln.st_uid);
	return 0;
}

int profdir_make(const char *dir, struct gh_err *err)
{
	if (!dir || !*dir)
		return err_set(err, GH_E_USAGE, "no output directory given");
	if (mkdir(dir, 0777) && errno != EEXIST)
		return err_set(err, GH_E_OUTPUT,
			       "cannot make output directory %s: %s; give an "
			       "existing directory or one that can be made",
			       dir, strerror(errno));
	return check_dir(dir, err);
}

static char *join(const char *dir, const char *name)
{
	char *path;

	return asprintf(&path, "%s/%s", dir, name) < 0 ? NULL : path;
}

int gh_profile_dir__open(const char *dir, struct gh_profile_dir **out,
			 struct gh_err *err)
{
	struct gh_profile_dir *d;
	char *index;

	*out = NULL;
	if (profdir_make(dir, err))
		return -1;
	d = calloc(1, sizeof(*d));
	index = join(dir, "index.jsonl");
	if (!d || !index || !(d->dir = strdup(dir))) {
		free(index);
		gh_profile_dir__abort(d);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	if (gh_output__open(index, &d->index, err)) {
		free(index);
		gh_profile_dir__abort(d);
		return -1;
	}
	free(index);
	*out = d;
	return 0;
}

int gh_profile_dir__name(const struct gh_profile *p, char *buf, size_t size)
{
	char comm[sizeof(p->comm)];
	size_t i;
	int n;

	for (i = 0; p->comm[i] && i + 1 < sizeof(comm); i++) {
		char c = p->comm[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '-' ||
			  (c == '.' && i > 0);

		comm[i] = ok ? c : '_';
	}
	comm[i] = '\0';
	if (!i)
		snprintf(comm, sizeof(comm), "unknown");
	n = p->runtime > 1 ? snprintf(buf, size, "%s-%d-%zu.pb.gz", comm,
				      p->pid, p->runtime)
			   : snprintf(buf, size, "%s-%d.pb.gz", comm, p->pid);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* p as a pprof file named name in d: labelled, for the sample index
 * it was rendered for (allocs' alloc_space), else the heap's. */
static int write_pprof(struct gh_profile_dir *d, const struct gh_profile *p,
		       const char *name, struct gh_err *err)
{
	GH_OPTS(gh_write_opts, o, .format = GH_FORMAT_PPROF, .labels = true);
	const struct gh_write_opts *rendered = render_pprof_opts(p);
	struct gh_output *out;
	char *path = join(d->dir, name);
	int rc;

	if (rendered)
		o.index = rendered->index;
	if (!path)
		return err_set(err, GH_E_FAILED, "out of memory");
	rc = output_open_unsynced(path, &out, err);
	free(path);
	if (rc)
		return -1;
	if (gh_profile__write(p, gh_output__file(out), &o, err)) {
		gh_output__abort(out);
		return -1;
	}
	return gh_output__commit(out, err);
}

int gh_profile_dir__add(struct gh_profile_dir *d, const struct gh_result *r,
			struct gh_err *err)
{
	const struct gh_profile *p = r->profile;
	bool data = r->err.code == GH_OK || r->err.code == GH_E_PARTIAL;
	char name[64] = "";
	struct gh_err werr = {GH_OK, ""};
	int rc = 0;

	if (data && (gh_profile_dir__name(p, name, sizeof(name)) ||
		     write_pprof(d, p, name, &werr))) {
		name[0] = '\0';
		rc = -1;
	}
	if (json_index_line(gh_output__file(d->index), p, name, err))
		return -1;
	if (rc)
		return err_set(err, werr.code ? werr.code : GH_E_OUTPUT, "%s",
			       werr.code ? werr.msg : "file name too long");
	return 0;
}

/* Every profile file written so far on disk. */
static int sync_files(const struct gh_profile_dir *d, struct gh_err *err)
{
	int fd = open(d->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = fd < 0 ? -1 : syncfs(fd);

	if (fd >= 0)
		close(fd);
	if (rc)
		return err_set(err, GH_E_OUTPUT,
			       "cannot sync the profiles in %s: %s; check the "
			       "output directory and free disk space",
			       d->dir, strerror(errno));
	return 0;
}

int gh_profile_dir__commit(struct gh_profile_dir *d, struct gh_err *err)
{
	int rc = sync_files(d, err);

	if (rc)
		gh_output__abort(d->index);
	else
		rc = gh_output__commit(d->index, err);
	d->index = NULL;
	gh_profile_dir__abort(d);
	return rc;
}

void gh_profile_dir__abort(struct gh_profile_dir *d)
{
	if (!d)
		return;
	if (d->index)
		gh_output__abort(d->index);
	free(d->dir);
	free(d);
}
