/* test_procmaps.c - procmaps__readable (user/proc/proc.c), which tells a
 * bucket header on a page out of memory from one that runs into no
 * mapping, against the kernel's own answer: process_vm_readv of the same
 * bytes of this process, over mappings laid out for it (read-write, then
 * read-only end to end, a hole, an inaccessible page). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "proc/proc.h"

/* Does the kernel let us read n bytes at addr of this process? */
static bool kernel_reads(uint64_t addr, size_t n)
{
	char buf[256];
	struct iovec local = {buf, n}, remote = {(void *)addr, n};

	assert_true(n <= sizeof(buf));
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) ==
	       (ssize_t)n;
}

static void test_readable_as_the_kernel_says(void **state)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct procmaps maps = {0};
	struct gh_err err;
	uint8_t *p;
	uint64_t base;
	/* offset from p, bytes */
	const struct {
		size_t off, n;
	} cases[] = {
		{8, 48},	     /* inside the first page */
		{page - 16, 48},     /* into the read-only page beside it */
		{2 * page - 16, 48}, /* off the read-only page into the hole */
		{2 * page + 8, 8},   /* in the hole */
		{3 * page + 8, 8},   /* on the inaccessible page */
		{3 * page - 8, 16},  /* ... from the hole */
		{2 * page - 48, 48}, /* up to the hole, not into it */
	};

	(void)state;
	p = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	p[0] = 1;
	assert_int_equal(mprotect(p + page, page, PROT_READ), 0);
	assert_int_equal(munmap(p + 2 * page, page), 0);
	assert_int_equal(mprotect(p + 3 * page, page, PROT_NONE), 0);
	if (proc_maps(getpid(), &maps, &err))
		fail_msg("/proc/self/maps: %s", err.msg);
	base = (uint64_t)(uintptr_t)p;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t at = base + cases[i].off;
		bool want = kernel_reads(at, cases[i].n);

		if (procmaps__readable(&maps, at, cases[i].n) != want)
			fail_msg("case %zu: %zu bytes at p+%zu: readable says "
				 "%d, the kernel %d",
				 i, cases[i].n, cases[i].off, !want, want);
	}
	/* The layout is what the cases mean: each answer both ways. */
	assert_true(kernel_reads(base + page - 16, 48));
	assert_false(kernel_reads(base + 2 * page - 16, 48));
	procmaps__free(&maps);
	munmap(p, 2 * page);
	munmap(p + 3 * page, page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readable_as_the_kernel_says),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
