/* test_readers.c - the two walkers that read a live process from outside,
 * the BPF task iterator and process_vm_readv, against real processes and
 * against each other (and perf, for the GC cycle each bucket is read in).
 *
 * Each test forks a child that builds a synthetic heap-profile bucket list
 * (runtime/mprof.go layout: 6-word header, stack, 128-byte memRecord) in its
 * own private memory, then copies what it built, byte for byte from that
 * memory, into a shared mapping and waits. The test reads the child with
 * both backends: each snapshot must match the child's copy, and the two
 * must be identical, down to the partial reason.
 *
 * Needs root: the iterator loads BPF, and the permission test drops to
 * nobody to be refused.
 */
#include <errno.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "read/iter.h"
#include "read/procmem.h"
#include "read/stream.h"

#define NSTK_MAX  128
#define REC_BYTES 128
#define REC_WORDS (REC_BYTES / 8)
#define MAX_KIDS  60000
#define SHM_BYTES (96u << 20)
#define PAGE	  4096u
/* The procmem reader's block size. */
#define BLOCK  (64u << 10)
#define NOBODY 65534

/* What a child did to its list. */
enum shape {
	SHAPE_PLAIN,
	SHAPE_CYCLE,	/* last allnext points back at bucket `at` */
	SHAPE_DEEP,	/* bucket `at` has nstk = NSTK_MAX + 1 */
	SHAPE_FAULT,	/* bucket `at` has an unmapped allnext */
	SHAPE_BAD_TYPE, /* bucket `at` has typ 2 (a CPU-profile bucket) */
	/* buckets `at` and `at`+1 start and end a small mapping that starts
	 * one page into a 64 KiB block, with nothing mapped around it */
	SHAPE_EDGES,
	/* bucket `at`'s header ends a mapping, its stack runs past the end */
	SHAPE_TAIL,
	SHAPE_MISALIGN, /* bucket `at` has an allnext 4 bytes off */
	/* the first pass's records fill the iterator's ring buffer to the
	 * byte (see fill_nstk) */
	SHAPE_FILL,
	/* packed as Go packs them: each bucket just below the one before it,
	 * but for a gap every PACKED_GAP_EVERY buckets; bucket `at` has typ 2
	 */
	SHAPE_PACKED,
	/* plain, and while it waits the child counts its cycle variable up,
	 * writing each new count into every bucket's first record word after
	 * it (kid_stamp) */
	SHAPE_STAMPED,
};

#define PACKED_GAP_EVERY 500

/* One bucket as the child copied it out of its own memory. */
struct kid_bucket {
	uint64_t addr;
	uint64_t hdr[GH_BUCKET_HDR_WORDS];
	uint64_t off; /* its stack+record words in shared->words */
};

struct shared {
	uint64_t mbuckets; /* &head in the child */
	uint64_t var_addr[GH_NVARS];
	uint64_t var_raw[GH_NVARS]; /* the bytes at var_addr, from the child */
	uint64_t unmapped;	    /* an address with nothing mapped */
	uint64_t n;
	struct kid_bucket b[MAX_KIDS];
	uint64_t words[]; /* stack words then memRecord words, per bucket */
};

_Static_assert(sizeof(struct shared) + (uint64_t)MAX_KIDS *
					       (NSTK_MAX + 1 + REC_WORDS) * 8 <=
		       SHM_BYTES,
	       "the shared mapping holds the largest list");

/* The child's runtime.mbuckets and scalar variables (private after fork). */
static uint64_t kid_head;
static uint64_t kid_vars[GH_NVARS];
static uint64_t **kid_bk; /* the child's buckets, in list order */

struct kid {
	pid_t pid;
	struct shared *sh;
};

struct fixture {
	void *procmem, *iter;
};

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* An address the child surely has nothing mapped at. */
static uint64_t unmapped_addr(void)
{
	void *p =
		mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(3);
	munmap(p, PAGE);
	return (uint64_t)(uintptr_t)p;
}

/* Three writable pages starting one page past a 64 KiB boundary, with
 * nothing mapped in the rest of that block or after them. */
