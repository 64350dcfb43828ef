/* bigmem.c - see bigmem.h. The kernel rounds every size up to whole
 * pages, so callers count in bytes. */
#include <sys/mman.h>

#include "base/bigmem.h"

void *bigmem_grow(void *p, size_t old, size_t size)
{
	void *q;

	if (!size)
		size = 1;
	if (p)
		q = mremap(p, old, size, MREMAP_MAYMOVE);
	else
		q = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return q == MAP_FAILED ? NULL : q;
}

void bigmem_free(void *p, size_t size)
{
	if (p)
		munmap(p, size ? size : 1);
}
