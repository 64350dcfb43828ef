/* gread.c - runtime.g read from outside. The g is copied whole (its
 * first glayout.size bytes) in one read, then its fields are taken at the
 * release's offsets; nothing in it is trusted beyond its width: the
 * unwinder checks the stack bounds and PCs it gives. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "goroutine/gread.h"
#include "read/procmem.h"

/* Larger than any supported runtime.g (456 bytes in 1.26). */
#define G_MAX_BYTES 512
/* allgptr's slice is read in chunks of this many pointers. */
#define CHUNK 512
/* procmem_peek's bound: a read never crosses a page. */
#define PEEK_BYTES 4096

static uint64_t u64_at(const uint8_t *b, uint32_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

int gfetch_pid_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	int pid = *(const int *)ctx;
	uint8_t *d = dst;

	while (n) {
		size_t k = PEEK_BYTES - (size_t)(addr % PEEK_BYTES);

		if (k > n)
			k = n;
		if (procmem_peek(pid, addr, d, k) < 0)
			return -1;
		addr += k, d += k, n -= k;
	}
	return 0;
}

int gfetch_pid_gather(void *ctx, const uint64_t *addrs, size_t n, size_t width,
		      void *dst)
{
	return procmem_gather(*(const int *)ctx, addrs, n, width, dst);
}

int grec__read(struct grec *g, const struct glayout *L, const struct gfetch *f,
	       uint64_t addr)
{
	uint8_t b[G_MAX_BYTES];
	uint32_t st;

	if (L->size > sizeof(b))
		return errno = EINVAL, -1;
	if (f->read(f->ctx, addr, b, L->size) < 0)
		return -1;
	memset(g, 0, sizeof(*g));
	g->addr = addr;
	memcpy(&st, b + L->atomicstatus, sizeof(st));
	g->scan = st & GST_SCAN;
	g->status = st & ~(uint32_t)GST_SCAN;
	g->goid = u64_at(b, L->goid);
	g->parent_goid = L->parent_goid ? u64_at(b, L->parent_goid) : 0;
	g->waitreason = b[L->waitreason];
	g->waitsince = (int64_t)u64_at(b, L->waitsince);
	g->gopc = u64_at(b, L->gopc);
	g->startpc = u64_at(b, L->startpc);
	g->labels = u64_at(b, L->labels);
	g->sp = u64_at(b, L->sched_sp);
	g->pc = u64_at(b, L->sched_pc);
	g->lr = u64_at(b, L->sched_lr);
	g->bp = u64_at(b, L->sched_bp);
	g->syscallsp = u64_at(b, L->syscallsp);
	g->syscallpc = u64_at(b, L->syscallpc);
	g->stack_lo = u64_at(b, L->stack_lo);
	g->stack_hi = u64_at(b, L->stack_hi);
	g->m = u64_at(b, L->m);
	g->lockedm = u64_at(b, L->lockedm);
	g->running_cleanups = L->running_cleanups && b[L->running_cleanups];
	return 0;
}

bool grec__same(const struct grec *a, const struct grec *b)
{
	return a->goid == b->goid && a->status == b->status && a->sp == b->sp &&
	       a->pc == b->pc && a->syscallsp == b->syscallsp &&
	       a->syscallpc == b->syscallpc && a->stack_lo == b->stack_lo &&
	       a->stack_hi == b->stack_hi && a->waitreason == b->waitreason &&
	       a->labels == b->labels;
}

int gread_all(const struct gfetch *f, uint64_t allglen_addr,
	      uint64_t allgptr_addr, size_t max, uint64_t **gs, size_t *n,
	      bool *more)
{
	uint64_t len, ptr, *v;
	size_t k;

	*gs = NULL;
	*n = 0;
	*more = false;
	if (f->read(f->ctx, allglen_addr, &len, sizeof(len)) < 0 ||
	    f->read(f->ctx, allgptr_addr, &ptr, sizeof(ptr)) < 0)
		return -1;
	if (len && !ptr)
		return errno = EFAULT, -1;
	if (len > max) {
		*more = true;
		len = max;
	}
	v = malloc((len ? len : 1) * sizeof(*v));
	if (!v)
		return errno = ENOMEM, -1;
	for (k = 0; k < len; k += CHUNK) {
		size_t m = len - k < CHUNK ? len - k : CHUNK;

		if (f->read(f->ctx, ptr + 8 * k, v + k, 8 * m) < 0) {
			free(v);
			return -1;
		}
	}
	*gs = v;
	*n = len;
	return 0;
}
