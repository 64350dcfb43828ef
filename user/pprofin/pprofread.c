/* pprofread.c - gh_profile__read and gh_profile__read_file: a heap
 * profile in profile.proto, gzip or not (runtime/pprof's
 * /debug/pprof/heap, goheap-bpf's pprof), from memory or a file, bounded
 * in size before and after it is inflated, then decoded by pprofmsg.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/err.h"
#include "pprofin/pprofmsg.h"

#define MAX_FILE  (256u << 20) /* bytes read from a file */
#define MAX_PROTO (1u << 30)   /* bytes once decompressed */

int pprofmsg_refuse(const char *name, const char *what, struct gh_err *err)
{
	err_set(err, GH_E_UNSUPPORTED,
		"%s is not a pprof heap or goroutine profile: %s; give one "
		"written by runtime/pprof (/debug/pprof/heap, "
		"/debug/pprof/goroutine) or by the library's pprof format",
		name, what);
	return -1;
}

/* Inflate a gzip stream into *out (the caller frees it). */
static int gunzip(const char *name, const uint8_t *in, size_t n, uint8_t **out,
		  size_t *outn, struct gh_err *err)
{
	z_stream z = {.next_in = (uint8_t *)in, .avail_in = (uInt)n};
	size_t cap = n < (1u << 20) ? 4 * n + 64 : 4 * n;
	uint8_t *buf = NULL, *grown;
	int rc = Z_OK;

	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return err_set(err, GH_E_FAILED, "out of memory reading %s",
			       name);
	for (*outn = 0; rc == Z_OK; *outn = cap - z.avail_out) {
		if (*outn == cap) {
			if (cap >= MAX_PROTO)
				break;
			cap = cap > MAX_PROTO / 2 ? MAX_PROTO : 2 * cap;
		}
		if (!(grown = realloc(buf, cap)))
			break;
		buf = grown;
		z.next_out = buf + *outn;
		z.avail_out = (uInt)(cap - *outn);
		rc = inflate(&z, Z_NO_FLUSH);
	}
	inflateEnd(&z);
	*out = buf;
	if (rc == Z_STREAM_END)
		return 0;
	if (rc == Z_OK && *outn == cap && cap >= MAX_PROTO)
		return pprofmsg_refuse(
			name, "it is larger than 1 GiB uncompressed", err);
	if (rc == Z_OK || rc == Z_MEM_ERROR)
		return err_set(err, GH_E_FAILED, "out of memory reading %s",
			       name);
	return pprofmsg_refuse(name,
			       rc == Z_BUF_ERROR
				       ? "its gzip stream is cut short"
				       : "its gzip stream is damaged",
			       err);
}

static int read_named(const void *data, size_t size, const char *name,
		      struct gh_profile **out, struct gh_err *err)
{
	uint8_t *plain = NULL;
	size_t n = size;
	int rc;

	*out = NULL;
	if (size > MAX_FILE)
		return pprofmsg_refuse(name, "it is larger than 256 MiB", err);
	if (size >= 2 && ((const uint8_t *)data)[0] == 0x1f &&
	    ((const uint8_t *)data)[1] == 0x8b) {
		if (gunzip(name, data, size, &plain, &n, err)) {
			free(plain);
			return -1;
		}
		data = plain;
	}
	if (!size)
		rc = pprofmsg_refuse(name, "it is empty", err);
	else
		rc = pprofmsg_decode(data, n, name, out, err);
	free(plain);
	return rc;
}

int gh_profile__read(const void *data, size_t size, struct gh_profile **out,
		     struct gh_err *err)
{
	return read_named(data, size, "the profile", out, err);
}

/* The whole of fd into *data, or its first MAX_FILE + 1 bytes when it is
 * longer (read_named refuses those); -1 with errno. */
static int slurp(int fd, uint8_t **data, size_t *n)
{
	size_t cap = 0;
	uint8_t *grown;
	ssize_t got;

	*data = NULL;
	*n = 0;
	while (*n <= MAX_FILE) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 1u << 16;
			cap = cap > MAX_FILE + 1 ? MAX_FILE + 1 : cap;
			if (!(grown = realloc(*data, cap))) {
				errno = ENOMEM;
				return -1;
			}
			*data = grown;
		}
		got = read(fd, *data + *n, cap - *n);
		if (got == 0)
			break;
		if (got < 0 && errno != EINTR)
			return -1;
		*n += got > 0 ? (size_t)got : 0;
	}
	return 0;
}

int gh_profile__read_file(const char *path, struct gh_profile **out,
			  struct gh_err *err)
{
	uint8_t *data;
	size_t n;
	int fd, rc;

	*out = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return err_set(err, GH_E_USAGE,
			       "cannot open %s: %s; name a pprof heap profile "
			       "you can read",
			       path, strerror(errno));
	rc = slurp(fd, &data, &n);
	if (rc)
		err_set(err, errno == EISDIR ? GH_E_USAGE : GH_E_FAILED,
			"cannot read %s: %s; name a pprof heap profile you can "
			"read",
			path, strerror(errno));
	close(fd);
	if (!rc)
		rc = read_named(data, n, path, out, err);
	free(data);
	return rc;
}
