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

/* From this size up, madvise MADV_HUGEPAGE: the kernel then faults the
 * array in 2 MiB at a time, not 4 KiB, where THP is "madvise" (and ignores
 * the advice where it is "never"). On a virtual machine a fault is dear:
 * 24 MiB of kept stacks took 6,000 faults and about 70 ms of a 200k-bucket
 * read here. Smaller arrays are left alone: a huge page would be mostly
 * empty. */
#define HUGE_FROM (4u << 20)

void *bigmem_grow_huge(void *p, size_t old, size_t size)
{
	void *q = bigmem_grow(p, old, size);

	if (q && size >= HUGE_FROM)
		madvise(q, size, MADV_HUGEPAGE); /* best effort */
	return q;
}

void bigmem_free(void *p, size_t size)
{
	if (p)
		munmap(p, size ? size : 1);
}

int bigmem_reserve(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 1024;
	void *nv;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	nv = bigmem_grow_huge(*v, *cap * elem, ncap * elem);
	if (!nv)
		return -1;
	*v = nv;
	*cap = ncap;
	return 0;
}
