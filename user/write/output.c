/* output.c - gh_output: the one way the library's writers and front ends
 * write files, by the rules of goheap.h ("output files") and the README
 * ("Output files"):
 * - a regular file is written into a temporary file in its directory and
 *   renamed over it only when every byte is written (same directory: the
 *   rename is atomic); the directory is opened once, and every step is
 *   taken relative to it;
 * - a new file gets 0666 minus the umask, as open(2) would give it; an
 *   existing one keeps its mode and owner: the temporary file takes them
 *   just before the rename, and a write whose owner cannot be kept fails;
 * - the temporary file is named after the destination (NAME.tmp.XXXXXX),
 *   or .goheap-XXXXXX when that would not fit NAME_MAX;
 * - stdout, devices and FIFOs are written in place. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"

/* Large writes: a big profile's JSON or table runs to hundreds of MB. */
#define OUT_BUF (1u << 20)
/* Names tried before giving up: each is random, so a clash is someone
 * else's file, never a reason to write into it (O_EXCL). */
#define TMP_TRIES 100

struct gh_output {
	FILE *f;
	char *path;   /* as the caller named it; NULL for stdout */
	int dirfd;    /* the destination's directory; -1 when in place */
	char *name;   /* the destination's name in dirfd */
	char *tmp;    /* the temporary file's name in dirfd */
	bool replace; /* an existing file is replaced: keep old's mode and
			 owner */
	struct stat old;
};

static void release(struct gh_output *o)
{
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->path);
	free(o->name);
	free(o->tmp);
	free(o);
}

static int cannot(const struct gh_output *o, const char *what,
		  struct gh_err *err)
{
	return err_set(err, GH_E_OUTPUT,
		       "cannot %s %s: %s; choose a writable path", what,
		       o->path, strerror(errno));
}

/* The directory of o->path, opened for the *at calls, and the name in it. */
static int open_dir(struct gh_output *o, struct gh_err *err)
{
	const char *slash = strrchr(o->path, '/');
	char *dir;

	if (!slash) {
		dir = strdup(".");
		o->name = strdup(o->path);
	} else {
		dir = strndup(o->path, slash == o->path ? 1 : slash - o->path);
		o->name = strdup(slash + 1);
	}
	if (!dir || !o->name) {
		free(dir);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	o->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (o->dirfd < 0)
		return cannot(o, "create", err);
	if (!*o->name) {
		errno = EISDIR;
		return cannot(o, "create", err);
	}
	return 0;
}

static int open_direct(struct gh_output *o, struct gh_err *err)
{
	o->f = fopen(o->path, "we");
	if (!o->f)
		return cannot(o, "open", err);
	close(o->dirfd);
	o->dirfd = -1;
	return 0;
}

/* NAME.tmp.XXXXXX, XXXXXX random; .goheap-XXXXXX when that would pass
 * NAME_MAX, so that a name near the limit still gets its temporary file
 * in its own directory (the rename stays atomic). */
static char *tmp_name(const char *name)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];
	char *s;
	size_t i, n;

	/* Without entropy (early boot), fixed bits: O_EXCL still makes a
	 * clash a retry, never a shared file. */
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		memset(r, 0, sizeof(r));
	if ((strlen(name) + strlen(".tmp.XXXXXX") <= NAME_MAX
		     ? asprintf(&s, "%s.tmp.XXXXXX", name)
		     : asprintf(&s, ".goheap-XXXXXX")) < 0)
		return NULL;
	n = strlen(s) - sizeof(r);
	for (i = 0; i < sizeof(r); i++)
		s[n + i] = set[r[i] % (sizeof(set) - 1)];
	return s;
}

/* A new file in o's directory, never one that was there: O_EXCL, and
 * O_NOFOLLOW against a link planted under the name. A replaced file's
 * content is its owner's alone until it takes the old mode (0600); a new
 * one's mode is 0666 minus the umask, as open(2) makes it. */
