/* test_read_oom.c - the OOM watcher's BPF side (read/oomwatch.c) against
 * live child processes holding a made-up bucket list: one OOM-killed in a
 * small v1 memory cgroup while its list's second bucket lives in a file
 * page dropped from its page tables (the walk in the victim's context
 * cannot fault it in and must say so), and one killed by a plain SIGKILL
 * (no OOM: forgotten, no victim).
 *
 * Needs root (BPF, cgroups); skipped without a v1 memory hierarchy.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fakelist.h"
#include "proc/proc.h"
#include "read/oomwatch.h"

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

/* The list of fakelist.h; grows once told to (go). */
static void child(int out, int go)
{
	struct fake_layout l;
	char c;

	prctl(PR_SET_NAME, "gh_oom_child");
	if (fake_dropped_list(&head, &l) ||
	    write(out, &l, sizeof(l)) != sizeof(l) || read(go, &c, 1) != 1)
		_exit(3);
	grow();
}

struct kid {
	pid_t pid;
	int go; /* a byte written here makes it grow */
	struct fake_layout l;
	struct procmaps maps;
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
		child(p[1], g[0]);
	}
	close(p[1]);
	close(g[0]);
	assert_int_equal(read(p[0], &k->l, sizeof(k->l)), sizeof(k->l));
	close(p[0]);
	k->go = g[1];
	if (proc_maps(k->pid, &k->maps, &err))
		fail_msg("maps: %s", err.msg);
}

static void reap(struct kid *k)
{
	kill(k->pid, SIGKILL);
	waitpid(k->pid, NULL, 0);
	close(k->go);
	procmaps_free(&k->maps);
}

static struct read_req req_of(const struct kid *k)
{
	return (struct read_req){
		.pid = k->pid,
		.mbuckets = k->l.head_addr,
		.nstk_max = 32,
		.rec_bytes = FAKE_REC_BYTES,
		.max_buckets = 100,
	};
}

/* A reader watching a new child k, into s. */
static struct oom_reader *watch(struct kid *k, struct snapshot *s)
{
	struct backend_env env = {0};
	struct oom_reader *r;
	struct read_req req;
	struct gh_err err;

	if (oom_reader__open(&r, 4, &env, &err))
		fail_msg("open: %s", err.msg);
	start(k);
	req = req_of(k);
	if (oom_reader__add(r, &req, s, &k->maps, &err))
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

static void test_oom_not_resident(void **state)
{
	struct snapshot *s = snapshot__new();
	struct oom_reader *r;
	struct seen seen = {0};
	struct kid k;
	char dir[128], hex[32];

	(void)state;
	if (make_cgroup(dir, sizeof(dir)))
		skip();
	r = watch(&k, s);
	join(dir, k.pid);
	assert_int_equal(write(k.go, "g", 1), 1);
	poll_until(r, &seen);
	reap(&k);
	rmdir(dir);
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
	oom_reader__free(r);
	snapshot__free(s);
}

static void test_plain_kill(void **state)
{
	struct snapshot *s = snapshot__new();
	struct oom_reader *r;
	struct seen seen = {0};
	struct gh_err err;
	struct kid k;
	struct read_req req;

	(void)state;
	r = watch(&k, s);
	req = req_of(&k);
	assert_int_equal(oom_reader__add(r, &req, s, &k.maps, &err), -1);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oom_not_resident),
		cmocka_unit_test(test_plain_kill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
