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
 * - links: those of the last component are checked one by one (lstat,
 *   never stat) before each is followed. In a sticky directory others
 *   may write (/tmp), an entry must be the caller's or the directory
 *   owner's; a link of another user's (not the caller's, not root's) may
 *   lead only to what that user owns. A link in /proc (/dev/stdout) is
 *   the open file it names, appended to in place;
 * - stdout, character devices and FIFOs are written in place; block
 *   devices, directories and sockets are refused. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/err.h"
#include "outfile/output.h"
#include "outfile/tmpfile.h"

/* Large writes: a big profile's JSON or table runs to hundreds of MB. */
#define OUT_BUF (1u << 20)
/* Links followed at most, as path resolution allows. */
#define MAX_LINKS 40
#define NO_UID	  ((uid_t)-1)

struct gh_output {
	FILE *f;
	char *path;	     /* as the caller named it; NULL for stdout */
	int dirfd;	     /* the directory being resolved; -1 once open */
	char *name;	     /* the destination's name in it */
	struct tmpfile *tmp; /* the temporary file; NULL when in place */
	bool replace;  /* an existing file is replaced: keep old's mode and
			  owner */
	bool unsynced; /* the caller syncs (output_open_unsynced) */
	struct stat old;
};

static void release(struct gh_output *o)
{
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->path);
	free(o->name);
	free(o);
}

static int cannot(const struct gh_output *o, const char *what,
		  struct gh_err *err)
{
	return err_set(err, GH_E_OUTPUT,
		       "cannot %s %s: %s; choose a writable path", what,
		       o->path, strerror(errno));
}

/* o's directory and name become path's (relative to at, as openat takes
 * it): the directory is opened for the *at calls. */
static int enter(struct gh_output *o, int at, const char *path,
		 struct gh_err *err)
{
	const char *slash = strrchr(path, '/');
	char *name = strdup(slash ? slash + 1 : path);
	char *dir = slash ? strndup(path, slash == path ? 1 : slash - path)
			  : strdup(".");
	int fd;

	if (!dir || !name) {
		free(dir);
		free(name);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	fd = openat(at, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd >= 0 && !*name) {
		close(fd);
		fd = -1;
		errno = EISDIR;
	}
	if (fd < 0) {
		free(name);
		return cannot(o, "create", err);
	}
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->name);
	o->dirfd = fd;
	o->name = name;
	return 0;
}

/* Written in place from here on: fd is the destination itself. */
static int adopt(struct gh_output *o, int fd, struct gh_err *err)
{
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		return cannot(o, "open", err);
	}
	return 0;
}

static int refuse_kind(const struct gh_output *o, mode_t mode,
		       struct gh_err *err)
{
	const char *kind = S_ISBLK(mode)   ? "a block device"
			   : S_ISDIR(mode) ? "a directory"
					   : "a socket";

	return err_set(err, GH_E_OUTPUT,
		       "refusing to write %s: it is %s; choose a regular "
		       "file, a character device or a FIFO",
		       o->path, kind);
}

/* A character device or FIFO, written in place: the very entry checked
 * (O_NOFOLLOW, and the same inode once open), so that swapping it for
 * something else meanwhile cannot redirect the write. */
static int open_in_place(struct gh_output *o, const struct stat *st,
			 struct gh_err *err)
{
	int fd = openat(o->dirfd, o->name,
			O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	struct stat now;

	if (fd < 0)
		return cannot(o, "open", err);
	if (fstat(fd, &now) || now.st_dev != st->st_dev ||
	    now.st_ino != st->st_ino) {
		close(fd);
		return err_set(err, GH_E_OUTPUT,
			       "%s changed while it was opened; retry",
			       o->path);
	}
	return adopt(o, fd, err);
}

/* A link in /proc (where /dev/stdout and /dev/fd/N lead) names a file the
 * process has open, not a path to follow: the kernel reopens it, and it
 * is appended to, as stdout would be. Block devices are refused still. */
static int open_fd_link(struct gh_output *o, struct gh_err *err)
{
	int fd = openat(o->dirfd, o->name,
			O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return cannot(o, "open", err);
	}
	if (S_ISBLK(st.st_mode)) {
		close(fd);
		return refuse_kind(o, st.st_mode, err);
	}
	return adopt(o, fd, err);
}

static bool in_proc(const struct gh_output *o)
{
	struct statfs fs;

	return !fstatfs(o->dirfd, &fs) && fs.f_type == PROC_SUPER_MAGIC;
}

/* Enter the directory the link o names leads to. */
static int follow(struct gh_output *o, struct gh_err *err)
{
	char text[PATH_MAX];
	ssize_t n = readlinkat(o->dirfd, o->name, text, sizeof(text));

	if (n >= (ssize_t)sizeof(text))
		errno = ENAMETOOLONG;
	if (n < 0 || n >= (ssize_t)sizeof(text))
		return cannot(o, "open", err);
	text[n] = '\0';
	return enter(o, o->dirfd, text, err);
}

/* In a sticky directory others may write (/tmp), an entry is whoever made
 * it's: used only if that is the caller or the directory's owner, as the
 * kernel's protected_symlinks, protected_regular and protected_fifos
 * would have it, whatever those settings are here. */
static int check_planted(const struct gh_output *o, const struct stat *st,
			 struct gh_err *err)
{
	struct stat d;

