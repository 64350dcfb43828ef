/* optsize.h - a caller's options struct read as libbpf reads its own: by the
 * size (its first field, sz) of the struct the caller's header declared,
 * so that a program built against an older goheap.h keeps working and one
 * built against a newer one is refused only when it asks for more than
 * this library knows. */
#ifndef GH_BASE_OPTSIZE_H
#define GH_BASE_OPTSIZE_H

#include <stddef.h>

#include "goheap.h"

/* USAGE when o (of struct `type`, the library's being lib_sz bytes) has
 * an sz smaller than its sz field, or is larger with non-zero bytes past
 * lib_sz; NULL is fine. */
int opts__check(const void *o, size_t lib_sz, const char *type,
		struct gh_err *err);
/* opts__check, then the bytes of o its sz covers into dst (lib_sz bytes),
 * the rest zero, dst's sz set to lib_sz: the library's copy, every field
 * past the caller's at its zero default. NULL o: all zero. */
int opts__load(void *dst, size_t lib_sz, const void *o, const char *type,
	       struct gh_err *err);
#define OPTS_LOAD(dst, o, type, err)                                           \
	opts__load((dst), sizeof(*(dst)), (o), (type), (err))

#endif
