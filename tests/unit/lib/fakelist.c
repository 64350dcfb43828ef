/* fakelist.c - see fakelist.h. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fakelist.h"

void fake_bucket(uint64_t *w, uint64_t allnext, uint64_t size)
{
	memset(w, 0, (6 + FAKE_NSTK) * 8 + FAKE_REC_BYTES);
	w[1] = allnext;
	w[2] = 1;
	w[3] = 0x1234 + size;
	w[4] = size;
	w[5] = FAKE_NSTK;
	for (int i = 0; i < FAKE_NSTK; i++)
		w[6 + i] = 0x401000 + 16 * i + size;
	w[6 + FAKE_NSTK] = 7; /* active.allocs */
}

int fake_dropped_list(volatile uint64_t *head, struct fake_layout *l)
{
	char path[] = "/tmp/gh_fake_XXXXXX";
	int file = mkstemp(path);
	uint64_t *heap = calloc(1, FAKE_PAGE), *mapped;

	if (file < 0 || !heap || ftruncate(file, FAKE_PAGE))
		return -1;
	unlink(path);
	mapped = mmap(NULL, FAKE_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, file,
		      0);
	if (mapped == MAP_FAILED)
		return -1;
	fake_bucket(mapped, 0, 64);
	fake_bucket(heap, (uint64_t)(uintptr_t)mapped, 32);
	*head = (uint64_t)(uintptr_t)heap;
	if (msync(mapped, FAKE_PAGE, MS_SYNC) ||
	    madvise(mapped, FAKE_PAGE, MADV_DONTNEED))
		return -1;
	*l = (struct fake_layout){
		(uint64_t)(uintptr_t)head,
		{(uint64_t)(uintptr_t)heap, (uint64_t)(uintptr_t)mapped},
		(uint64_t)(uintptr_t)mapped};
	return 0;
}

int fake_unreadable_list(volatile uint64_t *head, struct fake_layout *l)
{
	char path[] = "/tmp/gh_fake_XXXXXX";
	int file = mkstemp(path);
	uint64_t *heap = calloc(1, FAKE_PAGE);
	char *mapped;

	if (file < 0 || !heap || ftruncate(file, FAKE_PAGE))
		return -1;
	unlink(path);
	mapped = mmap(NULL, 2 * FAKE_PAGE, PROT_READ, MAP_SHARED, file, 0);
	close(file);
	if (mapped == MAP_FAILED)
		return -1;
	fake_bucket(heap, (uint64_t)(uintptr_t)(mapped + FAKE_PAGE), 32);
	*head = (uint64_t)(uintptr_t)heap;
	*l = (struct fake_layout){(uint64_t)(uintptr_t)head,
				  {(uint64_t)(uintptr_t)heap,
				   (uint64_t)(uintptr_t)(mapped + FAKE_PAGE)},
				  (uint64_t)(uintptr_t)(mapped + FAKE_PAGE)};
	return 0;
}

int fake_long_list(volatile uint64_t *head, size_t n, struct fake_layout *l)
{
	const size_t words = 6 + FAKE_NSTK + FAKE_REC_BYTES / 8;
	uint64_t *v = calloc(n, words * 8), allnext = 0;

	if (!v || !n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		fake_bucket(v + i * words, allnext, 8 * (i + 1));
		allnext = (uint64_t)(uintptr_t)(v + i * words);
	}
	*head = allnext;
	*l = (struct fake_layout){(uint64_t)(uintptr_t)head,
				  {allnext, (uint64_t)(uintptr_t)v},
				  0};
	return 0;
}
