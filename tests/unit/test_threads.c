/* test_threads.c - the library's threading rule, under ThreadSanitizer
 * (make builds this test with -fsanitize=thread, and a report fails it):
 * one collector per thread, collectors used at once on different
 * processes, each building its profiles on its own pool; and within one
 * request, two processes of one binary built at once, sharing that
 * binary's symbol cache. Needs root (BPF). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "goheap.h"
#include "live.h"

#define ROUNDS 6

static const struct gh_write_opts formats[] = {
	{.sz = sizeof(struct gh_write_opts),
	 .format = GH_FORMAT_PPROF,
	 .index = GH_INUSE_SPACE,
	 .top_n = 0},
	{.sz = sizeof(struct gh_write_opts),
	 .format = GH_FORMAT_TOP,
	 .index = GH_INUSE_SPACE,
	 .top_n = 20},
	{.sz = sizeof(struct gh_write_opts),
	 .format = GH_FORMAT_JSON,
	 .index = GH_ALLOC_SPACE,
	 .top_n = 10},
};

struct worker {
	const int *pids;
	size_t npids;
	bool keep_stacks;
	int failures;
	char why[GH_ERR_MSG_MAX];
};

/* Take and write the workers' profiles ROUNDS times with a collector of
 * its own. */
static void *work(void *arg)
{
	struct worker *w = arg;
	struct gh_collector_opts co = {.sz = sizeof(struct gh_collector_opts),
				       .keep_stacks = w->keep_stacks};
	GH_OPTS(gh_select, sel, .pids = w->pids, .npids = w->npids);
	GH_OPTS(gh_request, rq, .select = &sel, .render = formats,
		.nrender = 3);
	struct gh_collector *c;
	struct gh_results *r;
	struct gh_err err;
	FILE *devnull = fopen("/dev/null", "w");

	if (!devnull || gh_collector__new(&co, &c, &err)) {
		w->failures++;
		return NULL;
	}
	for (int i = 0; i < ROUNDS; i++) {
		if (gh_collector__collect(c, &rq, &r, &err)) {
			snprintf(w->why, sizeof(w->why), "%s", err.msg);
			w->failures++;
			continue;
		}
		for (size_t k = 0; k < r->n; k++) {
			for (int f = 0; f < 3 && !r->v[k].err.code; f++)
				if (gh_profile__write(r->v[k].profile, devnull,
						      &formats[f], &err))
					r->v[k].err = err;
			if (r->v[k].err.code) {
				snprintf(w->why, sizeof(w->why), "%s",
					 r->v[k].err.msg);
				w->failures++;
			}
		}
		gh_results__free(r);
	}
	gh_collector__free(c);
	fclose(devnull);
	return NULL;
}

static void test_collectors_at_once(void **state)
{
	int pids[3];
	struct worker w[3] = {
		{&pids[0], 1, true, 0, ""},
		{&pids[1], 1, false, 0, ""},
		/* two processes of one binary: one symbol cache, two
		 * builder threads */
		{&pids[0], 2, false, 0, ""},
	};
	pthread_t t[3];

	(void)state;
	for (int i = 0; i < 3; i++)
		pids[i] = live_heapgen(i ? 4096 : 1);
	for (int i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 3; i++)
		live_stop(pids[i]);
	for (int i = 0; i < 3; i++)
		if (w[i].failures)
			fail_msg("worker %d: %d failures: %s", i, w[i].failures,
				 w[i].why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collectors_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
