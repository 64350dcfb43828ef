/* output.c - all-or-nothing output files; see output.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "write/output.h"

/* Large writes: a big profile's JSON or table runs to hundreds of MB. */
#define OUT_BUF (1u << 20)

static int open_direct(struct outfile *o, const char *path, struct gh_err *err)
{
	o->f = fopen(path, "we");
	if (!o->f)
		return err_set(err, GH_E_OUTPUT,
			       "cannot open %s: %s; choose a writable "
			       "--output path",
			       path, strerror(errno));
	o->direct = true;
	setvbuf(o->f, NULL, _IOFBF, OUT_BUF);
	return 0;
}

int outfile_open(struct outfile *o, const char *path, struct gh_err *err)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		setvbuf(stdout, NULL, _IOFBF, OUT_BUF);
		return 0;
	}
	/* A device or FIFO (/dev/null, /dev/stdout, a pipe) is written as it
	 * is: renaming a file over it would replace the device. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return open_direct(o, path, err);
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%s.tmp.XXXXXX", path) < 0) {
		free(o->path);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	/* mkstemp makes 0600; a profile is as readable as any written file. */
	fd = mkstemp(o->tmp);
	if (fd < 0 || fchmod(fd, 0644) || !(o->f = fdopen(fd, "w"))) {
		err_set(err, GH_E_OUTPUT,
			"cannot create %s: %s; choose a writable --output "
			"path",
			path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->path);
		free(o->tmp);
		memset(o, 0, sizeof(*o));
		return -1;
	}
	setvbuf(o->f, NULL, _IOFBF, OUT_BUF);
	return 0;
}

static void release(struct outfile *o)
{
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}

int outfile_commit(struct outfile *o, struct gh_err *err)
{
	const char *what = o->path ? o->path : "the output";
	int bad;

	if (!o->path) {
		bad = fflush(o->f) || ferror(o->f);
		if (o->direct)
			bad |= fclose(o->f) != 0;
		release(o);
		return bad ? err_set(err, GH_E_OUTPUT, "cannot write %s: %s",
				     what, strerror(errno))
			   : 0;
	}
	bad = fflush(o->f) || ferror(o->f) || fsync(fileno(o->f));
	bad |= fclose(o->f) != 0;
	if (bad || rename(o->tmp, o->path)) {
		err_set(err, GH_E_OUTPUT,
			"cannot write %s: %s; check free space and "
			"permissions",
			what, strerror(errno));
		unlink(o->tmp);
		release(o);
		return -1;
	}
	release(o);
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->path) {
		fclose(o->f);
		unlink(o->tmp);
	} else if (o->direct) {
		fclose(o->f);
	}
	release(o);
}
