/* test_collector.c - the public collector API on live Go programs
 * (tests/unit/fixtures/targets.sh): many processes in one iterator pass
 * from one BPF load; the binary cache (one parse for twenty processes of
 * one binary, a negative entry for a program that is not Go); PIDs as a
 * sweep's filter (programs that are not Go left out); a profile
 * built for formats (the legacy text among them) written twice, byte for
 * byte the same, and the refusal of a format it was not built for; the
 * delta of two reads of an idle program, and of two programs refused; a
 * deadline that expires in the middle of a walk; kept stacks of two
 * processes read in turn, and the results' cache counters. Needs root
 * (BPF). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "goheap.h"
#include "live.h"

static struct gh_collector *new_collector(bool keep_stacks)
{
	struct gh_collector_opts o = {.sz = sizeof(struct gh_collector_opts),
				      .keep_stacks = keep_stacks};
	struct gh_collector *c;
	struct gh_err err;

	if (gh_collector__new(&o, &c, &err))
		fail_msg("collector: %s", err.msg);
	return c;
}

static struct gh_results *collect(struct gh_collector *c, struct gh_request *rq,
				  const int *pids, size_t n)
{
	GH_OPTS(gh_select, sel, .pids = pids, .npids = n);
	struct gh_results *r;
	struct gh_err err;

	rq->select = &sel;
	if (gh_collector__collect(c, rq, &r, &err))
		fail_msg("collect: %s", err.msg);
	assert_int_equal(r->n, n);
	return r;
}

static void assert_ok(const struct gh_result *r)
{
	if (r->err.code != GH_OK)
		fail_msg("process %d: status %d: %s", r->pid, r->err.code,
			 r->err.msg);
}

/* Three processes, one request: one BPF load, one iterator pass, one
 * parse of their binary; a second request loads and parses nothing, and
 * finds the binary in the cache for each. Nothing kept without
 * keep_stacks. */
static void test_one_pass(void **state)
{
	struct gh_request rq = {.sz = sizeof(struct gh_request)};
	struct gh_collector *c = new_collector(false);
	struct gh_results *r;
	int pids[3];

	(void)state;
	for (int i = 0; i < 3; i++)
		pids[i] = live_heapgen(4096);
	r = collect(c, &rq, pids, 3);
	for (int i = 0; i < 3; i++) {
		assert_ok(&r->v[i]);
		assert_int_equal(r->v[i].pid, pids[i]);
		assert_true(r->v[i].profile->nbuckets > 0);
	}
	assert_int_equal(r->bpf_loads, 1);
	assert_int_equal(r->iter_passes, 1);
	assert_int_equal(r->binaries_parsed, 1);
	assert_int_equal(r->binaries_cached, 2);
	assert_int_equal(r->kept_bytes, 0);
	gh_results__free(r);
	r = collect(c, &rq, pids, 3);
	assert_int_equal(r->bpf_loads, 0);
	assert_int_equal(r->binaries_parsed, 0);
	assert_int_equal(r->binaries_cached, 3);
	gh_results__free(r);
	gh_collector__free(c);
	for (int i = 0; i < 3; i++)
		live_stop(pids[i]);
}

/* Twenty processes of one binary: one parse. A program that is not Go:
 * refused, and the second time from the cache's negative entry. */
static void test_binary_cache(void **state)
{
	struct gh_request rq = {.sz = sizeof(struct gh_request)};
	struct gh_collector *c = new_collector(false);
	struct gh_results *r;
	int pids[20], other;
	unsigned parsed;

	(void)state;
	for (int i = 0; i < 20; i++)
		pids[i] = live_heapgen(4096);
	r = collect(c, &rq, pids, 20);
	for (int i = 0; i < 20; i++)
		assert_ok(&r->v[i]);
	print_message("20 processes of one binary: %u binaries parsed\n",
		      r->binaries_parsed);
	assert_int_equal(r->binaries_parsed, 1);
	assert_int_equal(r->binaries_cached, 19);
	gh_results__free(r);

	other = live_sleeper();
	r = collect(c, &rq, &other, 1);
	assert_int_equal(r->v[0].err.code, GH_E_NOTGO);
	assert_true(r->binaries_parsed > 0);
	parsed = r->binaries_parsed;
	gh_results__free(r);
	r = collect(c, &rq, &other, 1);
	assert_int_equal(r->v[0].err.code, GH_E_NOTGO);
	assert_int_equal(r->binaries_parsed, 0);
	/* each of its files, from its negative entry */
	assert_int_equal(r->binaries_cached, parsed);
	gh_results__free(r);
	live_stop(other);
	gh_collector__free(c);
	for (int i = 0; i < 20; i++)
		live_stop(pids[i]);
}

/* PIDs as a sweep's filter (pids_filter): a program that is not Go, a
 * PID named twice and one no process has are left out, as from an
 * enumeration; the Go programs come in PID order, each once. */