	if (fstat(o->dirfd, &d))
		return cannot(o, "open", err);
	if (!(d.st_mode & S_ISVTX) || !(d.st_mode & (S_IWGRP | S_IWOTH)) ||
	    st->st_uid == geteuid() || st->st_uid == d.st_uid)
		return 0;
	return err_set(err, GH_E_OUTPUT,
		       "refusing to write %s: %s is uid %u's, in a sticky "
		       "directory others can write (as /tmp); remove it, or "
		       "choose another path",
		       o->path, o->name, (unsigned)st->st_uid);
}

/* A link of another user's (not the caller's, not root's) is followed
 * only to what that user owns - for a new file, the directory - so that
 * nobody can point the caller's write at what they could not write
 * themselves. link_uid: the owner of the last such link, or NO_UID. */
static int check_led(const struct gh_output *o, uid_t owner, uid_t link_uid,
		     struct gh_err *err)
{
	if (link_uid == NO_UID || owner == link_uid)
		return 0;
	return err_set(
		err, GH_E_OUTPUT,
		"refusing to write %s: a symbolic link of uid %u's leads "
		"to %s, which is uid %u's; name the file itself, or "
		"make the link yours",
		o->path, (unsigned)link_uid, o->name, (unsigned)owner);
}

/* The temporary file: a replaced file's content is its owner's alone
 * until it takes the old mode (0600); a new one's mode is 0666 minus the
 * umask, as open(2) makes it. */
static int create_tmp(struct gh_output *o, struct gh_err *err)
{
	int fd = tmp_create(o->dirfd, o->name, o->replace ? 0600 : 0666,
			    &o->tmp);

	if (fd < 0)
		return cannot(o, "create", err);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		cannot(o, "create", err);
		close(fd);
		tmp_discard(o->tmp);
		return -1;
	}
	return 0;
}

/* A file that does not exist yet. */
static int create_new(struct gh_output *o, uid_t link_uid, struct gh_err *err)
{
	struct stat d;

	if (link_uid != NO_UID && fstat(o->dirfd, &d))
		return cannot(o, "create", err);
	if (link_uid != NO_UID && check_led(o, d.st_uid, link_uid, err))
		return -1;
	return create_tmp(o, err);
}

/* What the links lead to, by the rules above: a regular file is replaced,
 * a character device or FIFO written in place, anything else refused. */
static int open_entry(struct gh_output *o, const struct stat *st,
		      struct gh_err *err)
{
	if (S_ISREG(st->st_mode)) {
		o->replace = true;
		o->old = *st;
		return create_tmp(o, err);
	}
	if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode))
		return open_in_place(o, st, err);
	return refuse_kind(o, st->st_mode, err);
}

/* Follow o's links, each checked before it is followed (lstat, never
 * stat), to what they lead to, and open that. */
static int resolve(struct gh_output *o, struct gh_err *err)
{
	uid_t link_uid = NO_UID;
	struct stat st;

	for (int links = 0;; links++) {
		if (fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW))
			return errno == ENOENT ? create_new(o, link_uid, err)
					       : cannot(o, "open", err);
		if (check_led(o, st.st_uid, link_uid, err) ||
		    check_planted(o, &st, err))
			return -1;
		if (!S_ISLNK(st.st_mode))
			return open_entry(o, &st, err);
		if (links == MAX_LINKS) {
			errno = ELOOP;
			return cannot(o, "open", err);
		}
		if (in_proc(o))
			return open_fd_link(o, err);
		if (st.st_uid != geteuid() && st.st_uid != 0)
			link_uid = st.st_uid;
		if (follow(o, err))
			return -1;
	}
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
		rc = enter(o, AT_FDCWD, path, err) || resolve(o, err) ? -1 : 0;
	if (rc) {
		release(o);
		return -1;
	}
	/* Done with: the temporary file keeps a descriptor of its own. */
	close(o->dirfd);
	o->dirfd = -1;
	setvbuf(o->f, NULL, _IOFBF, OUT_BUF);
	*out = o;
	return 0;
}

int output_open_unsynced(const char *path, struct gh_output **out,
			 struct gh_err *err)
{
	if (gh_output__open(path, out, err))
		return -1;
	(*out)->unsynced = true;
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

static int write_failed(const struct gh_output *o, struct gh_err *err)
{
	return err_set(err, GH_E_OUTPUT,
		       "cannot write %s: %s; check free space and permissions",
		       o->path ? o->path : "the output", strerror(errno));
}

/* Every byte on disk, with its final mode and owner. */
static int finish(struct gh_output *o, struct gh_err *err)
{
	int bad = fflush(o->f) || ferror(o->f);

	if (!bad && o->replace && keep_old(o, err)) {
		fclose(o->f);
		return -1;
	}
	bad = bad || (!o->unsynced && fsync(fileno(o->f)));
	bad |= fclose(o->f) != 0;
	return bad ? write_failed(o, err) : 0;
}

int gh_output__commit(struct gh_output *o, struct gh_err *err)
{
	int rc = 0;

	if (o->tmp) {
		rc = finish(o, err);
		if (rc)
			tmp_discard(o->tmp);
		else if (tmp_publish(o->tmp, o->name))
			rc = write_failed(o, err);
	} else {
		/* stdout stays open: later output may follow. */
		rc = fflush(o->f) || ferror(o->f);
		if (o->path)
			rc |= fclose(o->f) != 0;
		if (rc)
			rc = write_failed(o, err);
	}
	release(o);
	return rc;
}

void gh_output__abort(struct gh_output *o)
{
	if (!o)
		return;
	if (o->path)
		fclose(o->f);
	if (o->tmp)
		tmp_discard(o->tmp);
	release(o);
}

void gh_output__cleanup(void)
{
	tmp_unlink_all();
}
