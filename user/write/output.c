/* output.c - gh_output: files written all or nothing: into a temporary
 * file beside the destination, renamed over it only when every byte is
 * written; stdout, devices and FIFOs are written in place. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"

/* Large writes: a big profile's JSON or table runs to hundreds of MB. */
#define OUT_BUF (1u << 20)

struct gh_output {
	FILE *f;
	char *path;  /* NULL for stdout and devices */
	char *tmp;   /* the temporary file beside path */
	bool direct; /* a device or FIFO, written in place */
};

static void release(struct gh_output *o)
{
	free(o->path);
	free(o->tmp);
	free(o);
}

static int open_direct(struct gh_output *o, const char *path,
		       struct gh_err *err)
{
	o->f = fopen(path, "we");
	if (!o->f)
		return err_set(err, GH_E_OUTPUT,
			       "cannot open %s: %s; choose a writable path",
			       path, strerror(errno));
	o->direct = true;
	setvbuf(o->f, NULL, _IOFBF, OUT_BUF);
	return 0;
}

static int open_temp(struct gh_output *o, const char *path, struct gh_err *err)
{
	int fd;

	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%s.tmp.XXXXXX", path) < 0) {
		o->tmp = NULL;
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	/* mkstemp makes 0600; a profile is as readable as any written file. */
	fd = mkstemp(o->tmp);
	if (fd < 0 || fchmod(fd, 0644) || !(o->f = fdopen(fd, "w"))) {
		err_set(err, GH_E_OUTPUT,
			"cannot create %s: %s; choose a writable path", path,
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		return -1;
	}
	setvbuf(o->f, NULL, _IOFBF, OUT_BUF);
	return 0;
}

int gh_output__open(const char *path, struct gh_output **out,
		    struct gh_err *err)
{
	struct gh_output *o = calloc(1, sizeof(*o));
	struct stat st;
	int rc;

	*out = NULL;
	if (!o)
		return err_set(err, GH_E_FAILED, "out of memory");
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		setvbuf(stdout, NULL, _IOFBF, OUT_BUF);
		*out = o;
		return 0;
	}
	/* A device or FIFO (/dev/null, /dev/stdout, a pipe) is written as it
	 * is: renaming a file over it would replace the device. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		rc = open_direct(o, path, err);
	else
		rc = open_temp(o, path, err);
	if (rc) {
		release(o);
		return -1;
	}
	*out = o;
	return 0;
}

FILE *gh_output__file(struct gh_output *o)
{
	return o->f;
}

int gh_output__commit(struct gh_output *o, struct gh_err *err)
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

void gh_output__abort(struct gh_output *o)
{
	if (!o)
		return;
	if (o->path) {
		fclose(o->f);
		unlink(o->tmp);
	} else if (o->direct) {
		fclose(o->f);
	}
	release(o);
}
