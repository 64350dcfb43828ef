/* refread.c - the benchmark's two reference readers of a Go process's
 * heap-profile buckets (runtime.mbuckets → allnext), each collecting every
 * bucket's header, stack and memRecord from outside the process with
 * process_vm_readv and reporting how long that took:
 *
 *   huatuo  the way Huatuo's reader does it: one 48-byte read per bucket
 *           header along allnext, then stacks and records in batches of 64
 *           iovecs;
 *   block   64 KiB aligned blocks, the list walked inside the block held,
 *           another block read when the next bucket leaves it.
 *
 * Usage: refread huatuo|block PID MBUCKETS_ADDR REC_BYTES
 * Prints "<mode>: N buckets, W stack words, read in X ms".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#define HDR_WORDS   6
#define HDR_BYTES   (HDR_WORDS * 8)
#define MAX_NSTK    1026
#define MAX_REC	    128
#define MAX_BUCKETS (16u << 20)
#define BATCH	    64
#define BLOCK	    (64u << 10)

/* Everything read, in allnext order. */
struct haul {
	uint64_t *addr, *hdr, *words, *rec;
	size_t n, cap, nwords, cap_words;
	unsigned rec_bytes;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("refread");
		exit(1);
	}
	return p;
}

static int peek(int pid, uint64_t addr, void *dst, size_t n)
{
	struct iovec l = {dst, n}, r = {(void *)(uintptr_t)addr, n};

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* Room for one more bucket with nstk stack words; returns its index. */
static size_t push(struct haul *h, uint64_t addr, const uint64_t *hdr)
{
	size_t i = h->n++;

	if (h->n > h->cap) {
		h->cap = h->cap ? h->cap * 2 : 1024;
		h->addr = xrealloc(h->addr, h->cap * 8);
		h->hdr = xrealloc(h->hdr, h->cap * HDR_BYTES);
		h->rec = xrealloc(h->rec, h->cap * MAX_REC);
	}
	if (h->nwords + hdr[5] > h->cap_words) {
		while (h->nwords + hdr[5] > h->cap_words)
			h->cap_words = h->cap_words ? h->cap_words * 2 : 8192;
		h->words = xrealloc(h->words, h->cap_words * 8);
	}
	h->addr[i] = addr;
	memcpy(h->hdr + i * HDR_WORDS, hdr, HDR_BYTES);
	return i;
}

static int bad_hdr(const uint64_t *hdr)
{
	return hdr[2] != 1 || hdr[5] > MAX_NSTK;
}

/* Huatuo's way: headers one by one, then the rest in batches. */
static void read_huatuo(int pid, uint64_t cur, struct haul *h)
{
	struct iovec l[BATCH], r[BATCH];
	uint64_t hdr[HDR_WORDS], *stk;
	size_t k = 0, off = 0;

	while (cur && h->n < MAX_BUCKETS) {
		if (peek(pid, cur, hdr, HDR_BYTES) || bad_hdr(hdr))
			break;
		push(h, cur, hdr);
		h->nwords += hdr[5];
		cur = hdr[1];
	}
	for (size_t i = 0; i < h->n; i++) {
		uint64_t nstk = h->hdr[i * HDR_WORDS + 5];
		uint64_t a = h->addr[i] + HDR_BYTES;

		stk = h->words + off;
		off += nstk;
		l[k] = (struct iovec){stk, nstk * 8};
		r[k++] = (struct iovec){(void *)(uintptr_t)a, nstk * 8};
		l[k] = (struct iovec){h->rec + i * (MAX_REC / 8), h->rec_bytes};
		r[k++] = (struct iovec){(void *)(uintptr_t)(a + nstk * 8),
					h->rec_bytes};
		if (k == BATCH || i + 1 == h->n) {
			if (process_vm_readv(pid, l, k, r, k, 0) < 0) {
				perror("refread: process_vm_readv");
				exit(1);
			}
			k = 0;
		}
	}
}

/* Read BLOCK bytes at base into buf; the readable length. */
static size_t fill(int pid, uint8_t *buf, uint64_t base)
{
	struct iovec l = {buf, BLOCK}, r = {(void *)(uintptr_t)base, BLOCK};
	ssize_t got = process_vm_readv(pid, &l, 1, &r, 1, 0);

	return got > 0 ? (size_t)got : 0;
}

/* The bytes [a, a + n) from the block held, reading another when needed:
 * the aligned block holding a, or the block starting at a when the range
 * runs past that one or its start is not mapped. */
static const uint8_t *in_block(int pid, uint8_t *buf, uint64_t *base,
			       size_t *len, uint64_t a, size_t n)
{
	if (a >= *base && a + n <= *base + *len)
		return buf + (a - *base);
	*base = a & ~(uint64_t)(BLOCK - 1);
	*len = a + n <= *base + BLOCK ? fill(pid, buf, *base) : 0;
	if (a + n > *base + *len) {
		*base = a;
		*len = fill(pid, buf, a);
	}
	return a + n <= *base + *len ? buf + (a - *base) : NULL;
}

static void read_block(int pid, uint64_t cur, struct haul *h)
{
	uint8_t *buf = xrealloc(NULL, BLOCK);
	uint64_t base = 0, hdr[HDR_WORDS];
	size_t len = 0, i;
	const uint8_t *p;

	while (cur && h->n < MAX_BUCKETS) {
		p = in_block(pid, buf, &base, &len, cur, HDR_BYTES);
		if (!p)
			break;
		memcpy(hdr, p, HDR_BYTES);
		if (bad_hdr(hdr))
			break;
		p = in_block(pid, buf, &base, &len, cur,
			     HDR_BYTES + hdr[5] * 8 + h->rec_bytes);
		if (!p)
			break;
		i = push(h, cur, hdr);
		memcpy(h->words + h->nwords, p + HDR_BYTES, hdr[5] * 8);
		h->nwords += hdr[5];
		memcpy(h->rec + i * (MAX_REC / 8), p + HDR_BYTES + hdr[5] * 8,
		       h->rec_bytes);
		cur = hdr[1];
	}
	free(buf);
}

int main(int argc, char **argv)
{
	struct haul h = {0};
	uint64_t mbuckets, head;
	double t0, ms;
	int pid;

	if (argc != 5 ||
	    (strcmp(argv[1], "huatuo") && strcmp(argv[1], "block"))) {
		fprintf(stderr, "usage: refread huatuo|block PID MBUCKETS_ADDR "
				"REC_BYTES\n");
		return 2;
	}
	pid = atoi(argv[2]);
	mbuckets = strtoull(argv[3], NULL, 0);
	h.rec_bytes = (unsigned)atoi(argv[4]);
	if (h.rec_bytes > MAX_REC || h.rec_bytes % 8) {
		fprintf(stderr, "refread: bad REC_BYTES\n");
		return 2;
	}
	t0 = now_ms();
	if (peek(pid, mbuckets, &head, 8)) {
		fprintf(stderr, "refread: reading runtime.mbuckets: %s\n",
			strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "huatuo"))
		read_huatuo(pid, head, &h);
	else
		read_block(pid, head, &h);
	ms = now_ms() - t0;
	printf("%s: %zu buckets, %zu stack words, read in %.1f ms\n", argv[1],
	       h.n, h.nwords, ms);
	return 0;
}