static uint8_t *edge_region(void)
{
	size_t span = 4 * BLOCK;
	uint8_t *res = mmap(NULL, span, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (res == MAP_FAILED)
		_exit(3);
	a = (((uintptr_t)res + BLOCK - 1) & ~(uintptr_t)(BLOCK - 1)) + PAGE;
	if (munmap(res, a - (uintptr_t)res) ||
	    munmap((void *)(a + 3 * PAGE),
		   (uintptr_t)res + span - (a + 3 * PAGE)) ||
	    mprotect((void *)a, 3 * PAGE, PROT_READ | PROT_WRITE))
		_exit(3);
	return (uint8_t *)a;
}

static uint64_t body_bytes(uint64_t nstk)
{
	return GH_BUCKET_HDR_BYTES + nstk * 8 + REC_BYTES;
}

/* The iterator's ring buffer (read_bpf.c) and the bytes a record of n
 * bytes takes in it (an 8-byte header, 8-byte aligned). */
#define RING_BYTES     GH_ITER_RING_BYTES
#define RING_RECORD(n) ((((uint64_t)(n)) + 8 + 7) & ~7ULL)
#define FILL_NSTK      75

static uint64_t ring_bucket(uint64_t nstk)
{
	return RING_RECORD(sizeof(struct gh_ev_bucket) + nstk * 8 + REC_BYTES);
}

/* SHAPE_FILL: buckets of FILL_NSTK words, one of fewer at `at`, so that
 * BEGIN, buckets 0..at and END take exactly RING_BYTES. */
static uint64_t fill_at(void)
{
	return (RING_BYTES - RING_RECORD(sizeof(struct gh_ev_begin)) -
		RING_RECORD(sizeof(struct gh_ev_end))) /
	       ring_bucket(FILL_NSTK);
}

static uint64_t fill_nstk(uint64_t i)
{
	uint64_t left = RING_BYTES - RING_RECORD(sizeof(struct gh_ev_begin)) -
			RING_RECORD(sizeof(struct gh_ev_end)) -
			fill_at() * ring_bucket(FILL_NSTK);

	if (i < fill_at())
		return FILL_NSTK;
	if (i == fill_at())
		return (left - ring_bucket(0)) / 8;
	return i % (NSTK_MAX + 1);
}

/* Where bucket i of shape lives: in the heap, or at a mapping's edge. Only
 * the header of a SHAPE_TAIL bucket fits in its memory. */
/* SHAPE_PACKED's next bucket of nstk words, below the previous one. */
static uint64_t *packed_alloc(uint64_t i, uint64_t nstk)
{
	static uint8_t *top;

	if (!top) {
		uint8_t *arena = mmap(NULL, SHM_BYTES, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (arena == MAP_FAILED)
			_exit(3);
		top = arena + SHM_BYTES;
	}
	top -= body_bytes(nstk) + (i % PACKED_GAP_EVERY == 0 ? 8 : 0);
	return (uint64_t *)top;
}

static uint64_t *kid_alloc(uint64_t i, uint64_t nstk, enum shape shape,
			   uint64_t at, uint8_t **edge)
{
	uint64_t *w;

	if (shape == SHAPE_PACKED)
		return packed_alloc(i, nstk);

	if ((shape == SHAPE_EDGES && (i == at || i == at + 1)) ||
	    (shape == SHAPE_TAIL && i == at)) {
		if (!*edge)
			*edge = edge_region();
		if (shape == SHAPE_TAIL)
			return (uint64_t *)(*edge + 3 * PAGE -
					    GH_BUCKET_HDR_BYTES);
		return (uint64_t *)(i == at ? *edge
					    : *edge + 3 * PAGE -
						      body_bytes(nstk));
	}
	w = malloc(body_bytes(nstk));
	if (!w)
		_exit(3);
	return w;
}

/* Build the list in the child's memory, then publish a copy of it. */
static void kid_build(struct shared *sh, uint64_t n, enum shape shape,
		      uint64_t at)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	uint64_t **bk = calloc(n ? n : 1, sizeof(*bk));
	uint8_t *edge = NULL;
	uint64_t off = 0;

	if (!bk)
		_exit(3);
	sh->unmapped = unmapped_addr();
	for (uint64_t i = 0; i < n; i++) {
		uint64_t nstk = shape == SHAPE_FILL ? fill_nstk(i)
						    : (i * 37) % (NSTK_MAX + 1);
		bool tail = shape == SHAPE_TAIL && i == at;
		uint64_t *w;

		if (shape == SHAPE_DEEP && i == at)
			nstk = NSTK_MAX + 1;
		w = kid_alloc(i, nstk, shape, at, &edge);
		w[0] = xorshift(&seed); /* next (hash chain): not followed */
		w[2] = ((shape == SHAPE_BAD_TYPE || shape == SHAPE_PACKED) &&
			i == at)
			       ? 2
			       : 1;
		w[3] = xorshift(&seed);
		w[4] = xorshift(&seed) % 100000;
		w[5] = nstk;
		for (uint64_t j = 0; !tail && j < nstk + REC_WORDS; j++)
			w[GH_BUCKET_HDR_WORDS + j] = xorshift(&seed);
		if (shape == SHAPE_STAMPED)
			w[GH_BUCKET_HDR_WORDS + nstk] = 0;
		bk[i] = w;
	}
	for (uint64_t i = 0; i < n; i++)
		bk[i][1] = i + 1 < n ? (uint64_t)(uintptr_t)bk[i + 1] : 0;
	if (shape == SHAPE_CYCLE)
		bk[n - 1][1] = (uint64_t)(uintptr_t)bk[at];
	if (shape == SHAPE_FAULT)
		bk[at][1] = sh->unmapped;
	if (shape == SHAPE_MISALIGN)
		bk[at][1] += 4;
	kid_head = n ? (uint64_t)(uintptr_t)bk[0] : 0;
	for (int i = 0; i < GH_NVARS; i++)
		kid_vars[i] = xorshift(&seed);
	if (shape == SHAPE_STAMPED)
		kid_vars[GH_VAR_CYCLE] = 0;
	kid_bk = bk;

	sh->mbuckets = (uint64_t)(uintptr_t)&kid_head;
	for (int i = 0; i < GH_NVARS; i++) {
		sh->var_addr[i] = (uint64_t)(uintptr_t)&kid_vars[i];
		memcpy(&sh->var_raw[i], &kid_vars[i], 8);
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t nstk = bk[i][5];

		sh->b[i].addr = (uint64_t)(uintptr_t)bk[i];
		memcpy(sh->b[i].hdr, bk[i], GH_BUCKET_HDR_BYTES);
		sh->b[i].off = off;
		if (!(shape == SHAPE_TAIL && i == at))
			memcpy(&sh->words[off], bk[i] + GH_BUCKET_HDR_WORDS,
			       (nstk + REC_WORDS) * 8);
		off += nstk + REC_WORDS;
	}
	sh->n = n;
}

/* SHAPE_STAMPED's wait: the cycle variable becomes t, then every bucket's
 * first record word does, so a bucket read with stamp t was read after
 * the variable became t. */
static void kid_stamp(uint64_t n)
{
	for (uint64_t t = 1;; t++) {
		__atomic_store_n(&kid_vars[GH_VAR_CYCLE], t, __ATOMIC_RELEASE);
		for (uint64_t i = 0; i < n; i++)
			__atomic_store_n(
				&kid_bk[i][GH_BUCKET_HDR_WORDS + kid_bk[i][5]],
				t, __ATOMIC_RELEASE);
	}
}

/* Fork a child holding a list of n buckets shaped by shape at bucket at. */
static struct kid kid_start(uint64_t n, enum shape shape, uint64_t at)
{
	struct kid k;
	int fds[2];
	char c;

	assert_true(n <= MAX_KIDS);
	k.sh = mmap(NULL, SHM_BYTES, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(k.sh != MAP_FAILED);
	assert_int_equal(pipe(fds), 0);
	k.pid = fork();
	assert_true(k.pid >= 0);
	if (k.pid == 0) {
		/* A failed assertion skips kid_stop: die with the test. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
			_exit(3);
		close(fds[0]);
		kid_build(k.sh, n, shape, at);
		if (write(fds[1], "r", 1) != 1)
			_exit(3);
		if (shape == SHAPE_STAMPED)
			kid_stamp(n);
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	return k;
}

static void kid_stop(struct kid *k)
{
	kill(k->pid, SIGKILL);
	waitpid(k->pid, NULL, 0);
	munmap(k->sh, SHM_BYTES);
}

static struct read_req kid_req(const struct kid *k, uint64_t budget)
{
	struct read_req req = {
		.pid = k->pid,
		.mbuckets = k->sh->mbuckets,
		.nstk_max = NSTK_MAX,
		.rec_bytes = REC_BYTES,
		.max_buckets = budget,
	};

	memcpy(req.vars, k->sh->var_addr, sizeof(req.vars));
	return req;
}

/* The first n buckets of s are the child's first n, in order. */
static void check_buckets(const struct snapshot *s, const struct shared *sh,
			  uint64_t n)
{
	assert_true(s->nbuckets >= n);
	for (uint64_t i = 0; i < n; i++) {
		const struct bucket *b = &s->buckets[i];
		const struct kid_bucket *want = &sh->b[i];
		const uint64_t *w = &sh->words[want->off];

		assert_int_equal(b->addr, want->addr);
		assert_int_equal(b->size, want->hdr[4]);
		assert_int_equal(b->nstk, want->hdr[5]);
		assert_memory_equal(bucket__stack(s, b), w, b->nstk * 8);
		assert_memory_equal(b->rec, w + b->nstk, REC_BYTES);
	}
}

/* Both backends saw the same list, stopped at the same place, said why
 * the same way and read the same variables. */
static void check_same(const struct snapshot *a, const struct snapshot *b)
{
	assert_int_equal(a->nbuckets, b->nbuckets);
	for (size_t i = 0; i < a->nbuckets; i++) {
		const struct bucket *x = &a->buckets[i], *y = &b->buckets[i];

		assert_int_equal(x->addr, y->addr);
		assert_int_equal(x->size, y->size);
		assert_int_equal(x->nstk, y->nstk);
		assert_memory_equal(bucket__stack(a, x), bucket__stack(b, y),
				    x->nstk * 8);
		assert_memory_equal(x->rec, y->rec, sizeof(x->rec));
	}
	assert_int_equal(a->partial, b->partial);
	assert_string_equal(a->reason, b->reason);
	assert_memory_equal(a->vars, b->vars, sizeof(a->vars));
	assert_memory_equal(a->vars_end, b->vars_end, sizeof(a->vars_end));
	assert_int_equal(a->var_err, b->var_err);
	assert_int_equal(a->var_err_end, b->var_err_end);
}

/* Read the child with one backend; the read itself must succeed. */
static struct snapshot *read_with(const struct backend_ops *ops, void *state,
				  const struct read_req *req)
{
	struct snapshot *s = snapshot__new();
	struct read_job job = {.req = *req, .s = s};
	struct read_ctl ctl = {0};

	assert_non_null(s);
	ops->read(state, &job, 1, &ctl);
	if (job.rc)
		fail_msg("%s read failed (%d): %s", ops->name, job.err.code,
			 job.err.msg);
	return s;
}

/* Read the child with procmem, check the iterator agrees, return procmem's
 * snapshot. */
static struct snapshot *kid_read(struct fixture *f, const struct kid *k,
				 uint64_t budget)
{
	struct read_req req = kid_req(k, budget);
	struct snapshot *s = read_with(&backend_procmem, f->procmem, &req);
	struct snapshot *ref = read_with(&backend_iter, f->iter, &req);

	check_same(s, ref);
	snapshot__free(ref);
	return s;
}

static void assert_reason(const struct snapshot *s, const char *word,
			  uint64_t addr)
{
	char hex[32];

	assert_true(s->partial);
	if (!strstr(s->reason, word))
		fail_msg("reason \"%s\" lacks \"%s\"", s->reason, word);
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)addr);
	if (addr && !strstr(s->reason, hex))
		fail_msg("reason \"%s\" lacks %s", s->reason, hex);
}

/* The bytes the list takes in the iterator's ring buffer: with more than
 * RING_BYTES, a serial read (iter_reader__set_serial) must stop on a full
 * ring buffer and resume, so the long list is known to cross passes. */
static uint64_t ring_bytes(const struct shared *sh)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < sh->n; i++)
		n += 16 + sizeof(struct gh_ev_bucket) + sh->b[i].hdr[5] * 8 +
		     REC_BYTES;
	return n;
}

