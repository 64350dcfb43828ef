/* test_schedstats.c - user/goroutine/schedstats.c's reader from Go 1.26
 * on: the goroutines by state computed from the Ps, as 1.27's
 * schedStatsAggregate.compute (metrics.go) computes them, over a target's
 * memory laid out here with 1.27's offsets (rtcounters__for(27)): allp up
 * to its first dead or nil P, a running P's M in a system call only when
 * setBlockOnExitSyscall would say so, run queues and runnext, the global
 * run queue, nGsyscallNoP (not when negative, a race the runtime allows),
 * created counts; a run queue whose head never settles, and an allp that
 * is not a slice, refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/err.h"
#include "gobin/glayout.h"
#include "gobin/rtcounters.h"
#include "goroutine/schedstats.h"

/* runtime2.go's P statuses */
enum { P_IDLE = 0, P_RUNNING = 1, P_DEAD = 4 };

/* The target's memory: MEM_BYTES at BASE; reads elsewhere fail as a
 * process_vm_readv of an unmapped address does. The first `moves` reads
 * of moving (a run-queue head) each move it on by one, as a P taking
 * work would. */
#define BASE	  0x100000u
#define MEM_BYTES (1u << 20)
#define SCHED	  (BASE + 0x1000)
#define ALLP	  (BASE + 0x4000) /* the slice header */
#define ALLP_ARR  (BASE + 0x4100)
#define P_AT(k)	  (BASE + 0x10000 + (k)*0x10000)
#define M_AT(k)	  (BASE + 0xa0000 + (k)*0x1000)
#define G_AT(k)	  (BASE + 0xe0000 + (k)*0x1000)
#define G_STATUS  0x90 /* schedvars' g offsets: any inside the g */
#define G_M	  0x30

struct mem {
	uint8_t b[MEM_BYTES];
	uint64_t moving;
	unsigned moves;
};

static int mem_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	struct mem *m = ctx;
	uint32_t h;

	if (addr < BASE || addr - BASE > MEM_BYTES - n)
		return errno = EFAULT, -1;
	memcpy(dst, m->b + (addr - BASE), n);
	if (m->moves && addr == m->moving) {
		m->moves--;
		memcpy(&h, m->b + (addr - BASE), 4);
		h++;
		memcpy(m->b + (addr - BASE), &h, 4);
	}
	return 0;
}

static void put(struct mem *m, uint64_t addr, uint64_t v, size_t n)
{
	memcpy(m->b + (addr - BASE), &v, n); /* little-endian, as the host */
}

/* P k: status, created, its M's g (0: no M) in status gst, belonging to
 * M gm and that M to P mp (setBlockOnExitSyscall's two checks), and its
 * run queue: head, tail, runnext. */
struct pdesc {
	uint32_t status;
	uint64_t created;
	bool has_m;
	uint32_t gst;
	bool g_moved, m_moved;
	uint32_t head, tail;
	uint64_t next;
};

static void put_p(struct mem *m, const struct rtcounters *R, unsigned k,
		  const struct pdesc *d)
{
	uint64_t p = P_AT(k), mm = M_AT(k), g = G_AT(k);

	put(m, ALLP_ARR + 8 * k, p, 8);
	put(m, p + R->p_status, d->status, 4);
	put(m, p + R->p_created, d->created, 8);
	put(m, p + R->p_runqhead, d->head, 4);
	put(m, p + R->p_runqhead + 4, d->tail, 4);
	put(m, p + R->p_runnext, d->next, 8);
	if (!d->has_m)
		return;
	put(m, p + R->p_m, mm, 8);
	put(m, mm + R->m_curg, g, 8);
	put(m, g + G_STATUS, d->gst, 4);
	put(m, g + G_M, d->g_moved ? M_AT(k + 1) : mm, 8);
	put(m, mm + R->m_p, d->m_moved ? P_AT(k + 1) : p, 8);
}

static void put_sched(struct mem *m, const struct rtcounters *R,
		      uint64_t created, int32_t runq, int32_t nop,
		      uint64_t nallp)
{
	put(m, SCHED + R->sched_created, created, 8);
	put(m, SCHED + R->sched_runq_size, (uint32_t)runq, 4);
	put(m, SCHED + R->sched_nsyscall_nop, (uint32_t)nop, 4);
	put(m, ALLP, ALLP_ARR, 8);
	put(m, ALLP + 8, nallp, 8);
	put(m, ALLP + 16, nallp, 8);
}

static const struct schedvars vars = {.sched = SCHED,
				      .allp = ALLP,
				      .g_status = G_STATUS,
				      .g_m = G_M,
				      .max_goroutines = 1000000};

static const struct rtcounters *row27(void)
{
	struct gh_err err;
	const struct rtcounters *R = rtcounters__for(27, &err);

	assert_non_null(R);
	assert_true(R->p_status && R->p_m && R->m_curg && R->m_p);
	return R;
}

static int setup(void **state)
{
	*state = test_calloc(1, sizeof(struct mem));
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	test_free(*state);
	return 0;
}

static int read_stats(struct mem *m, const struct rtcounters *R, uint64_t total,
		      struct gh_runtime_stats *o)
{
	const struct gfetch f = {.read = mem_read, .ctx = m};

	memset(o, 0, sizeof(*o));
	return schedstats_read(R, &f, &vars, total, o);
}

