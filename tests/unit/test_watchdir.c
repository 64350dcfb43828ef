/* test_watchdir.c - the directory a watch writes (user/watch/watchdir.c):
 * the retention bound, and the files read back by go tool pprof (comments,
 * top function) and python's json module: kept files only, the at-peak
 * pair replaced in place, index.jsonl naming exactly what is there, an
 * OOM snapshot's context among them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watch/watchdir.h"

#define MiB (1ULL << 20)

static void test_retention(void **state)
{
	const uint64_t four[] = {10, 10, 10, 10};

	(void)state;
	assert_int_equal(watchdir_excess(four, 4, 3, 0), 1);
	assert_int_equal(watchdir_excess(four, 4, 0, 25), 2);
	assert_int_equal(watchdir_excess(four, 4, 0, 5), 3); /* newest kept */
	assert_int_equal(watchdir_excess(four, 4, 1, 100), 3);
	assert_int_equal(watchdir_excess(four, 4, 0, 0), 0);
	assert_int_equal(watchdir_excess(four, 0, 1, 1), 0);
}

/* ---- the directory ---- */

static struct gh_function fn = {"main.growSite", "/src/main.go", 20};
static struct gh_line ln = {0, 25};
static struct gh_location loc = {0x401000, 0, 1, &ln};
static uint32_t locs[] = {0};

static void fake_profile(struct gh_profile *p, int64_t inuse)
{
	static struct gh_sample smp;

	memset(p, 0, sizeof(*p));
	p->pid = 4242;
	snprintf(p->comm, sizeof(p->comm), "grow er");
	p->runtime = p->nruntimes = 1;
	p->period = 4096;
	smp = (struct gh_sample){
		.nlocs = 1, .locs = locs, .value = {1, inuse, 1, inuse}};
	p->samples = &smp;
	p->nsamples = 1;
	p->locations = &loc;
	p->nlocations = 1;
	p->functions = &fn;
	p->nfunctions = 1;
	p->total[GH_INUSE_SPACE] = inuse;
}

/* Files in dir ending in suffix. */
static int count(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), k = strlen(suffix);

		n += l > k && !strcmp(e->d_name + l - k, suffix);
	}
	closedir(d);
	return n;
}

static int sh(const char *fmt, const char *dir)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, dir, dir, dir);
	return system(cmd);
}

static void add(struct watchdir *d, enum gh_trigger t, int64_t ns,
		int64_t inuse)
{
	struct gh_watch_event ev = {.pid = 4242,
				    .runtime = 1,
				    .trigger = t,
				    .fired = 1u << t,
				    .time_ns = ns,
				    .rss = 5 * MiB,
				    .cgroup_limit = UINT64_MAX,
				    .inuse_space = inuse};
	struct gh_profile p;
	struct gh_err err;

	fake_profile(&p, inuse);
	snprintf(ev.reason, sizeof(ev.reason), "test %lld", (long long)ns);
	assert_int_equal(watchdir__add(d, &p, NULL, &ev, &err), 0);
}

static void test_directory(void **state)
{
	char dir[] = "/tmp/gh-watchdir-XXXXXX";
	struct watchdir *d;
	struct gh_err err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(watchdir__open(dir, 2, 0, &d, &err), 0);
	for (int i = 1; i <= 5; i++)
		add(d, GH_TRIGGER_EVERY, i * 1000000000LL, i * 4096);
	add(d, GH_TRIGGER_PEAK, 6000000000LL, 1 << 20);
	add(d, GH_TRIGGER_PEAK, 7000000000LL, 2 << 20);
	watchdir__free(d);
	/* 2 kept + the peak; the index names exactly those, all there */
	assert_int_equal(count(dir, ".pb.gz"), 3);
	assert_int_equal(count(dir, ".json"), 3);
	assert_int_equal(
		sh("cd %s && python3 -c 'import json,os\n"
		   "ls=[json.loads(l) for l in open(\"index.jsonl\")]\n"
		   "assert len(ls)==3, ls\n"
		   "assert [l[\"trigger\"] for l in ls]==[\"every\",\"every\","
		   "\"at-peak\"], ls\n"
		   "assert ls[2][\"inuse_space\"]==2<<20\n"
		   "assert sorted(n for l in ls for n in "
		   "(l[\"pprof\"],l[\"json\"]))"
		   "==sorted(f for f in os.listdir(\".\") if "
		   "f!=\"index.jsonl\")\n"
		   "for l in ls:\n"
		   " d=json.load(open(l[\"json\"]))\n"
		   " assert d[\"trigger\"]==l[\"trigger\"] and "
		   "d[\"profile\"][\"pid\"]==4242\n'",
		   dir),
		0);
	/* Go's reader: the comments, and the top function */
	assert_int_equal(
		sh("cd %s && go tool pprof -comments grow_er-4242-peak.pb.gz "
		   "2>/dev/null "
		   "| grep -qx 'trigger: at-peak' && go tool pprof -top "
		   "grow_er-4242-peak.pb.gz 2>/dev/null | grep -q "
		   "'2MB.*main.growSite'",
		   dir),
		0);
	assert_int_equal(sh("rm -r %s", dir), 0);
}

/* An OOM victim's snapshot: its process gone (RSS and PSS null), the
 * kill's context in the JSON and as pprof comments. */
static void test_oom_snapshot(void **state)
{
	char dir[] = "/tmp/gh-watchoom-XXXXXX";
	struct gh_watch_event ev = {.pid = 4242,
				    .runtime = 1,
				    .trigger = GH_TRIGGER_OOM,
				    .fired = 1u << GH_TRIGGER_OOM,
				    .time_ns = 1000000000LL,
				    .cgroup_usage = 96 * MiB,
				    .cgroup_limit = 96 * MiB,
				    .oom = {.pid = 4242,
					    .comm = "grow er",
					    .cgroup = "/app",
					    .memcg_usage_bytes = 96 * MiB,
					    .memcg_limit_bytes = 96 * MiB,
					    .total_vm_bytes = 1 << 30,
					    .oom_score_adj = 200}};
	struct watchdir *d;
	struct gh_profile p;
	struct gh_err err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(watchdir__open(dir, 2, 0, &d, &err), 0);
	fake_profile(&p, 1 << 20);
	snprintf(ev.reason, sizeof(ev.reason), "OOM-killed");
	assert_int_equal(watchdir__add(d, &p, NULL, &ev, &err), 0);
	watchdir__free(d);
	assert_int_equal(
		sh("cd %s && python3 -c 'import json\n"
		   "l=json.loads(open(\"index.jsonl\").read())\n"
		   "assert l[\"trigger\"]==\"oom\" and "
		   "l[\"fired\"]==[\"oom\"]\n"
		   "assert l[\"rss\"] is None and l[\"pss\"] is None\n"
		   "o=json.load(open(l[\"json\"]))[\"oom\"]\n"
		   "assert o==dict(comm=\"grow er\",cgroup=\"/app\","
		   "memcg_usage=96<<20,memcg_limit=96<<20,total_vm=1<<30,"
		   "oom_score_adj=200,uid=0,early_kills=0), o\n'"
		   " && go tool pprof -comments *-oom.pb.gz 2>/dev/null | grep "
		   "-qx "
		   "'oom: comm grow er total_vm 1073741824 oom_score_adj 200 "
		   "uid 0'",
		   dir),
		0);
	assert_int_equal(sh("rm -r %s", dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_retention),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_oom_snapshot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
