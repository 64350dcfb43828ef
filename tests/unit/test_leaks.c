/* test_leaks.c - the series behind a watch's likely leaks (watch/
 * leaks.c), driven by hand-built profiles: a stack named only when it
 * grew at every step of the window (not at only some, not before the
 * series is full), samples of one stack added up, ties ranked by in-use
 * bytes then by site, old snapshots falling out of the window, the
 * memory bound with many stacks, a series gone with its process; and
 * the likely_leaks member of the JSON document a watch writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watch/leaks.h"
#include "watch/watchdir.h"

#define MAXS 5000

/* A profile of n one-frame stacks, stack i at PC 0x401000 + 16 i in
 * function "main.siteI"; inuse[i] bytes in use (0: no sample). dup adds
 * a second sample of stack 0 (another "bytes" label) holding 1 byte. */
struct fake {
	struct gh_profile p;
	struct gh_function fn[MAXS];
	char names[MAXS][16];
	struct gh_line ln[MAXS];
	struct gh_location loc[MAXS];
	uint32_t locs[MAXS];
	struct gh_sample smp[MAXS + 1];
};

static struct fake *fake(const int64_t *inuse, size_t n, bool dup)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->p.pid = 4242;
	f->p.runtime = f->p.nruntimes = 1;
	for (size_t i = 0; i < n; i++) {
		snprintf(f->names[i], sizeof(f->names[i]), "main.site%zu", i);
		f->fn[i] = (struct gh_function){f->names[i], "/src/main.go", 1};
		f->ln[i] = (struct gh_line){(uint32_t)i, 10 + (int64_t)i};
		f->loc[i] = (struct gh_location){0x401000 + 16 * i, 0, 1,
						 &f->ln[i]};
		f->locs[i] = (uint32_t)i;
		if (inuse[i])
			f->smp[f->p.nsamples++] = (struct gh_sample){
				.nlocs = 1,
				.locs = &f->locs[i],
				.value = {1, inuse[i], 1, inuse[i]}};
	}
	if (dup)
		f->smp[f->p.nsamples++] = (struct gh_sample){
			.nlocs = 1, .locs = &f->locs[0], .value = {1, 1, 1, 1}};
	f->p.samples = f->smp;
	f->p.locations = f->loc;
	f->p.nlocations = n;
	f->p.functions = f->fn;
	f->p.nfunctions = n;
	return f;
}

/* Add a snapshot of 4 stacks; rank it. */
static size_t step(struct leak_series **s, size_t window, int64_t a, int64_t b,
		   int64_t c, int64_t d, struct gh_leak *out)
{
	int64_t v[4] = {a, b, c, d};
	struct fake *f = fake(v, 4, false);
	size_t n;

	assert_int_equal(leaks_add(s, window, &f->p), 0);
	n = leaks_rank(*s, &f->p, out, GH_WATCH_LEAKS);
	free(f);
	return n;
}

/* site0 grows at every step, site1 at only some, site2 is steady,
 * site3 shrinks: site0 alone, once the series holds window + 1. */
static void test_every_step(void **state)
{
	struct leak_series *s = NULL;
	struct gh_leak l[GH_WATCH_LEAKS];

	(void)state;
	assert_int_equal(step(&s, 3, 100, 100, 500, 400, l), 0);
	assert_int_equal(step(&s, 3, 200, 200, 500, 300, l), 0);
	assert_int_equal(step(&s, 3, 300, 200, 500, 200, l), 0);
	assert_int_equal(step(&s, 3, 400, 300, 500, 100, l), 1);
	assert_string_equal(l[0].site, "main.site0");
	assert_string_equal(l[0].file, "/src/main.go");
	assert_int_equal(l[0].line, 10);
	assert_int_equal(l[0].inuse_bytes, 400);
	assert_int_equal(l[0].growth_bytes, 300);
	assert_int_equal(l[0].snapshots, 4);
	/* site1 grows on; its flat step falls out of the window */
	assert_int_equal(step(&s, 3, 500, 400, 500, 100, l), 1);
	assert_int_equal(step(&s, 3, 600, 500, 500, 100, l), 2);
	assert_string_equal(l[0].site, "main.site0");
	assert_string_equal(l[1].site, "main.site1");
	/* one flat step of site0 and it is out */
	assert_int_equal(step(&s, 3, 600, 600, 500, 100, l), 1);
	assert_string_equal(l[0].site, "main.site1");
	leaks_free(s);
}

/* A stack absent at first counts as holding nothing; samples of one
 * stack are added up. */
