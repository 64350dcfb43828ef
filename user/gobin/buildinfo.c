/* buildinfo.c - the Go version recorded in a binary's .go.buildinfo
 * section, read as debug/buildinfo does for the go1.18+ format: a 32-byte
 * header ("\xff Go buildinf:", pointer size, flags) followed by the
 * version and module strings, each prefixed by its uvarint length. */
#include <string.h>

#include "base/err.h"
#include "gobin/buildinfo.h"

#define BI_MAGIC	   "\xff Go buildinf:"
#define BI_MAGIC_LEN	   14
#define BI_HDR_LEN	   32
#define BI_ALIGN	   16
#define BI_FLAG_BIG_ENDIAN 0x1
#define BI_FLAG_INLINE	   0x2

/* Decode a uvarint at data[*off]; -1 when it is truncated or longer than
 * 10 bytes. */
static int read_uvarint(const uint8_t *data, size_t size, size_t *off,
			uint64_t *v)
{
	unsigned shift = 0;
	uint8_t b;

	*v = 0;
	do {
		if (*off >= size || shift > 63)
			return -1;
		b = data[(*off)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return 0;
}

/* Offset of the header: the magic at a 16-byte aligned offset, as the
 * linker places it; -1 when absent. */
static long find_header(const uint8_t *data, size_t size)
{
	size_t off;

	for (off = 0; off + BI_MAGIC_LEN <= size; off += BI_ALIGN)
		if (memcmp(data + off, BI_MAGIC, BI_MAGIC_LEN) == 0)
			return (long)off;
	return -1;
}

int buildinfo_version(const uint8_t *data, size_t size, char *version,
		      size_t versz, struct gh_err *err)
{
	long hdr = data ? find_header(data, size) : -1;
	size_t off;
	uint64_t len;
	uint8_t ptrsz, flags;

	if (hdr < 0)
		return err_set(err, GH_E_NOTGO,
			       ".go.buildinfo has no Go build-info magic: "
			       "the binary was not built by the Go toolchain");
	if ((size_t)hdr + BI_HDR_LEN > size)
		return err_set(err, GH_E_FAILED,
			       ".go.buildinfo is truncated (%zu bytes): the "
			       "binary is damaged",
			       size);
	ptrsz = data[hdr + BI_MAGIC_LEN];
	flags = data[hdr + BI_MAGIC_LEN + 1];
	if (!(flags & BI_FLAG_INLINE))
		return err_set(err, GH_E_UNSUPPORTED,
			       ".go.buildinfo uses the pre-go1.18 pointer "
			       "format: Go releases before 1.18 are not "
			       "supported; rebuild with go1.18 or newer");
	if (ptrsz != 8 || (flags & BI_FLAG_BIG_ENDIAN))
		return err_set(err, GH_E_UNSUPPORTED,
			       "the binary is for a %u-bit %s-endian target: "
			       "only 64-bit little-endian Go binaries are "
			       "supported",
			       ptrsz * 8u,
			       flags & BI_FLAG_BIG_ENDIAN ? "big" : "little");
	off = (size_t)hdr + BI_HDR_LEN;
	if (read_uvarint(data, size, &off, &len) < 0 || len > size - off)
		return err_set(err, GH_E_FAILED,
			       ".go.buildinfo is truncated in its version "
			       "string: the binary is damaged");
	if (len == 0 || len >= versz)
		return err_set(err, GH_E_FAILED,
			       ".go.buildinfo holds a version string of %llu "
			       "bytes: the binary is damaged",
			       (unsigned long long)len);
	memcpy(version, data + off, len);
	version[len] = '\0';
	return 0;
}
