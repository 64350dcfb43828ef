/* procmem.c - the process_vm_readv backend: the walk
 * of runtime.mbuckets → allnext that the BPF backends do in the kernel (bpf/),
 * done from userspace, for hosts where BPF is not allowed.
 *
 * Copying each bucket with its own system call is what makes a reader slow
 * (a 200k-bucket profile is 400k copies). Buckets are packed together in
 * persistentalloc chunks and never move, so the walk instead reads the
 * target in 64 KiB aligned blocks and follows the list inside the block it
 * holds, reading another block only when the next bucket leaves it. The
 * remote side of every read is split at 4 KiB boundaries: process_vm_readv
 * stops at the first iovec it cannot read and returns what it copied, so a
 * block that runs past the end of a mapping still yields its readable part.
 *
 * The walk stops where the BPF walk stops, with the same partial reasons, so
 * both backends give the same snapshot of the same list.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "read/partial.h"
#include "read/procmem.h"

#define BLOCK_BYTES (64u << 10)
/* Split granularity of remote reads: the smallest page size Linux has. */
#define PIECE_BYTES 4096u
/* A block stretched by the largest bucket, rounded to whole pieces. */
#define BUF_BYTES                                                              \
	(BLOCK_BYTES +                                                         \
	 ((GH_BUCKET_HDR_BYTES + GH_MAX_BODY_BYTES + PIECE_BYTES) &            \
	  ~(PIECE_BYTES - 1)))
#define MAX_PIECES (BUF_BYTES / PIECE_BYTES + 1)
/* Buckets walked between looks at the read's deadline and cancel. */
#define CTL_EVERY 4096
#define PERM_FIX                                                               \
	"run as root or with CAP_SYS_PTRACE (kernel.yama.ptrace_scope=3 "      \
	"refuses everyone)"

struct procmem_reader {
	uint8_t *buf;	/* BUF_BYTES of the target's memory */
	uint64_t base;	/* target address of buf[0] */
	size_t len;	/* bytes of buf that hold the target's memory */
	uint64_t bytes; /* copied from the target during this read */
	int pid;
	/* The profile cycle variable, read with every block, after it. */
	uint64_t cycle_addr, cycle_raw;
	bool has_cycle;
};

/* remote[] for the n bytes at addr, split at PIECE_BYTES boundaries;
 * returns how many (at most MAX_PIECES). */
static unsigned long pieces(uint64_t addr, size_t n, struct iovec *remote)
{
	unsigned long k = 0;
	size_t done = 0;

	while (done < n && k < MAX_PIECES) {
		uint64_t a = addr + done;
		size_t piece = PIECE_BYTES - (size_t)(a % PIECE_BYTES);

		if (piece > n - done)
			piece = n - done;
		remote[k].iov_base = (void *)(uintptr_t)a;
		remote[k++].iov_len = piece;
		done += piece;
	}
	return k;
}

/* Copy n <= BUF_BYTES bytes at addr in pid into dst. Returns the bytes
 * copied (fewer when the range runs into unreadable memory), or -1 with
 * errno (EFAULT when the first byte is unreadable). */
static ssize_t read_remote(int pid, uint64_t addr, void *dst, size_t n)
{
	struct iovec local = {dst, n}, remote[MAX_PIECES];

	if (addr > UINT64_MAX - n)
		return errno = EFAULT, -1;
	return process_vm_readv(pid, &local, 1, remote, pieces(addr, n, remote),
				0);
}

/* read_remote of buckets into dst, and in the same call, after them
 * (process_vm_readv copies its iovecs in order), the cycle variable into
 * r->cycle_raw: a cycle published when those bytes were read, or later.
 * A read cut short by unreadable memory stops before the variable: it is
 * read on its own then. r->has_cycle says whether it was read. */
static ssize_t read_block(struct procmem_reader *r, uint64_t addr, void *dst,
			  size_t n)
{
	struct iovec local[2] = {{dst, n}, {&r->cycle_raw, 8}};
	struct iovec remote[MAX_PIECES + 1];
	unsigned long k;
	ssize_t got;

	r->has_cycle = false;
	if (addr > UINT64_MAX - n)
		return errno = EFAULT, -1;
	k = pieces(addr, n, remote);
	if (!r->cycle_addr)
		return process_vm_readv(r->pid, local, 1, remote, k, 0);
	remote[k++] = (struct iovec){(void *)(uintptr_t)r->cycle_addr, 8};
	got = process_vm_readv(r->pid, local, 2, remote, k, 0);
	if (got < 0)
		return got;
	if ((size_t)got < n) {
		r->has_cycle = read_remote(r->pid, r->cycle_addr, &r->cycle_raw,
					   8) == 8;
		return got;
	}
	r->has_cycle = (size_t)got == n + 8;
	return (ssize_t)n;
}

int procmem_peek(int pid, uint64_t addr, void *dst, size_t n)
{
	return n <= PIECE_BYTES && read_remote(pid, addr, dst, n) == (ssize_t)n
		       ? 0
		       : -1;
}

