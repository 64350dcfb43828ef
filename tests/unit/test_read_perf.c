/* test_read_perf.c - the perf-event backend against live child processes:
 * a list whose second bucket lives in a file page the child has just
 * dropped from its page tables (the perf walk runs where it cannot fault:
 * userspace reads the page in and it walks again, as the sleepable
 * iterator faults it in), one whose second bucket no read can bring in
 * (partial, saying so), and a child that never runs (the perf walk never
 * fires).
 *
 * Needs root (BPF).
 */
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

#include "fakelist.h"
#include "read/iter.h"
#include "read/perf.h"

static volatile uint64_t head;
static volatile uint64_t spin_count;

/* A list of fakelist.h (the one with an unreadable page, or the dropped
 * one), then run (or sleep) without touching it. */
static void child(int fd, bool run, bool unreadable)
{
	struct fake_layout l;

	if ((unreadable ? fake_unreadable_list(&head, &l)
			: fake_dropped_list(&head, &l)) ||
	    write(fd, &l, sizeof(l)) != sizeof(l))
		_exit(3);
	for (;;)
		if (run)
			spin_count++; /* on a CPU, never touching the page */
		else
			pause();
}

static pid_t start(bool run, bool unreadable, struct fake_layout *l)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		child(p[1], run, unreadable);
	}
	close(p[1]);
	assert_int_equal(read(p[0], l, sizeof(*l)), sizeof(*l));
	close(p[0]);
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static struct read_req req_of(pid_t pid, const struct fake_layout *l)
{
	return (struct read_req){
		.pid = pid,
		.mbuckets = l->head_addr,
		.nstk_max = 32,
		.rec_bytes = FAKE_REC_BYTES,
		.max_buckets = 100,
	};
}

/* perf over l's list in pid, into s. */
static void perf_read(pid_t pid, const struct fake_layout *l,
		      struct snapshot *s)
{
	struct read_req req = req_of(pid, l);
	struct backend_env env = {0};
	struct perf_reader *pr;
	struct gh_err err = {0};

	if (perf_reader__open(&pr, &env, &err))
		fail_msg("perf open: %s", err.msg);
	if (perf_reader__read(pr, &req, 2000, NULL, s, &err))
		fail_msg("perf read: %s", err.msg);
	perf_reader__free(pr);
}

static void test_read_in(void **state)
{
	struct fake_layout l;
	pid_t pid = start(true, false, &l);
	struct read_req req = req_of(pid, &l);
	struct iter_reader *ir;
	struct snapshot *s = snapshot__new();
	struct backend_env env = {0};
	struct read_ctl ctl = {0};
	struct read_job job;
	struct gh_err err = {0};

	(void)state;
	/* The page is read in between walks: the second walk reads both. */
	perf_read(pid, &l, s);
	assert_false(s->partial);
	assert_int_equal(s->nbuckets, 2);
	assert_int_equal(s->buckets[1].addr, l.b[1]);
	if (!strstr(s->note, "perf walked 2 times, reading in a page"))
		fail_msg("note \"%s\" does not say why", s->note);
	snapshot__free(s);

	stop(pid);

	/* The iterator faults it in itself (a child whose page is out). */
	pid = start(true, false, &l);
	req = req_of(pid, &l);
	s = snapshot__new();
	if (iter_reader__open(&ir, &env, &err))
		fail_msg("iter: %s", err.msg);
	job = (struct read_job){.req = req, .s = s};
	iter_reader__read_jobs(ir, &job, 1, &ctl);
	if (job.rc)
		fail_msg("iter: %s", job.err.msg);
	assert_false(s->partial);
	assert_int_equal(s->nbuckets, 2);
	assert_int_equal(s->buckets[1].addr, l.b[1]);
	assert_int_equal(s->buckets[1].size, 64);
	snapshot__free(s);
	iter_reader__free(ir);
	stop(pid);
}

static void test_stays_out(void **state)
{
	struct fake_layout l;
	pid_t pid = start(true, true, &l);
	struct snapshot *s = snapshot__new();
	char hex[32];

	(void)state;
	perf_read(pid, &l, s);
	/* The first bucket was read, the second could not be. */
	assert_true(s->partial);
	assert_int_equal(s->nbuckets, 1);
	assert_int_equal(s->buckets[0].addr, l.b[0]);
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)l.b[1]);
	if (!strstr(s->reason, "not resident") || !strstr(s->reason, hex))
		fail_msg("reason \"%s\" does not name the bucket at %s",
			 s->reason, hex);
	snapshot__free(s);
	stop(pid);
}

static void test_never_runs(void **state)
{
	struct fake_layout l;
	pid_t pid = start(false, false, &l);
	struct read_req req = req_of(pid, &l);
	struct perf_reader *pr;
	struct snapshot *s = snapshot__new();
	struct backend_env env = {0};
	struct gh_err err = {0};

	(void)state;
	if (perf_reader__open(&pr, &env, &err))
		fail_msg("perf open: %s", err.msg);
	assert_int_equal(perf_reader__read(pr, &req, 500, NULL, s, &err), -1);
	assert_int_equal(err.code, GH_E_TIMEOUT);
	if (!strstr(err.msg, "did not run") || !strstr(err.msg, "iter backend"))
		fail_msg("message \"%s\" names no cause or fix", err.msg);
	snapshot__free(s);
	perf_reader__free(pr);
	stop(pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_in),
		cmocka_unit_test(test_stays_out),
		cmocka_unit_test(test_never_runs),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "test_read_perf: needs root to load BPF "
				"programs; run as root (CI does)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