static int create_tmp(struct gh_output *o, struct gh_err *err)
{
	mode_t mode = o->replace ? 0600 : 0666;
	int fd = -1;

	for (int i = 0; i < TMP_TRIES && fd < 0; i++) {
		free(o->tmp);
		o->tmp = tmp_name(o->name);
		if (!o->tmp)
			return err_set(err, GH_E_FAILED, "out of memory");
		fd = openat(o->dirfd, o->tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		return cannot(o, "create", err);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		cannot(o, "create", err);
		close(fd);
		unlinkat(o->dirfd, o->tmp, 0);
		return -1;
	}
	return 0;
}

int gh_output__open(const char *path, struct gh_output **out,
		    struct gh_err *err)
{
	struct gh_output *o = calloc(1, sizeof(*o));
	int rc;

	*out = NULL;
	if (!o)
		return err_set(err, GH_E_FAILED, "out of memory");
	o->dirfd = -1;
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		setvbuf(stdout, NULL, _IOFBF, OUT_BUF);
		*out = o;
		return 0;
	}
	o->path = strdup(path);
	if (!o->path)
		rc = err_set(err, GH_E_FAILED, "out of memory");
	else
		rc = open_dir(o, err);
	if (!rc && !fstatat(o->dirfd, o->name, &o->old, 0)) {
		/* A device or FIFO (/dev/null, /dev/stdout, a pipe) is written
		 * as it is: renaming a file over it would replace the device.
		 */
		o->replace = S_ISREG(o->old.st_mode);
		rc = o->replace ? create_tmp(o, err) : open_direct(o, err);
	} else if (!rc) {
		rc = create_tmp(o, err);
	}
	if (rc) {
		release(o);
		return -1;
	}
	setvbuf(o->f, NULL, _IOFBF, OUT_BUF);
	*out = o;
	return 0;
}

FILE *gh_output__file(struct gh_output *o)
{
	return o->f;
}

/* The replaced file's owner and mode, on the temporary file: fchown
 * first, since it clears the set-ID bits fchmod then restores. Changed
 * only when they differ, so that a caller who may not chown (not root)
 * can still replace a file of its own. */
static int keep_old(struct gh_output *o, struct gh_err *err)
{
	int fd = fileno(o->f);
	struct stat now;

	if (fstat(fd, &now))
		return cannot(o, "write", err);
	if ((now.st_uid != o->old.st_uid || now.st_gid != o->old.st_gid) &&
	    fchown(fd, o->old.st_uid, o->old.st_gid))
		return err_set(err, GH_E_OUTPUT,
			       "cannot keep the owner of %s (uid %u, gid %u): "
			       "%s; write it as its owner or as root, or "
			       "remove it first",
			       o->path, (unsigned)o->old.st_uid,
			       (unsigned)o->old.st_gid, strerror(errno));
	if (fchmod(fd, o->old.st_mode & 07777))
		return cannot(o, "write", err);
	return 0;
}

/* Every byte on disk with its final mode and owner, then the rename. */
static int publish(struct gh_output *o, struct gh_err *err)
{
	int bad = fflush(o->f) || ferror(o->f);

	if (!bad && o->replace && keep_old(o, err)) {
		fclose(o->f);
		return -1;
	}
	bad = bad || fsync(fileno(o->f));
	bad |= fclose(o->f) != 0;
	if (bad || renameat(o->dirfd, o->tmp, o->dirfd, o->name))
		return err_set(err, GH_E_OUTPUT,
			       "cannot write %s: %s; check free space and "
			       "permissions",
			       o->path, strerror(errno));
	return 0;
}

int gh_output__commit(struct gh_output *o, struct gh_err *err)
{
	int bad;

	if (o->dirfd >= 0) {
		bad = publish(o, err);
		if (bad)
			unlinkat(o->dirfd, o->tmp, 0);
		release(o);
		return bad;
	}
	bad = fflush(o->f) || ferror(o->f);
	if (o->path)
		bad |= fclose(o->f) != 0;
	if (bad)
		err_set(err, GH_E_OUTPUT, "cannot write %s: %s",
			o->path ? o->path : "the output", strerror(errno));
	release(o);
	return bad ? -1 : 0;
}

void gh_output__abort(struct gh_output *o)
{
	if (!o)
		return;
	if (o->path)
		fclose(o->f);
	if (o->dirfd >= 0)
		unlinkat(o->dirfd, o->tmp, 0);
	release(o);
}
