/* bigmem.h - memory for arrays of millions of elements, straight from the
 * kernel (mmap): growing one moves no bytes (mremap), the part not
 * written yet takes no memory, new bytes are zero, and freeing one gives
 * its memory back at once. malloc keeps what is freed in its arenas, so
 * that an index rebuilt bigger, or an array grown by copying, would leave
 * megabytes behind for the rest of the process. */
#ifndef GH_BIGMEM_H
#define GH_BIGMEM_H

#include <stddef.h>

/* p, of old bytes (NULL and 0 for none), grown to size bytes (at least
 * old), moved if need be; bytes past old are zero. NULL when out of
 * memory: p is left as it was. */
void *bigmem_grow(void *p, size_t old, size_t size);

/* bigmem_grow, and from 4 MiB up faulted in 2 MiB huge pages where the
 * kernel offers them: for arrays filled soon after they grow (each fault
 * is dear on a virtual machine); up to 2 MiB more resident. */
void *bigmem_grow_huge(void *p, size_t old, size_t size);

/* Room for need elements of elem bytes in *v (*cap of them now), the
 * capacity doubled from 1024 as need be, by bigmem_grow_huge: for arrays
 * kept across reads. -1 when out of memory (*v and *cap unchanged). */
int bigmem_reserve(void **v, size_t *cap, size_t need, size_t elem);

/* Free p, of size bytes (NULL: nothing). */
void bigmem_free(void *p, size_t size);

#endif