static void test_new_stack_and_labels(void **state)
{
	struct leak_series *s = NULL;
	struct gh_leak l[GH_WATCH_LEAKS];
	int64_t v[2] = {0, 50};
	struct fake *f;

	(void)state;
	for (int i = 0; i < 3; i++) {
		f = fake(v, 2, i > 0);
		assert_int_equal(leaks_add(&s, 2, &f->p), 0);
		if (i == 2)
			assert_int_equal(
				leaks_rank(s, &f->p, l, GH_WATCH_LEAKS), 1);
		free(f);
		v[0] += 10;
	}
	/* 0, 10 + 1, 20 + 1 */
	assert_string_equal(l[0].site, "main.site0");
	assert_int_equal(l[0].inuse_bytes, 21);
	assert_int_equal(l[0].growth_bytes, 21);
	leaks_free(s);
}

/* Equal growth: more in use first; equal both: by site. */
static void test_ties(void **state)
{
	struct leak_series *s = NULL;
	struct gh_leak l[GH_WATCH_LEAKS];

	(void)state;
	step(&s, 1, 100, 300, 100, 0, l);
	assert_int_equal(step(&s, 1, 200, 400, 200, 100, l), 4);
	assert_string_equal(l[0].site, "main.site1");
	assert_string_equal(l[1].site, "main.site0");
	assert_string_equal(l[2].site, "main.site2");
	assert_string_equal(l[3].site, "main.site3");
	leaks_free(s);
}

/* Many stacks: each snapshot keeps its 1024 largest, so the series stays
 * small, and a large leak among many small stacks is still found. */
static void test_memory_bound(void **state)
{
	static int64_t v[MAXS];
	struct leak_series *s = NULL;
	struct gh_leak l[GH_WATCH_LEAKS];
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < MAXS; i++)
		v[i] = 1000 + (int64_t)(i % 7);
	for (int k = 0; k < 10; k++) {
		struct fake *f = fake(v, MAXS, false);

		v[4321] += 1 << 20;
		assert_int_equal(leaks_add(&s, 3, &f->p), 0);
		n = leaks_rank(s, &f->p, l, GH_WATCH_LEAKS);
		free(f);
	}
	assert_int_equal(n, 1);
	assert_string_equal(l[0].site, "main.site4321");
	assert_int_equal(l[0].growth_bytes, 3 << 20);
	assert_true(leaks_bytes(s) <= 4096 + 4 * LEAKS_MAX_STACKS * 16);
	leaks_free(s);
}

/* A process gone takes its series along: a new one starts empty. */
static void test_eviction(void **state)
{
	struct leak_series *s = NULL;
	struct gh_leak l[GH_WATCH_LEAKS];

	(void)state;
	assert_int_equal(leaks_rank(NULL, NULL, l, GH_WATCH_LEAKS), 0);
	step(&s, 1, 100, 0, 0, 0, l);
	assert_int_equal(step(&s, 1, 200, 0, 0, 0, l), 1);
	assert_true(leaks_bytes(s) > 0);
	leaks_free(s);
	s = NULL;
	assert_int_equal(leaks_bytes(s), 0);
	assert_int_equal(step(&s, 1, 300, 0, 0, 0, l), 0);
	leaks_free(s);
}

/* The JSON document carries the leaks, most growth first. */
static void test_json(void **state)
{
	char dir[] = "/tmp/gh-leaks-XXXXXX", cmd[1024];
	int64_t v[1] = {4096};
	struct fake *f = fake(v, 1, false);
	struct gh_watch_event ev = {
		.pid = 4242,
		.runtime = 1,
		.trigger = GH_TRIGGER_EVERY,
		.fired = 1u << GH_TRIGGER_EVERY,
		.time_ns = 1000000000LL,
		.cgroup_limit = UINT64_MAX,
		.nleaks = 1,
		.leaks = {{"main.site0", "/src/main.go", 10, 4096, 3072, 4}}};
	struct watchdir *d;
	struct gh_err err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(watchdir__open(dir, 0, 0, &d, &err), 0);
	assert_int_equal(watchdir__add(d, &f->p, NULL, &ev, &err), 0);
	watchdir__free(d);
	free(f);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && python3 -c 'import json\n"
		 "l=json.loads(open(\"index.jsonl\").read())\n"
		 "assert \"likely_leaks\" not in l\n"
		 "k=json.load(open(l[\"json\"]))[\"likely_leaks\"]\n"
		 "assert k==[dict(site=\"main.site0\",file=\"/src/main.go\","
		 "line=10,inuse_bytes=4096,growth_bytes=3072,snapshots=4)], "
		 "k\n' && rm -r %s",
		 dir, dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_step),
		cmocka_unit_test(test_new_stack_and_labels),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_memory_bound),
		cmocka_unit_test(test_eviction),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
