/* warmheap.c - see warmheap.h. libbpf 1.1 reads the kernel's BTF
 * (/sys/kernel/btf/vmlinux, 5.4 MB on 6.18) into one malloc'd buffer and
 * copies it into another, in every process that loads a program. glibc
 * gives blocks that large mappings of their own, faulted in 4 KiB at a
 * time, and on a virtual machine a fault is dear: a one-shot iter read
 * of 10k buckets took 3,785 faults and 110 ms here. Now blocks up to
 * MMAP_MAX come from the main heap instead, whose part they will take is
 * madvised MADV_HUGEPAGE first, so that the kernel faults it 2 MiB at a
 * time: 526 faults and 66 ms (1M buckets: 7,101 faults and 483 ms, now
 * 1,722 and 407 ms; peak RSS 8 MiB more at 10k, 6 MiB at 1M). The heap
 * is kept while the run lasts (one-shot: it ends soon), and the
 * collector's few threads allocate in it too (M_ARENA_MAX 1), not in
 * heaps of their own. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cmd/warmheap.h"

#define BTF_PATH  "/sys/kernel/btf/vmlinux"
#define MMAP_MAX  (64u << 20) /* larger blocks keep their own mappings */
#define WARM_MIN  (8u << 20)
#define HUGE_PAGE (2u << 20)

void warm_heap(void)
{
	struct stat st;
	size_t want;
	uintptr_t a, z;
	void *p;

	if (stat(BTF_PATH, &st) || st.st_size <= 0)
		return; /* no BTF: no BPF program will load */
	/* the file, its copy, and the types' index beside them */
	want = (size_t)st.st_size * 3;
	if (want < WARM_MIN)
		want = WARM_MIN;
	if (want > MMAP_MAX)
		return;
	if (!mallopt(M_MMAP_THRESHOLD, (int)MMAP_MAX) ||
	    !mallopt(M_TRIM_THRESHOLD, (int)(2 * MMAP_MAX)) ||
	    !mallopt(M_ARENA_MAX, 1))
		return;
	p = malloc(want + HUGE_PAGE);
	if (!p)
		return;
	a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	z = ((uintptr_t)p + want + HUGE_PAGE) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (z > a)
		madvise((void *)a, z - a, MADV_HUGEPAGE);
	free(p); /* stays in the heap: M_TRIM_THRESHOLD */
}
