/* test_read_oom.c - the OOM watcher's BPF side (oom/oomreader.c) against
 * live child processes holding a made-up bucket list: one OOM-killed in a
 * small v1 memory cgroup while its list's second bucket lives in a file
 * page dropped from its page tables (the walk in the victim's context
 * cannot fault it in and must say so), one of 16 threads OOM-killed with
 * a list 12 times the ring buffer (the walk waits for room, each thread
 * going on from the last one's cursor), one OOM-killed while
 * the watcher takes it for another process under its PID (not walked),
 * and one killed by a plain SIGKILL (no OOM: forgotten, no victim).
 * Then the same again as on a kernel whose oom:mark_victim passes only a
 * PID (this kernel's BTF, as the watcher reads it, says so: the program
 * on signal_deliver sends the kill's record itself).
 *
 * Needs root (BPF, cgroups); skipped without a v1 memory hierarchy.
 */
#include <pthread.h>
#include <sched.h>
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "btfcopy.h"
#include "fakelist.h"
#include "oom/oomreader.h"
#include "proc/proc.h"

#define LIMIT_BYTES (32u << 20)
#define CGROOT	    "/sys/fs/cgroup/memory"

static volatile uint64_t head;

/* Grow, every page written, until killed; volatile, or the compiler
 * drops memory nobody reads. */
static void grow(void)
{
	for (;;) {
		volatile char *p = malloc(1 << 20);

		for (size_t i = 0; p && i < (1 << 20); i += FAKE_PAGE)
			p[i] = 1;
	}
}

/* Run the calling thread on CPU cpu only (saving its CPUs in old); -1
 * when there is no such CPU. */
static int pin(int cpu, cpu_set_t *old)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (old && sched_getaffinity(0, sizeof(*old), old))
		return -1;
	return sched_setaffinity(0, sizeof(one), &one);
}

/* Threads a long list's child starts beside its own: each takes the
 * SIGKILL and walks on from the last one's cursor for up to its slice. */
#define THREADS 15

static void *blocked(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int start_threads(void)
{
	pthread_t t;

	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t, NULL, blocked, NULL))
			return -1;
	return 0;
}

/* A list of fakelist.h (n buckets packed, on CPU 0 with THREADS more
 * threads, or with n 0 the one with a dropped page); grows once told to
 * (go). */
static void child(int out, int go, size_t n)
{
	struct fake_layout l;
	char c;

	prctl(PR_SET_NAME, "gh_oom_child");
	if ((n && (pin(0, NULL) || start_threads())) ||
	    (n ? fake_long_list(&head, n, &l) : fake_dropped_list(&head, &l)) ||
	    write(out, &l, sizeof(l)) != sizeof(l) || read(go, &c, 1) != 1)
		_exit(3);
	grow();
}

struct kid {
	pid_t pid;
	size_t n; /* buckets of a long list, 0: the dropped page's */
	int go;	  /* a byte written here makes it grow */
	struct fake_layout l;
	struct procmaps maps;
	uint64_t start_ticks; /* when it started (/proc/PID/stat) */
	/* Added to start_ticks when it is watched: another process under
	 * its PID, as far as the watcher knows. */
	uint64_t other;
};

static void start(struct kid *k)
{
	int p[2], g[2];
	struct gh_err err;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(g), 0);
	k->pid = fork();
	assert_true(k->pid >= 0);
	if (!k->pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		close(g[1]);
		child(p[1], g[0], k->n);
	}
	close(p[1]);
	close(g[0]);
	assert_int_equal(read(p[0], &k->l, sizeof(k->l)), sizeof(k->l));
	close(p[0]);
	k->go = g[1];
	if (proc_maps(k->pid, &k->maps, &err) ||
	    proc_start_time(k->pid, &k->start_ticks, &err))
		fail_msg("/proc: %s", err.msg);
}

static void reap(struct kid *k)
{
	kill(k->pid, SIGKILL);
	waitpid(k->pid, NULL, 0);
	close(k->go);
	procmaps__free(&k->maps);
}