static void test_long_list(void **state)
{
	struct fixture *f = *state;
	struct kid k = kid_start(50000, SHAPE_PLAIN, 0);
	struct read_req req = kid_req(&k, UINT64_MAX);
	struct snapshot *s, *ref;

	assert_true(ring_bytes(k.sh) > 4 * RING_BYTES);
	/* Twice each: a backend that caches what it read before must still
	 * return the same snapshot. The iterator's first read walks and
	 * drains by turns, its second both at once. */
	iter_reader__set_serial(f->iter, true);
	ref = read_with(&backend_iter, f->iter, &req);
	iter_reader__set_serial(f->iter, false);
	s = ref;
	ref = read_with(&backend_iter, f->iter, &req);
	check_same(s, ref);
	snapshot__free(s);
	s = read_with(&backend_procmem, f->procmem, &req);
	snapshot__free(s);
	s = read_with(&backend_procmem, f->procmem, &req);
	if (s->partial)
		fail_msg("partial: %s", s->reason);
	assert_int_equal(s->nbuckets, k.sh->n);
	check_buckets(s, k.sh, k.sh->n);
	check_same(s, ref);
	printf("test_readers: %zu buckets, %zu stack words: procmem "
	       "%.1f ms (%.1f MiB copied), iter %.1f ms\n",
	       s->nbuckets, s->nwords, s->read_ms, s->read_bytes / 1048576.0,
	       ref->read_ms);
	snapshot__free(ref);
	snapshot__free(s);
	kid_stop(&k);
}

