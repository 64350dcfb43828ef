/* optsize.c - checking and copying a caller's options struct by its sz. */
#include <string.h>

#include "base/err.h"
#include "base/optsize.h"

int opts__check(const void *o, size_t lib_sz, const char *type,
		struct gh_err *err)
{
	const unsigned char *b = o;
	size_t sz;

	if (!o)
		return 0;
	memcpy(&sz, o, sizeof(sz));
	if (sz < sizeof(sz))
		return err_set(err, GH_E_USAGE,
			       "struct %s has sz %zu: declare it with GH_OPTS, "
			       "which sets sz",
			       type, sz);
	for (size_t i = lib_sz; i < sz; i++)
		if (b[i])
			return err_set(err, GH_E_USAGE,
				       "struct %s sets fields past the %zu "
				       "bytes this library (%s) knows: built "
				       "against a newer goheap.h; link that "
				       "release's library, or leave them zero",
				       type, lib_sz, GOHEAP_VERSION);
	return 0;
}

int opts__load(void *dst, size_t lib_sz, const void *o, const char *type,
	       struct gh_err *err)
{
	size_t sz;

	memset(dst, 0, lib_sz);
	if (opts__check(o, lib_sz, type, err))
		return -1;
	if (o) {
		memcpy(&sz, o, sizeof(sz));
		memcpy(dst, o, sz < lib_sz ? sz : lib_sz);
	}
	memcpy(dst, &lib_sz, sizeof(lib_sz));
	return 0;
}
