/* btfcopy.c - see btfcopy.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btfcopy.h"

#define KERNEL_BTF "/sys/kernel/btf/vmlinux"

static int write_all(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int rc = f && fwrite(data, 1, size, f) == size ? 0 : -1;

	if (f && fclose(f))
		rc = -1;
	return rc;
}

/* The kernel's BTF file, read whole; NULL on failure. */
static char *read_kernel(size_t *size)
{
	FILE *f = fopen(KERNEL_BTF, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			char *bigger =
				realloc(buf, cap = cap ? 2 * cap : 1 << 22);

			if (!bigger) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = bigger;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*size = n;
	return buf;
}

int btf_copy_renamed(const char *path, const char *from, const char *to)
{
	size_t size, len = strlen(from) + 1;
	char *buf = read_kernel(&size), *at;
	int rc = -1;

	if (!buf || strlen(to) + 1 != len)
		goto out;
	at = memmem(buf, size, from, len);
	if (!at || memmem(at + 1, size - (size_t)(at + 1 - buf), from, len))
		goto out;
	memcpy(at, to, len);
	rc = write_all(path, buf, size);
out:
	free(buf);
	return rc;
}
