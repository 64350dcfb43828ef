/* btfcopy.c - see btfcopy.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

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

int btf_write(const struct btf *btf, const char *path)
{
	__u32 size;
	const void *data = btf__raw_data(btf, &size);

	return data ? write_all(path, data, size) : -1;
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

int btf_copy_mark_victim_pid(const char *path)
{
	struct btf *btf = btf__parse(KERNEL_BTF, NULL);
	int id, i32, vptr, proto, ptr, rc = -1;
	struct btf_type *t;

	if (!btf)
		return -1;
	id = btf__find_by_name_kind(btf, "btf_trace_mark_victim",
				    BTF_KIND_TYPEDEF);
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	vptr = btf__add_ptr(btf, 0);
	proto = btf__add_func_proto(btf, i32);
	if (id > 0 && i32 > 0 && vptr > 0 && proto > 0 &&
	    !btf__add_func_param(btf, "__data", vptr) &&
	    !btf__add_func_param(btf, "pid", i32) &&
	    (ptr = btf__add_ptr(btf, proto)) > 0) {
		/* After an add the types are btf's own, writable copy. */
		t = (struct btf_type *)btf__type_by_id(btf, (__u32)id);
		t->type = (__u32)ptr;
		rc = btf_write(btf, path);
	}
	btf__free(btf);
	return rc;
}