/* A repeated read of the same process with kept stacks copies only the
 * counters of the buckets it already has, and still gives every stack. */
static void test_keep_stacks(void **state)
{
	struct fixture *f = *state;
	struct kid k = kid_start(20000, SHAPE_PLAIN, 0);
	struct read_req req = kid_req(&k, UINT64_MAX);
	struct snapshot *s[2];
	struct known kept = {0};
	int i;

	req.known = &kept;
	for (i = 0; i < 2; i++) {
		s[i] = read_with(&backend_iter, f->iter, &req);
		assert_false(s[i]->partial);
		assert_int_equal(s[i]->nbuckets, k.sh->n);
		check_buckets(s[i], k.sh, k.sh->n);
	}
	printf("test_readers: kept stacks: first read %llu bytes, second "
	       "%llu\n",
	       (unsigned long long)s[0]->read_bytes,
	       (unsigned long long)s[1]->read_bytes);
	assert_true(s[1]->read_bytes * 2 < s[0]->read_bytes);
	for (i = 0; i < 2; i++)
		snapshot__free(s[i]);
	known__clear(&kept);
	kid_stop(&k);
}

/* Every bucket of a SHAPE_STAMPED child's snapshot is taken at a cycle
 * read after its bytes: never older than its stamp, never older than the
 * bucket before it, and the counter moved during the read (more than one
 * value). Returns how many values the buckets carry. */