int procmem_gather(int pid, const uint64_t *addrs, size_t n, size_t width,
		   void *dst)
{
	struct iovec local, remote[IOV_MAX];
	uint8_t *d = dst;

	if (width > 8)
		return errno = EINVAL, -1;
	for (size_t k = 0; k < n; k += IOV_MAX) {
		size_t m = n - k < IOV_MAX ? n - k : IOV_MAX;

		for (size_t i = 0; i < m; i++) {
			uint64_t a = addrs[k + i];

			if (a % PIECE_BYTES > PIECE_BYTES - width)
				return errno = EFAULT, -1;
			remote[i] = (struct iovec){(void *)(uintptr_t)a, width};
		}
		local = (struct iovec){d + k * width, m * width};
		if (process_vm_readv(pid, &local, 1, remote, m, 0) !=
		    (ssize_t)(m * width))
			return errno = errno ? errno : EFAULT, -1;
	}
	return 0;
}

/* Read the rest of [a, a + n) into the buffer after its readable part, when
 * the buffer holds a but not the whole range and the range fits in it. */
static const uint8_t *extend(struct procmem_reader *r, uint64_t a, size_t n)
{
	uint64_t stop = a + n - r->base;
	ssize_t got;

	if (r->len % PIECE_BYTES || stop > BUF_BYTES)
		return NULL;
	got = read_block(r, r->base + r->len, r->buf + r->len, stop - r->len);
	if (got < 0)
		return NULL;
	r->bytes += (uint64_t)got;
	r->len += (size_t)got;
	return stop <= r->len ? r->buf + (a - r->base) : NULL;
}

/* The n bytes at a in the target, from the buffer; another block is read
 * when they are not all in it: the aligned block holding a and one page
 * more, since a bucket that starts near the block's end runs past it. The
 * list runs from newer to older buckets, mostly toward lower addresses, so
 * the next buckets are below a. When the block's start is unreadable (the
 * mapping begins inside it), the read starts at a's page instead. NULL with
 * errno when the range is not all readable. */
static const uint8_t *window(struct procmem_reader *r, uint64_t a, size_t n)
{
	uint64_t end = a + n, s;
	const uint8_t *p;
	ssize_t got;

	if (a > UINT64_MAX - n - BUF_BYTES)
		return errno = EFAULT, NULL;
	if (a >= r->base && a < r->base + r->len) {
		if (end <= r->base + r->len)
			return r->buf + (a - r->base);
		errno = EFAULT;
		p = extend(r, a, n);
		if (p || errno == ESRCH || errno == EPERM)
			return p;
	}
	s = a & ~(uint64_t)(BLOCK_BYTES - 1);
	for (int i = 0; i < 2; i++, s = a & ~(uint64_t)(PIECE_BYTES - 1)) {
		r->len = 0;
		got = read_block(r, s, r->buf, BLOCK_BYTES + PIECE_BYTES);
		if (got < 0 && (errno == ESRCH || errno == EPERM))
			return NULL;
		if (got < 0)
			continue;
		r->bytes += (uint64_t)got;
		r->base = s;
		r->len = (size_t)got;
		if (end <= s + r->len)
			return r->buf + (a - s);
		errno = EFAULT;
		p = extend(r, a, n);
		if (p || errno == ESRCH || errno == EPERM)
			return p;
	}
	return errno = EFAULT, NULL;
}

/* Read the scalar variables as 8 raw bytes each, like the BPF walk. */
static void read_vars(const struct read_req *req, uint64_t vars[GH_NVARS],
		      uint32_t *var_err)
{
	*var_err = 0;
	for (int i = 0; i < GH_NVARS; i++) {
		vars[i] = 0;
		if (req->vars[i] &&
		    read_remote(req->pid, req->vars[i], &vars[i], 8) != 8)
			*var_err |= 1u << i;
	}
}

static int head_error(const struct read_req *req, int e, struct gh_err *err)
{
	if (e == ESRCH)
		return err_set(err, GH_E_GONE,
			       "process %d exited before its heap profile "
			       "could be read",
			       req->pid);
	if (e == EPERM)
		return err_set(err, GH_E_PERM,
			       "reading the memory of process %d was "
			       "refused (EPERM): %s",
			       req->pid, PERM_FIX);
	return err_set(err, GH_E_FAILED,
		       "reading runtime.mbuckets at 0x%llx in process %d "
		       "failed (%s)",
		       (unsigned long long)req->mbuckets, req->pid,
		       strerror(e));
}

/* A read of the bucket at cur failed with errno e: the walk ends there. */
static void bucket_fault(struct snapshot *s, uint64_t cur, int e)
{
	if (e == ESRCH)
		partial_exited(s);
	else
		partial_fault(s, cur, strerror(e));
}

/* Follow allnext from cur. Returns 0 (s->partial says whether the walk was
 * cut short) or -1 when the snapshot cannot grow. Leaving the loop with a
 * bucket in hand means reading it failed. */
