/* fuzz.c - see fuzz.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

static void die(const char *what)
{
	fprintf(stderr, "fuzz: %s: %s\n", what, strerror(errno));
	exit(1);
}

const uint8_t *in_bytes(struct input *in, size_t len, size_t *n)
{
	const uint8_t *p = in->p;

	*n = len < in->n ? len : in->n;
	in->p += *n;
	in->n -= *n;
	return p;
}

/* A little-endian field of size bytes. */
static uint64_t in_le(struct input *in, size_t size)
{
	const uint8_t *p;
	uint64_t v = 0;
	size_t n;

	p = in_bytes(in, size, &n);
	while (n--)
		v = v << 8 | p[n];
	return v;
}

uint8_t in_u8(struct input *in)
{
	return (uint8_t)in_le(in, 1);
}

uint16_t in_u16(struct input *in)
{
	return (uint16_t)in_le(in, 2);
}

uint32_t in_u32(struct input *in)
{
	return (uint32_t)in_le(in, 4);
}

uint64_t in_u64(struct input *in)
{
	return in_le(in, 8);
}

void memfile_init(struct memfile *m, const char *name)
{
	m->fd = memfd_create(name, MFD_CLOEXEC);
	if (m->fd < 0)
		die("memfd_create");
	snprintf(m->path, sizeof(m->path), "/proc/self/fd/%d", m->fd);
}

static void pwrite_all(int fd, const void *data, size_t size, size_t off)
{
	const uint8_t *p = data;
	ssize_t w;

	while (size) {
		w = pwrite(fd, p, size, (off_t)off);
		if (w <= 0)
			die("pwrite");
		p += w, off += (size_t)w, size -= (size_t)w;
	}
}

void memfile_set(struct memfile *m, const void *data, size_t size)
{
	if (ftruncate(m->fd, (off_t)size) < 0)
		die("ftruncate");
	pwrite_all(m->fd, data, size, 0);
}

/* The whole of the file at path, or NULL. */
static uint8_t *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len)) &&
	    fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*size = buf ? (size_t)len : 0;
	return buf;
}

static int patched_load(struct patched *b, int minor, const char *kind)
{
	const char *dir = getenv("GH_FIXTURES");
	char path[4096];

	snprintf(path, sizeof(path), "%s/gobin/1.%d/%s",
		 dir ? dir : "build/fixtures", minor, kind);
	memset(b, 0, sizeof(*b));
	b->orig = read_all(path, &b->size);
	if (!b->orig)
		return -1;
	memfile_init(&b->f, kind);
	memfile_set(&b->f, b->orig, b->size);
	b->cut = b->size;
	return 0;
}

struct patched *fixture_binary(int minor, enum fixture_kind kind)
{
	static const char *const names[FX_KINDS] = {"exe", "pie", "arm64"};
	static struct patched bins[FX_MINORS][FX_KINDS];
	/* 0 unknown, 1 loaded, -1 not built */
	static int8_t state[FX_MINORS][FX_KINDS];
	int m = minor - FX_MINOR_FIRST;
	int8_t *st;

	if (m < 0 || m >= FX_MINORS || kind >= FX_KINDS)
		return NULL;
	st = &state[m][kind];
	if (!*st)
		*st = patched_load(&bins[m][kind], minor, names[kind]) ? -1 : 1;
	return *st > 0 ? &bins[m][kind] : NULL;
}

void patched_write(struct patched *b, size_t off, const void *data, size_t len)
{
	if (b->ndirty == PATCHED_MAX || off >= b->cut)
		return;
	if (len > b->cut - off)
		len = b->cut - off;
	pwrite_all(b->f.fd, data, len, off);
	b->dirty[b->ndirty].off = off;
	b->dirty[b->ndirty++].len = len;
}

void patched_truncate(struct patched *b, size_t size)
{
	if (size >= b->cut)
		return;
	if (ftruncate(b->f.fd, (off_t)size) < 0)
		die("ftruncate");
	b->cut = size;
}

void patched_restore(struct patched *b)
{
	size_t i;

	for (i = 0; i < b->ndirty; i++)
		pwrite_all(b->f.fd, b->orig + b->dirty[i].off, b->dirty[i].len,
			   b->dirty[i].off);
	b->ndirty = 0;
	if (b->cut < b->size)
		pwrite_all(b->f.fd, b->orig + b->cut, b->size - b->cut, b->cut);
	b->cut = b->size;
}