static struct read_req req_of(const struct kid *k)
{
	return (struct read_req){
		.pid = k->pid,
		.mbuckets = k->l.head_addr,
		.nstk_max = 32,
		.rec_bytes = FAKE_REC_BYTES,
		.max_buckets = 1u << 20,
	};
}

/* A reader (with a ring buffer of ring_bytes) watching a new child k,
 * into s. */
static struct oom_reader *watch(struct kid *k, struct snapshot *s,
				uint32_t ring_bytes)
{
	struct backend_env env = {0};
	struct oom_reader *r;
	struct read_req req;
	struct gh_err err;

	if (oom_reader__open(&r, 4, ring_bytes, &env, &err))
		fail_msg("open: %s", err.msg);
	start(k);
	req = req_of(k);
	if (oom_reader__add(r, &req, k->start_ticks + k->other, s, &k->maps,
			    &err))
		fail_msg("add: %s", err.msg);
	return r;
}

/* What the watcher handed over. */
struct seen {
	int victims, gone;
	struct oom_victim v;
};

static void on_victim(void *ctx, struct oom_victim *v)
{
	struct seen *s = ctx;

	s->victims++;
	s->v = *v;
}

static void on_gone(void *ctx, int pid)
{
	(void)pid;
	((struct seen *)ctx)->gone++;
}

/* Poll for up to 10 s until something is handed over. */
static void poll_until(struct oom_reader *r, struct seen *s)
{
	struct gh_err err;

	for (int i = 0; i < 100 && !s->victims && !s->gone; i++)
		if (oom_reader__poll(r, 100, on_victim, on_gone, s, &err))
			fail_msg("poll: %s", err.msg);
}

/* A v1 memory cgroup limited to LIMIT_BYTES, swap included. */
static int make_cgroup(char *dir, size_t size)
{
	char path[256];
	FILE *f;

	snprintf(dir, size, CGROOT "/gh-unit-oom-%d", (int)getpid());
	if (access(CGROOT "/memory.limit_in_bytes", F_OK) || mkdir(dir, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%u\n", LIMIT_BYTES);
	fclose(f);
	snprintf(path, sizeof(path), "%s/memory.memsw.limit_in_bytes", dir);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%u\n", LIMIT_BYTES);
		fclose(f);
	}
	return 0;
}

static void join(const char *dir, pid_t pid)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%d\n", (int)pid);
	assert_int_equal(fclose(f), 0);
}

/* One OOM kill of child k (its n and other set by the caller) in a
 * small memory cgroup, watched through a ring buffer of ring_bytes into
 * s: what was handed over. */
static struct seen oom_kill(struct kid *k, uint32_t ring_bytes,
			    struct snapshot *s)
{
	struct oom_reader *r;
	struct seen seen = {0};
	char dir[128];

	if (make_cgroup(dir, sizeof(dir)))
		skip();
	r = watch(k, s, ring_bytes);
	join(dir, k->pid);
	assert_int_equal(write(k->go, "g", 1), 1);
	poll_until(r, &seen);
	reap(k);
	rmdir(dir);
	oom_reader__free(r);
	return seen;
}

static void test_oom_not_resident(void **state)
{
	struct snapshot *s = snapshot__new();
	struct kid k = {0};
	struct seen seen = oom_kill(&k, 1u << 20, s);
	char hex[32];

	(void)state;
	assert_int_equal(seen.victims, 1);
	assert_int_equal(seen.v.pid, k.pid);
	assert_int_equal(seen.v.rc, 0);
	assert_string_equal(seen.v.ev.comm, "gh_oom_child");
	assert_int_equal(seen.v.ev.memcg_limit, LIMIT_BYTES / FAKE_PAGE);
	/* The first bucket was read, the second could not be. */
	assert_true(s->partial);
	assert_int_equal(s->nbuckets, 1);
	assert_int_equal(s->buckets[0].addr, k.l.b[0]);
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)k.l.b[1]);
	if (!strstr(s->reason, "not resident") || !strstr(s->reason, hex) ||
	    !strstr(s->reason, "OOM-killed"))
		fail_msg("reason \"%s\" does not name the page at %s",
			 s->reason, hex);
	snapshot__free(s);
}