static size_t check_stamped(const struct snapshot *s, const struct shared *sh,
			    const char *by)
{
	uint64_t last = s->vars[GH_VAR_CYCLE];
	size_t values = 0;

	if (s->partial)
		fail_msg("partial: %s", s->reason);
	assert_int_equal(s->nbuckets, sh->n);
	for (size_t i = 0; i < s->nbuckets; i++) {
		const struct bucket *b = &s->buckets[i];
		const uint64_t *w = &sh->words[sh->b[i].off];

		assert_int_equal(b->addr, sh->b[i].addr);
		assert_memory_equal(bucket__stack(s, b), w, b->nstk * 8);
		assert_memory_equal(&b->rec[1], w + b->nstk + 1, REC_BYTES - 8);
		if (!b->has_cycle)
			fail_msg("%s: bucket %zu of %zu: no cycle", by, i,
				 s->nbuckets);
		if (b->cycle_raw < b->rec[0])
			fail_msg("%s: bucket %zu: stamp %llu, cycle %llu", by,
				 i, (unsigned long long)b->rec[0],
				 (unsigned long long)b->cycle_raw);
		assert_true(b->cycle_raw >= last);
		values += !i || b->cycle_raw != last;
		last = b->cycle_raw;
	}
	assert_true(last <= s->vars_end[GH_VAR_CYCLE]);
	return values;
}

/* A child that moves its cycle on while it is read: each backend tells
 * which cycle each bucket was read in, fresh or with kept stacks (the BPF
 * walks' GH_EV_GC_CYCLE records, procmem's read after each block). perf
 * walks in the child's own thread, which runs here (it stamps), over
 * several events: the list's 14 MB do not fit its 8 MiB ring buffer. */
static void test_cycle_moves(void **state)
{
	struct fixture *f = *state;
	struct kid k = kid_start(20000, SHAPE_STAMPED, 0);
	struct read_req req = kid_req(&k, UINT64_MAX);
	const struct backend_ops *ops[] = {&backend_iter, &backend_iter,
					   &backend_perf, &backend_procmem};
	struct backend_env env = {0};
	struct gh_err err = {0};
	struct known kept = {0};
	struct snapshot *s;
	size_t values[4];
	void *perf;

	if (backend_perf.open(&perf, &env, &err))
		fail_msg("perf open: %s", err.msg);
	req.known = &kept;
	for (int i = 0; i < 4; i++) {
		s = read_with(ops[i],
			      ops[i] == &backend_perf	? perf
			      : ops[i] == &backend_iter ? f->iter
							: f->procmem,
			      &req);
		values[i] = check_stamped(s, k.sh, ops[i]->name);
		snapshot__free(s);
		/* Each backend's first read is fresh. */
		if (i != 0)
			known__clear(&kept);
	}
	backend_perf.free(perf);
	printf("test_readers: cycle values across one read: iter %zu, "
	       "iter (kept stacks) %zu, perf %zu, procmem %zu\n",
	       values[0], values[1], values[2], values[3]);
	for (int i = 0; i < 4; i++)
		assert_true(values[i] > 1);
	kid_stop(&k);
}

static void test_no_btf(void **state)
{
	struct iter_reader *r = NULL;
	struct backend_env env = {0};
	struct gh_err err = {0};

	(void)state;
	assert_int_equal(setenv("GOHEAP_SYSFS_BTF", "/nonexistent/vmlinux", 1),
			 0);
	assert_int_equal(iter_reader__open(&r, &env, &err), -1);
	unsetenv("GOHEAP_SYSFS_BTF");
	assert_null(r);
	assert_int_equal(err.code, GH_E_KERNEL);
}

