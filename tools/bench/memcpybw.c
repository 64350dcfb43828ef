/* memcpybw.c - the benchmark's limit for a read phase: how long a plain
 * memcpy of the same number of bytes takes on this machine, the source
 * out of the cache as a target's buckets are (a 64 MiB buffer is read and
 * written between copies), the destination already faulted in.
 *
 *   memcpybw BYTES
 *
 * Prints "memcpy of N bytes in X ms (Y MB/s)", the median of 7 copies.
 * Built by make bench-bins (make test builds it too). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS	    7
#define EVICT_BYTES (64u << 20)

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	char *end = NULL;
	unsigned long long n = argc == 2 ? strtoull(argv[1], &end, 10) : 0;
	double ms[RUNS], t0;
	char *src, *dst, *evict;

	if (!n || !end || *end) {
		fprintf(stderr, "usage: memcpybw BYTES\n");
		return 2;
	}
	src = malloc(n);
	dst = malloc(n);
	evict = malloc(EVICT_BYTES);
	if (!src || !dst || !evict) {
		fprintf(stderr, "memcpybw: out of memory for %llu bytes\n", n);
		return 1;
	}
	memset(src, 1, n);
	memset(dst, 0, n);
	memset(evict, 0, EVICT_BYTES);
	for (int i = 0; i < RUNS; i++) {
		/* Through the cache, line by line: a large memset may bypass
		 * it with non-temporal stores. */
		for (size_t k = 0; k < EVICT_BYTES; k += 64)
			evict[k]++;
		t0 = now_ms();
		memcpy(dst, src, n);
		ms[i] = now_ms() - t0;
	}
	qsort(ms, RUNS, sizeof(ms[0]), cmp_double);
	/* The copy's result is used, so that it is not optimized away. */
	printf("memcpy of %llu bytes in %.3f ms (%.0f MB/s)%s\n", n,
	       ms[RUNS / 2], n / 1e3 / ms[RUNS / 2],
	       dst[n - 1] == 1 ? "" : "?");
	free(evict);
	free(dst);
	free(src);
	return 0;
}