static void test_pids_filter(void **state)
{
	int go[2], pids[5];
	GH_OPTS(gh_select, sel, .pids = pids, .npids = 5, .pids_filter = true);
	GH_OPTS(gh_request, rq, .select = &sel);
	struct gh_collector *c = new_collector(false);
	struct gh_results *r;
	struct gh_err err;

	(void)state;
	go[0] = live_heapgen(4096);
	go[1] = live_heapgen(4096);
	pids[0] = go[1];
	pids[1] = live_sleeper();
	pids[2] = go[0];
	pids[3] = go[1];
	pids[4] = 0x7ffffff0; /* above pid_max: no such process */
	if (gh_collector__collect(c, &rq, &r, &err))
		fail_msg("collect: %s", err.msg);
	assert_int_equal(r->n, 2);
	assert_int_equal(r->v[0].pid, go[0] < go[1] ? go[0] : go[1]);
	assert_int_equal(r->v[1].pid, go[0] < go[1] ? go[1] : go[0]);
	assert_ok(&r->v[0]);
	assert_ok(&r->v[1]);
	assert_int_equal(r->examined, 4);
	assert_int_equal(r->not_go, 1);
	gh_results__free(r);
	gh_collector__free(c);
	live_stop(pids[1]);
	live_stop(go[0]);
	live_stop(go[1]);
}

/* p written as o, into memory. */
static char *written(const struct gh_profile *p, const struct gh_write_opts *o,
		     size_t *len, struct gh_err *err)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int rc;

	assert_non_null(f);
	rc = gh_profile__write(p, f, o, err);
	assert_int_equal(fclose(f), 0);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void assert_twice_same(const struct gh_profile *p,
			      const struct gh_write_opts *o)
{
	struct gh_err err;
	size_t n1, n2;
	char *a = written(p, o, &n1, &err), *b;

	if (!a)
		fail_msg("%s: %s", gh_format__name(o->format), err.msg);
	b = written(p, o, &n2, &err);
	assert_non_null(b);
	assert_true(n1 > 0);
	assert_int_equal(n1, n2);
	assert_memory_equal(a, b, n1);
	free(a);
	free(b);
}

/* Built for four formats as the samples arrive: each written twice gives
 * the same bytes; a format it was not built for is refused; a profile
 * whose samples were kept writes any but legacy. */
static void test_written_twice(void **state)
{
	const struct gh_write_opts fmts[] = {
		{.sz = sizeof(struct gh_write_opts),
		 .format = GH_FORMAT_PPROF,
		 .index = GH_INUSE_SPACE,
		 .top_n = 0},
		{.sz = sizeof(struct gh_write_opts),
		 .format = GH_FORMAT_JSON,
		 .index = GH_INUSE_SPACE,
		 .top_n = 0},
		{.sz = sizeof(struct gh_write_opts),
		 .format = GH_FORMAT_TOP,
		 .index = GH_ALLOC_SPACE,
		 .top_n = 20},
		{.sz = sizeof(struct gh_write_opts),
		 .format = GH_FORMAT_LEGACY},
	};
	const struct gh_write_opts other = {.sz = sizeof(struct gh_write_opts),
					    .format = GH_FORMAT_JSON,
					    .index = GH_ALLOC_OBJECTS,
					    .top_n = 5};
	struct gh_request rq = {
		.sz = sizeof(struct gh_request), .render = fmts, .nrender = 4};
	struct gh_collector *c = new_collector(false);
	struct gh_results *r;
	struct gh_err err;
	size_t n;
	int pid = live_heapgen(1);

	(void)state;
	r = collect(c, &rq, &pid, 1);
	assert_ok(&r->v[0]);
	assert_int_equal(r->v[0].profile->nsamples, 0);
	for (int i = 0; i < 4; i++)
		assert_twice_same(r->v[0].profile, &fmts[i]);
	assert_null(written(r->v[0].profile, &other, &n, &err));
	assert_int_equal(err.code, GH_E_USAGE);
	gh_results__free(r);

	rq = (struct gh_request){.sz = sizeof(struct gh_request),
				 .keep_samples = true};
	r = collect(c, &rq, &pid, 1);
	assert_ok(&r->v[0]);
	assert_true(r->v[0].profile->nsamples > 0);
	for (int i = 0; i < 3; i++)
		assert_twice_same(r->v[0].profile, &fmts[i]);
	assert_twice_same(r->v[0].profile, &other);
	assert_null(written(r->v[0].profile, &fmts[3], &n, &err));
	assert_int_equal(err.code, GH_E_USAGE);
	gh_results__free(r);
	gh_collector__free(c);
	live_stop(pid);
}

/* The delta of two profiles of an idle program, taken a while apart:
 * nothing allocated between them, so no sample, and the time between
 * them as its duration; one of another process refused. */