static void test_cycle(void **state)
{
	struct kid k = kid_start(100, SHAPE_CYCLE, 10);
	struct snapshot *s = kid_read(*state, &k, UINT64_MAX);

	assert_int_equal(s->nbuckets, 100);
	check_buckets(s, k.sh, 100);
	assert_reason(s, "cyclic", k.sh->b[10].addr);
	snapshot__free(s);
	kid_stop(&k);
}

/* A cycle stops the kernel's walk itself (Brent's check), a few times the
 * list's length in: with no bucket budget to run into, a walk that relied
 * on userspace noticing would go round for millions of buckets. */
static void test_cycle_bounded(void **state)
{
	struct fixture *f = *state;
	struct kid k = kid_start(5, SHAPE_CYCLE, 0);
	struct read_req req = kid_req(&k, UINT64_MAX);
	struct snapshot *s = read_with(&backend_iter, f->iter, &req);
	uint64_t pass = 0;

	for (int i = 0; i < 5; i++)
		pass += GH_BUCKET_HDR_BYTES + k.sh->b[i].hdr[5] * 8 + REC_BYTES;
	print_message("5-bucket cycle: %llu bytes received (%llu a lap)\n",
		      (unsigned long long)s->read_bytes,
		      (unsigned long long)pass);
	assert_int_equal(s->nbuckets, 5);
	assert_reason(s, "cyclic", k.sh->b[0].addr);
	assert_true(s->read_bytes < 8 * pass);
	snapshot__free(s);
	kid_stop(&k);
}

/* A list whose first pass, a bucket per record, would fill the ring buffer
 * to the byte, END included: the kernel refuses a record that would fill
 * it exactly, and the walk once sent such a bucket, lost END and failed
 * the read. Runs now start only with a block's room to spare, so the pass
 * stops short of that; read serially, the ring buffer still fills and the
 * walk must resume. */
static void test_ring_fill(void **state)
{
	struct fixture *f = *state;
	uint64_t at = fill_at(), n = at + 100;
	struct kid k = kid_start(n, SHAPE_FILL, at);
	struct snapshot *s;

	iter_reader__set_serial(f->iter, true);
	s = kid_read(f, &k, UINT64_MAX);
	iter_reader__set_serial(f->iter, false);

	assert_true(fill_nstk(at) <= NSTK_MAX);
	assert_int_equal(RING_RECORD(sizeof(struct gh_ev_begin)) +
				 at * ring_bucket(FILL_NSTK) +
				 ring_bucket(fill_nstk(at)) +
				 RING_RECORD(sizeof(struct gh_ev_end)),
			 RING_BYTES);
	if (s->partial)
		fail_msg("partial: %s", s->reason);
	assert_int_equal(s->nbuckets, n);
	check_buckets(s, k.sh, n);
	snapshot__free(s);
	kid_stop(&k);
}

/* Two processes in one iterator batch, walked before anything is drained
 * (serial): the first, longer than the ring buffer, fills it, so the
 * second's walk begins without room for a bucket. That is no fault of the
 * second's: it must be resumed by the next pass, after the drain, and end
 * complete, not partial "does not fit the ring buffer" with no bucket (as
 * every process after a big one in a sweep once did). The iterator visits
 * tasks by PID, so the small list gets the higher PID. */
static void test_crowded_ring(void **state)
{
	struct fixture *f = *state;
	struct kid k[2];
	struct read_job jobs[2];
	struct read_ctl ctl = {0};
	const uint64_t n[2] = {50000, 300};

	k[0] = kid_start(n[0], SHAPE_PLAIN, 0);
	for (int tries = 0;; tries++) {
		k[1] = kid_start(n[1], SHAPE_PLAIN, 0);
		if (k[1].pid > k[0].pid)
			break;
		kid_stop(&k[1]);
		assert_true(tries < 10);
	}
	assert_true(ring_bytes(k[0].sh) > 2 * RING_BYTES);
	for (int i = 0; i < 2; i++) {
		jobs[i] = (struct read_job){.req = kid_req(&k[i], UINT64_MAX),
					    .s = snapshot__new()};
		assert_non_null(jobs[i].s);
	}
	iter_reader__set_serial(f->iter, true);
	backend_iter.read(f->iter, jobs, 2, &ctl);
	iter_reader__set_serial(f->iter, false);
	for (int i = 0; i < 2; i++) {
		if (jobs[i].rc)
			fail_msg("process %d: read failed (%d): %s", i,
				 jobs[i].err.code, jobs[i].err.msg);
		if (jobs[i].s->partial)
			fail_msg("process %d (%llu buckets): partial: %s", i,
				 (unsigned long long)n[i], jobs[i].s->reason);
		assert_int_equal(jobs[i].s->nbuckets, n[i]);
		check_buckets(jobs[i].s, k[i].sh, n[i]);
		snapshot__free(jobs[i].s);
		kid_stop(&k[i]);
	}
	assert_true(ctl.passes > 2);
}