/* Six Ps, the fifth dead: a running one in a system call (not in Go), a
 * running one in Go, an idle one with 4 queued and runnext, a running one
 * whose g left the M it was seen on and one whose M left its P (both
 * running, as setBlockOnExitSyscall's second look finds), the dead one,
 * and one past it, not counted. Global queue 2, 3 in system calls
 * without a P, 40 goroutines in all. */
static void test_ps(void **state)
{
	struct mem *m = *state;
	const struct rtcounters *R = row27();
	const struct pdesc ps[] = {
		{P_RUNNING, 10, true, GST_SYSCALL, false, false, 0, 0, 0},
		{P_RUNNING, 20, true, GST_RUNNING, false, false, 7, 7, 0},
		{P_IDLE, 30, false, 0, false, false, 5, 9, G_AT(9)},
		{P_RUNNING, 40, true, GST_SYSCALL | GST_SCAN, true, false, 0, 0,
		 0},
		{P_DEAD, 1000, true, GST_SYSCALL, false, false, 0, 50, 0},
	};
	struct gh_runtime_stats o;

	put_sched(m, R, 7, 2, 3, 7);
	for (unsigned k = 0; k < 5; k++)
		put_p(m, R, k, &ps[k]);
	/* the P after the dead one is never read: its M's g is a syscall */
	put_p(m, R, 5, &ps[0]);
	assert_int_equal(read_stats(m, R, 40, &o), 0);
	assert_int_equal(o.has & (GH_RT_GSTATES | GH_RT_GCREATED),
			 GH_RT_GSTATES | GH_RT_GCREATED);
	assert_int_equal(o.goroutines_created, 7 + 10 + 20 + 30 + 40);
	assert_int_equal(o.goroutines_running, 2);
	assert_int_equal(o.goroutines_not_in_go, 1 + 3);
	assert_int_equal(o.goroutines_runnable, 4 + 1 + 2);
	assert_int_equal(o.goroutines_waiting, 40 - (2 + 4 + 7));
}

/* A nil P ends allp as a dead one does; a _Gdeadextra g (an extra M's,
 * in cgo) is not in Go; an M whose P moved on is running; a negative
 * nGsyscallNoP is left out; waiting never goes below 0. */
static void test_nil_p(void **state)
{
	struct mem *m = *state;
	const struct rtcounters *R = row27();
	const struct pdesc ps[] = {
		{P_RUNNING, 1, true, GST_DEADEXTRA, false, false, 0, 0, 0},
		{P_RUNNING, 2, true, GST_SYSCALL, false, true, 0, 1, 0},
	};
	struct gh_runtime_stats o;

	put_sched(m, R, 0, 0, -2, 4);
	put_p(m, R, 0, &ps[0]);
	put_p(m, R, 1, &ps[1]);
	/* allp[2] stays nil; allp[3] would count if it were read */
	put_p(m, R, 3, &ps[0]);
	put(m, ALLP_ARR + 16, 0, 8);
	assert_int_equal(read_stats(m, R, 2, &o), 0);
	assert_int_equal(o.goroutines_created, 3);
	assert_int_equal(o.goroutines_not_in_go, 1);
	assert_int_equal(o.goroutines_running, 1);
	assert_int_equal(o.goroutines_runnable, 1);
	assert_int_equal(o.goroutines_waiting, 0);
}

/* A head that moves between the two reads of every try: the runtime's
 * loop would spin on; the reader gives up (EAGAIN) after its tries. One
 * that moves once is read on the next try. */
static void test_moving_head(void **state)
{
	struct mem *m = *state;
	const struct rtcounters *R = row27();
	const struct pdesc p = {P_IDLE, 0, false, 0, false, false, 3, 6, 0};
	struct gh_runtime_stats o;

	put_sched(m, R, 0, 0, 0, 1);
	put_p(m, R, 0, &p);
	m->moving = P_AT(0) + R->p_runqhead;
	m->moves = 1000;
	errno = 0;
	assert_int_equal(read_stats(m, R, 10, &o), -1);
	assert_int_equal(errno, EAGAIN);
	put_p(m, R, 0, &p);
	m->moves = 1; /* head 3 -> 4 after the first read of the first try */
	assert_int_equal(read_stats(m, R, 10, &o), 0);
	assert_int_equal(o.goroutines_runnable, 2);
	assert_int_equal(o.goroutines_waiting, 8);
}

/* allp whose length passes its capacity, or a length with no array:
 * not a slice (EFAULT); an unmapped P: the read's own error. */
static void test_bad_allp(void **state)
{
	struct mem *m = *state;
	const struct rtcounters *R = row27();
	struct gh_runtime_stats o;

	put_sched(m, R, 0, 0, 0, 2);
	put(m, ALLP + 16, 1, 8);
	errno = 0;
	assert_int_equal(read_stats(m, R, 1, &o), -1);
	assert_int_equal(errno, EFAULT);
	put_sched(m, R, 0, 0, 0, 2);
	put(m, ALLP, 0, 8);
	errno = 0;
	assert_int_equal(read_stats(m, R, 1, &o), -1);
	assert_int_equal(errno, EFAULT);
	put_sched(m, R, 0, 0, 0, 1);
	put(m, ALLP_ARR, 8, 8); /* a P at address 8 */
	errno = 0;
	assert_int_equal(read_stats(m, R, 1, &o), -1);
	assert_int_equal(errno, EFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nil_p, setup, teardown),
		cmocka_unit_test_setup_teardown(test_moving_head, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_allp, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