static int walk(struct procmem_reader *r, const struct read_req *req,
		const struct read_ctl *ctl, uint64_t cur, struct snapshot *s,
		struct gh_err *err)
{
	uint64_t n = 0, hdr[GH_BUCKET_HDR_WORDS];
	const uint8_t *p;
	const char *why;
	size_t len;
	int rc;

	for (; cur; n++, cur = hdr[1]) {
		/* A clock read every so many buckets costs nothing. */
		if (n % CTL_EVERY == 0 && (why = read_ctl__stop(ctl))) {
			partial_stopped(s, why);
			return 0;
		}
		if (req->max_bytes && r->bytes >= req->max_bytes) {
			partial_byte_budget(s, req->max_bytes);
			return 0;
		}
		if (n >= req->max_buckets) {
			partial_bucket_budget(s, req->max_buckets);
			return 0;
		}
		/* Go's buckets are word-aligned; anything else is garbage. */
		if (cur % 8) {
			partial_misaligned(s, cur);
			return 0;
		}
		p = window(r, cur, GH_BUCKET_HDR_BYTES);
		if (!p)
			break;
		memcpy(hdr, p, sizeof(hdr));
		if (hdr[2] != (req->typ ? req->typ : GH_TYP_MEM)) {
			partial_not_heap(s, cur, req->typ);
			return 0;
		}
		if (hdr[5] > req->nstk_max) {
			read_req__too_deep(req, s, cur);
			return 0;
		}
		len = GH_BUCKET_HDR_BYTES + hdr[5] * 8 + req->rec_bytes;
		p = window(r, cur, len);
		if (!p)
			break;
		snapshot__set_cycle(s, r->has_cycle, r->cycle_raw);
		rc = snapshot__add(s, cur, hdr[4], (uint32_t)hdr[5],
				   p + GH_BUCKET_HDR_BYTES,
				   p + GH_BUCKET_HDR_BYTES + hdr[5] * 8,
				   req->rec_bytes);
		if (rc == 1) {
			partial_cyclic(s, cur);
			return 0;
		}
		if (rc < 0)
			return err_set(err, GH_E_FAILED,
				       "out of memory after %zu buckets",
				       s->nbuckets);
	}
	if (cur)
		bucket_fault(s, cur, errno);
	return 0;
}

int procmem_reader__read(struct procmem_reader *r, const struct read_req *req,
			 const struct read_ctl *ctl, struct snapshot *s,
			 struct gh_err *err)
{
	double t0 = clock_mono_ms();
	uint64_t head;
	ssize_t got;
	int rc;

	if (read_req__check(req, err))
		return -1;
	/* The counters in the block of an earlier read are stale. */
	r->pid = req->pid;
	r->len = 0;
	r->bytes = 0;
	r->cycle_addr = read_req__cycle_addr(req);
	r->has_cycle = false;
	read_vars(req, s->vars, &s->var_err);
	got = read_remote(req->pid, req->mbuckets, &head, 8);
	if (got != 8)
		return head_error(req, got < 0 ? errno : EFAULT, err);
	rc = walk(r, req, ctl, head, s, err);
	read_vars(req, s->vars_end, &s->var_err_end);
	s->read_bytes = r->bytes;
	s->read_ms = clock_mono_ms() - t0;
	return rc;
}

int procmem_reader__open(struct procmem_reader **out, struct gh_err *err)
{
	struct procmem_reader *r;
	uint64_t probe = 1, copy = 0;

	*out = NULL;
	/* Reading ourselves fails only when the system call is missing or
	 * filtered (seccomp), not for lack of privileges. */
	if (read_remote(getpid(), (uint64_t)(uintptr_t)&probe, &copy, 8) != 8) {
		if (errno == ENOSYS)
			return err_set(err, GH_E_KERNEL,
				       "the kernel lacks process_vm_readv: "
				       "need CONFIG_CROSS_MEMORY_ATTACH=y");
		return err_set(err, GH_E_PERM,
			       "process_vm_readv is denied here (%s): "
			       "allow it in the seccomp profile",
			       strerror(errno));
	}
	r = calloc(1, sizeof(*r));
	if (r)
		r->buf = malloc(BUF_BYTES);
	if (!r || !r->buf) {
		free(r);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	*out = r;
	return 0;
}

void procmem_reader__free(struct procmem_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r);
}

static int procmem_open(void **state, const struct backend_env *env,
			struct gh_err *err)
{
	(void)env;
	return procmem_reader__open((struct procmem_reader **)state, err);
}

static int procmem_read_one(void *state, const struct read_req *req,
			    const struct read_ctl *ctl, struct snapshot *s,
			    struct gh_err *err)
{
	return procmem_reader__read(state, req, ctl, s, err);
}

static void procmem_read(void *state, struct read_job *jobs, size_t n,
			 struct read_ctl *ctl)
{
	read_jobs_each(state, jobs, n, ctl, procmem_read_one);
}

static void procmem_free(void *state)
{
	procmem_reader__free(state);
}

const struct backend_ops backend_procmem = {
	.name = "procmem",
	.open = procmem_open,
	.read = procmem_read,
	.free = procmem_free,
};
