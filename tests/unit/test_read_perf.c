/* test_read_perf.c - the perf-event backend against live child processes:
 * a list whose second bucket lives in a file page the child has just
 * dropped from its page tables (the perf walk runs where it cannot fault
 * and must say so, while the sleepable iterator faults the page back in),
 * and a child that never runs (the perf walk never fires).
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

/* The list of fakelist.h, then run (or sleep) without touching it. */
static void child(int fd, bool run)
{
	struct fake_layout l;

	if (fake_dropped_list(&head, &l) ||
	    write(fd, &l, sizeof(l)) != sizeof(l))
		_exit(3);
	for (;;)
		if (run)
			spin_count++; /* on a CPU, never touching the page */
		else
			pause();
}

static pid_t start(bool run, struct fake_layout *l)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		child(p[1], run);
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

static void test_not_resident(void **state)
{
	struct fake_layout l;
	pid_t pid = start(true, &l);
	struct read_req req = req_of(pid, &l);
	struct perf_reader *pr;
	struct iter_reader *ir;
	struct snapshot *s = snapshot__new();
	struct backend_env env = {0};
	struct read_ctl ctl = {0};
	struct read_job job;
	struct gh_err err = {0};
	char hex[32];

	(void)state;
	if (perf_reader__open(&pr, &env, &err))
		fail_msg("perf open: %s", err.msg);
	if (perf_reader__read(pr, &req, 2000, NULL, s, &err))
		fail_msg("perf read: %s", err.msg);
	/* The first bucket was read, the second could not be. */
	assert_true(s->partial);
	assert_int_equal(s->nbuckets, 1);
	assert_int_equal(s->buckets[0].addr, l.b[0]);
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)l.b[1]);
	if (!strstr(s->reason, "not resident") || !strstr(s->reason, hex))
		fail_msg("reason \"%s\" does not name the page at %s",
			 s->reason, hex);
	snapshot__free(s);
	perf_reader__free(pr);

	/* The iterator may fault: it reads both. */
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

static void test_never_runs(void **state)
{
	struct fake_layout l;
	pid_t pid = start(false, &l);
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
		cmocka_unit_test(test_not_resident),
		cmocka_unit_test(test_never_runs),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "test_read_perf: needs root to load BPF "
				"programs; run as root (CI does)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
