/* grow.h - a realloc'd array grown by doubling to hold what it must. */
#ifndef GH_BASE_GROW_H
#define GH_BASE_GROW_H

#include <stddef.h>

/* Grow *p (of *cap elements of size elem) to hold at least need elements,
 * doubling from 64; 0, or -1 with errno (ENOMEM) and *p as it was. */
int grow_array(void **p, size_t *cap, size_t need, size_t elem);

#endif