/* Buckets packed back to back, as Go allocates them, leave the BPF walk in
 * runs of many per record; a run cut by a gap or by a bad bucket must
 * still give every bucket before it, in order. */
static void test_packed(void **state)
{
	uint64_t n = 40000, at = 30123;
	struct kid k = kid_start(n, SHAPE_PACKED, at);
	struct snapshot *s = kid_read(*state, &k, UINT64_MAX);

	assert_int_equal(s->nbuckets, at);
	check_buckets(s, k.sh, at);
	assert_reason(s, "not a heap-profile bucket", k.sh->b[at].addr);
	snapshot__free(s);
	kid_stop(&k);
}

static void test_deep_stack(void **state)
{
	struct kid k = kid_start(100, SHAPE_DEEP, 40);
	struct snapshot *s = kid_read(*state, &k, UINT64_MAX);

	assert_int_equal(s->nbuckets, 40);
	check_buckets(s, k.sh, 40);
	assert_reason(s, "nstk_max", k.sh->b[40].addr);
	snapshot__free(s);
	kid_stop(&k);
}

static void test_bad_type(void **state)
{
	struct kid k = kid_start(100, SHAPE_BAD_TYPE, 20);
	struct snapshot *s = kid_read(*state, &k, UINT64_MAX);

	assert_int_equal(s->nbuckets, 20);
	check_buckets(s, k.sh, 20);
	assert_reason(s, "not a heap-profile bucket", k.sh->b[20].addr);
	snapshot__free(s);
	kid_stop(&k);
}

static void test_unreadable_allnext(void **state)
{
	struct kid k = kid_start(100, SHAPE_FAULT, 60);
	struct snapshot *s = kid_read(*state, &k, UINT64_MAX);

	assert_int_equal(s->nbuckets, 61);
	check_buckets(s, k.sh, 61);
	assert_reason(s, "failed", k.sh->unmapped);
	snapshot__free(s);
	kid_stop(&k);
}

/* Buckets at both ends of a mapping whose 64 KiB block is mostly
 * unmapped: the block reads shrink to what is mapped and lose nothing. */
static void test_mapping_edges(void **state)
{
	struct kid k = kid_start(100, SHAPE_EDGES, 50);
	struct snapshot *s = kid_read(*state, &k, UINT64_MAX);

	assert_int_equal(k.sh->b[50].addr % BLOCK, PAGE);
	assert_int_equal((k.sh->b[51].addr + body_bytes(k.sh->b[51].hdr[5])) %
				 BLOCK,
			 4 * PAGE);
	if (s->partial)
		fail_msg("partial: %s", s->reason);
	assert_int_equal(s->nbuckets, 100);
	check_buckets(s, k.sh, 100);
	snapshot__free(s);
	kid_stop(&k);
}

/* A bucket whose header is readable but whose stack is not ends the walk
 * at that bucket, as an unreadable header does. */
static void test_body_past_mapping(void **state)
{
	struct kid k = kid_start(100, SHAPE_TAIL, 70);
	struct snapshot *s = kid_read(*state, &k, UINT64_MAX);

	assert_int_equal(s->nbuckets, 70);
	check_buckets(s, k.sh, 70);
	assert_reason(s, "failed", k.sh->b[70].addr);
	snapshot__free(s);
	kid_stop(&k);
}

static void test_misaligned(void **state)
{
	struct fixture *f = *state;
	struct kid k = kid_start(100, SHAPE_MISALIGN, 30);
	struct read_req req = kid_req(&k, UINT64_MAX);
	struct snapshot *s = read_with(&backend_procmem, f->procmem, &req);

	assert_int_equal(s->nbuckets, 31);
	check_buckets(s, k.sh, 31);
	assert_reason(s, "aligned", k.sh->b[31].addr + 4);
	snapshot__free(s);
	kid_stop(&k);
}

static void test_budget(void **state)
{
	struct kid k = kid_start(1000, SHAPE_PLAIN, 0);
	struct snapshot *s = kid_read(*state, &k, 300);

	assert_int_equal(s->nbuckets, 300);
	check_buckets(s, k.sh, 300);
	assert_reason(s, "budget of 300", 0);
	snapshot__free(s);

	/* A budget of exactly the list's length is enough. */
	s = kid_read(*state, &k, 1000);
	assert_false(s->partial);
	assert_int_equal(s->nbuckets, 1000);
	snapshot__free(s);
	kid_stop(&k);
}