/* 8000 buckets (1.6 MB) through a 128 KiB ring buffer: the walk in the
 * victim waits for the reader to make room, again and again, and ends
 * complete. The child runs on CPU 0, the test (the reader) on CPU 1. A
 * thread's walk holds CPU 0 with interrupts off, up to its 100 ms slice,
 * and anything on CPU 1 that calls CPU 0 and waits (a fork's TLB flush,
 * a BPF attach's text poke: seen spinning 95 ms) stalls CPU 1 until that
 * slice is over, the reader with it; the product promises nothing then
 * but the next thread's slice. A one-thread child was partial whenever
 * that happened; with 16 threads, a ring's worth (555 buckets) per
 * slice is enough, drained while CPU 0 is between two. */
static void test_oom_waits_for_room(void **state)
{
	struct snapshot *s = snapshot__new();
	struct kid k = {.n = 8000};
	struct seen seen;
	cpu_set_t cpus;

	(void)state;
	if (pin(1, &cpus))
		skip();
	seen = oom_kill(&k, 128u << 10, s);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	assert_int_equal(seen.victims, 1);
	assert_int_equal(seen.v.rc, 0);
	if (s->partial)
		fail_msg("partial: %s", s->reason);
	assert_int_equal(s->nbuckets, k.n);
	assert_int_equal(s->buckets[0].addr, k.l.b[0]);
	assert_int_equal(s->buckets[k.n - 1].addr, k.l.b[1]);
	snapshot__free(s);
}

/* The watched PID now names another process (its start time differs
 * from the watched one's): OOM-killed, it is not walked, and the watch
 * ends as for any exit. */
static void test_oom_other_process(void **state)
{
	struct snapshot *s = snapshot__new();
	struct kid k = {.other = 1};
	struct seen seen = oom_kill(&k, 1u << 20, s);

	(void)state;
	assert_int_equal(seen.victims, 0);
	assert_int_equal(seen.gone, 1);
	assert_int_equal(s->nbuckets, 0);
	snapshot__free(s);
}

static void test_plain_kill(void **state)
{
	struct snapshot *s = snapshot__new();
	struct oom_reader *r;
	struct seen seen = {0};
	struct gh_err err;
	struct kid k = {0};
	struct read_req req;

	(void)state;
	r = watch(&k, s, 1u << 20);
	req = req_of(&k);
	assert_int_equal(
		oom_reader__add(r, &req, k.start_ticks, s, &k.maps, &err), -1);
	assert_int_equal(err.code, GH_E_USAGE);
	kill(k.pid, SIGKILL);
	poll_until(r, &seen);
	assert_int_equal(seen.victims, 0);
	assert_int_equal(seen.gone, 1);
	assert_int_equal(s->nbuckets, 0);
	assert_int_equal(oom_reader__remove(r, k.pid), -1);
	reap(&k);
	oom_reader__free(r);
	snapshot__free(s);
}

static char pid_btf[] = "/tmp/gh-unit-oom-btf-XXXXXX";

/* GOHEAP_SYSFS_BTF: this kernel's BTF with mark_victim's (int pid). */
static int pid_form(void **state)
{
	int fd = mkstemp(pid_btf);

	(void)state;
	if (fd < 0)
		return -1;
	close(fd);
	if (btf_copy_mark_victim_pid(pid_btf))
		return -1;
	return setenv("GOHEAP_SYSFS_BTF", pid_btf, 1);
}

static int pid_form_end(void **state)
{
	(void)state;
	unsetenv("GOHEAP_SYSFS_BTF");
	return unlink(pid_btf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oom_not_resident),
		cmocka_unit_test(test_oom_waits_for_room),
		cmocka_unit_test(test_oom_other_process),
		cmocka_unit_test(test_plain_kill),
	};
	int failed = cmocka_run_group_tests_name("mark_victim(task, uid)",
						 tests, NULL, NULL);

	return failed + cmocka_run_group_tests_name("mark_victim(pid)", tests,
						    pid_form, pid_form_end);
}
