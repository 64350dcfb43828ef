/* err.h - the one error convention of the library's insides: fill a
 * struct gh_err (goheap.h) and return -1. */
#ifndef GH_ERR_H
#define GH_ERR_H

#include "goheap.h"

/* Fill *err (if non-NULL) with code and a one-line message naming the
 * cause and the fix; return -1. */
int err_set(struct gh_err *err, enum gh_status code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