static void test_vars(void **state)
{
	struct fixture *f = *state;
	struct kid k = kid_start(0, SHAPE_PLAIN, 0);
	struct read_req req = kid_req(&k, UINT64_MAX);
	struct snapshot *s, *ref;

	/* An empty list (mbuckets == NULL) is complete; an absent variable
	 * is not read; an unmapped one is reported, not fatal. */
	req.vars[GH_VAR_DISABLE] = 0;
	req.vars[GH_VAR_USEFMA] = k.sh->unmapped;
	s = read_with(&backend_procmem, f->procmem, &req);
	ref = read_with(&backend_iter, f->iter, &req);
	check_same(s, ref);
	assert_false(s->partial);
	assert_int_equal(s->nbuckets, 0);
	assert_int_equal(s->vars[GH_VAR_RATE], k.sh->var_raw[GH_VAR_RATE]);
	assert_int_equal(s->vars[GH_VAR_CYCLE], k.sh->var_raw[GH_VAR_CYCLE]);
	assert_int_equal(s->vars_end[GH_VAR_RATE], k.sh->var_raw[GH_VAR_RATE]);
	assert_int_equal(s->vars_end[GH_VAR_CYCLE],
			 k.sh->var_raw[GH_VAR_CYCLE]);
	assert_int_equal(s->var_err, 1u << GH_VAR_USEFMA);
	assert_int_equal(s->var_err_end, 1u << GH_VAR_USEFMA);
	snapshot__free(ref);
	snapshot__free(s);
	kid_stop(&k);
}

static void expect_gone(struct fixture *f, pid_t pid)
{
	struct read_req req = {
		.pid = pid,
		.mbuckets = 0x1000,
		.nstk_max = NSTK_MAX,
		.rec_bytes = REC_BYTES,
		.max_buckets = 100,
	};
	struct snapshot *s = snapshot__new();
	struct gh_err err = {0};

	assert_non_null(s);
	assert_int_equal(procmem_reader__read(f->procmem, &req, NULL, s, &err),
			 -1);
	assert_int_equal(err.code, GH_E_GONE);
	snapshot__free(s);
}

/* A reaped process and a zombie (no memory left) are both gone. */
static void test_dead_pid(void **state)
{
	pid_t pid = fork();
	siginfo_t info;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT), 0);
	expect_gone(*state, pid);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	expect_gone(*state, pid);
}

/* Run as nobody, with no capabilities: reading a root process is refused,
 * and said so. The exit status carries the error code. */
static void nobody_reads(const struct kid *k)
{
	struct read_req req = kid_req(k, UINT64_MAX);
	struct procmem_reader *r = NULL;
	struct snapshot *s = snapshot__new();
	struct gh_err err = {0};
	int rc;

	if (!s || setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		_exit(100);
	if (procmem_reader__open(&r, &err))
		_exit(101);
	rc = procmem_reader__read(r, &req, NULL, s, &err);
	if (!rc || !strstr(err.msg, "CAP_SYS_PTRACE"))
		_exit(102);
	procmem_reader__free(r);
	snapshot__free(s);
	_exit(err.code);
}

static void test_permission(void **state)
{
	struct kid k = kid_start(10, SHAPE_PLAIN, 0);
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		nobody_reads(&k);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), GH_E_PERM);
	kid_stop(&k);
}

static int setup(void **state)
{
	static struct fixture f;
	struct backend_env env = {0};
	struct gh_err err = {0};

	if (backend_procmem.open(&f.procmem, &env, &err) ||
	    backend_iter.open(&f.iter, &env, &err)) {
		fprintf(stderr, "test_readers: cannot open (%d): %s\n",
			err.code, err.msg);
		return -1;
	}
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (!f)
		return 0;
	backend_procmem.free(f->procmem);
	backend_iter.free(f->iter);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_list),
		cmocka_unit_test(test_keep_stacks),
		cmocka_unit_test(test_cycle_moves),
		cmocka_unit_test(test_crowded_ring),
		cmocka_unit_test(test_no_btf),
		cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_cycle_bounded),
		cmocka_unit_test(test_ring_fill),
		cmocka_unit_test(test_packed),
		cmocka_unit_test(test_deep_stack),
		cmocka_unit_test(test_bad_type),
		cmocka_unit_test(test_unreadable_allnext),
		cmocka_unit_test(test_mapping_edges),
		cmocka_unit_test(test_body_past_mapping),
		cmocka_unit_test(test_misaligned),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_vars),
		cmocka_unit_test(test_dead_pid),
		cmocka_unit_test(test_permission),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "test_readers: FAIL: this test loads BPF "
				"programs and drops privileges, and must run "
				"as root (CI does)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
