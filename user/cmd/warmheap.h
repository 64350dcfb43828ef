/* warmheap.h - a one-shot run's large allocations on transparent huge
 * pages (warmheap.c). */
#ifndef GH_CMD_WARMHEAP_H
#define GH_CMD_WARMHEAP_H

/* Before the first BPF program is loaded: the heap that libbpf's copy of
 * the kernel's BTF will take, madvised MADV_HUGEPAGE. Best effort: does
 * nothing where the kernel or glibc will not. */
void warm_heap(void);

#endif