static void test_delta_idle(void **state)
{
	struct gh_request rq = {.sz = sizeof(struct gh_request),
				.keep_samples = true};
	struct gh_collector *c = new_collector(false);
	struct gh_results *r[3];
	struct gh_profile *d;
	struct gh_err err;
	int pid[2] = {live_heapgen(4096), live_heapgen(4096)};

	(void)state;
	r[0] = collect(c, &rq, &pid[0], 1);
	usleep(20000);
	r[1] = collect(c, &rq, &pid[0], 1);
	r[2] = collect(c, &rq, &pid[1], 1);
	for (int i = 0; i < 3; i++)
		assert_ok(&r[i]->v[0]);
	if (gh_profile__delta(r[0]->v[0].profile, r[1]->v[0].profile, &d, &err))
		fail_msg("delta: %s", err.msg);
	assert_int_equal(d->nsamples, 0);
	assert_int_equal(d->pid, pid[0]);
	assert_true(d->duration_ns >= 20000000);
	assert_int_equal(d->duration_ns, r[1]->v[0].profile->time_ns -
						 r[0]->v[0].profile->time_ns);
	gh_profile__free(d);
	assert_int_equal(gh_profile__delta(r[0]->v[0].profile,
					   r[2]->v[0].profile, &d, &err),
			 -1);
	assert_int_equal(err.code, GH_E_USAGE);
	for (int i = 0; i < 3; i++)
		gh_results__free(r[i]);
	gh_collector__free(c);
	live_stop(pid[0]);
	live_stop(pid[1]);
}

/* A deadline that passes while the kernel walks a long list: the snapshot
 * ends partial, saying so. The collector is warm (BPF loaded, binary
 * parsed), so the deadline is spent on the walk: a third of a full one. */
static void test_deadline(void **state)
{
	struct gh_request rq = {.sz = sizeof(struct gh_request),
				.count_only = true};
	struct gh_collector *c = new_collector(false);
	struct gh_results *r;
	size_t full;
	double walk;
	int pid = live_benchgen(300000), try;

	(void)state;
	r = collect(c, &rq, &pid, 1);
	assert_ok(&r->v[0]);
	full = r->v[0].profile->nbuckets;
	gh_results__free(r);
	r = collect(c, &rq, &pid, 1);
	walk = r->v[0].profile->duration_ms;
	rq.timeout_ms = (uint64_t)(r->open_ms + walk / 3) + 1;
	gh_results__free(r);
	print_message("full walk: %zu buckets in %.1f ms; deadline %llu ms\n",
		      full, walk, (unsigned long long)rq.timeout_ms);
	for (try = 0; try < 5; try++) {
		r = collect(c, &rq, &pid, 1);
		if (r->v[0].err.code == GH_E_PARTIAL)
			break;
		gh_results__free(r);
		r = NULL;
	}
	if (!r)
		fail_msg("no read of %zu buckets ended at a %llu ms deadline",
			 full, (unsigned long long)rq.timeout_ms);
	print_message("deadline: %s\n", r->v[0].profile->status_reason);
	assert_non_null(strstr(r->v[0].err.msg, "deadline"));
	assert_true(r->v[0].profile->nbuckets > 0);
	assert_true(r->v[0].profile->nbuckets < full);
	gh_results__free(r);
	gh_collector__free(c);
	live_stop(pid);
}

/* Kept stacks, two processes read in turn: each second read receives
 * fewer bytes than its first (a known bucket's record is its header and
 * counters, without its stack: heapgen's shallow stacks make that about
 * two thirds), and the results say how many bytes of stacks are kept. */
static void test_kept_alternate(void **state)
{
	struct gh_request rq = {.sz = sizeof(struct gh_request)};
	struct gh_collector *c = new_collector(true);
	struct gh_results *r;
	uint64_t bytes[2][2];
	int pids[2];

	(void)state;
	pids[0] = live_heapgen(1);
	pids[1] = live_heapgen(1);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 2; i++) {
			r = collect(c, &rq, &pids[i], 1);
			assert_ok(&r->v[0]);
			bytes[i][round] = r->v[0].profile->read_bytes;
			assert_true(r->kept_bytes > 0);
			gh_results__free(r);
		}
	for (int i = 0; i < 2; i++) {
		print_message(
			"process %d: first read %llu bytes, second %llu\n",
			pids[i], (unsigned long long)bytes[i][0],
			(unsigned long long)bytes[i][1]);
		assert_true(bytes[i][1] * 5 < bytes[i][0] * 4);
	}
	gh_collector__free(c);
	live_stop(pids[0]);
	live_stop(pids[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_pass),
		cmocka_unit_test(test_binary_cache),
		cmocka_unit_test(test_pids_filter),
		cmocka_unit_test(test_written_twice),
		cmocka_unit_test(test_delta_idle),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_kept_alternate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
