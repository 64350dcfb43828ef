/* test_tabwriter.c - write/tabwriter.c held to Go's text/tabwriter
 * (writers_ref tabwriter) on random texts of cells, line breaks,
 * vertical tabs, form feeds, escapes, multi-byte, cut and invalid UTF-8,
 * fed to ours in random pieces and to Go's at once: with runtime/pprof's
 * settings (minwidth 1, tabwidth 8, padding 1), tabs of no width, and
 * random others. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oracle.h"
#include "write/tabwriter.h"

/* A random text: words, tabs and newlines mostly; now and then a vertical
 * tab, a form feed, an escape byte, multi-byte, cut or invalid UTF-8. */
static struct text random_text(uint64_t *st)
{
	static const char *const bits[] = {"a",
					   "bb",
					   "ccc ",
					   "dddddddd",
					   "\t",
					   "\t",
					   "\t\t",
					   "\n",
					   "\n",
					   "\n\n",
					   "\v",
					   "\f",
					   "\xff",
					   "é",
					   "\xe2\x82\xac",
					   "\xf0\x9f\x98\x80",
					   "\x80",
					   "\xc0\xaf",
					   "\xe2\x82",
					   "\xed\xa0\x80",
					   "\xf4\x90\x80\x80",
					   "0x4a1b2c",
					   "main.f+0x1f",
					   "/src/x.go:12"};
	size_t n = next_rand(st) % 120, cap = 1024;
	struct text t = {malloc(cap), 0};

	assert_non_null(t.s);
	for (size_t i = 0; i < n; i++) {
		const char *b =
			bits[next_rand(st) % (sizeof(bits) / sizeof(bits[0]))];
		size_t len = strlen(b);

		if (t.len + len + 1 > cap) {
			cap *= 2;
			t.s = realloc(t.s, cap);
			assert_non_null(t.s);
		}
		memcpy(t.s + t.len, b, len);
		t.len += len;
	}
	t.s[t.len] = '\0';
	return t;
}

/* t as our tabwriter aligns it, written in random pieces. */
static struct text tabbed(struct text t, int64_t mw, int64_t tw, int64_t pad,
			  uint64_t *st)
{
	struct pbuf out = {0};
	struct tabwriter w;
	struct text r;
	size_t at = 0;

	tabwriter__init(&w, &out, mw, tw, pad);
	while (at < t.len) {
		size_t n = 1 + next_rand(st) % (t.len - at);

		tabwriter__write(&w, t.s + at, n);
		at += n;
	}
	tabwriter__flush(&w);
	assert_false(w.failed || out.failed);
	tabwriter__free(&w);
	r.s = malloc(out.len + 1);
	assert_non_null(r.s);
	if (out.len) /* an empty buffer has no data (NULL) */
		memcpy(r.s, out.data, out.len);
	r.s[out.len] = '\0';
	r.len = out.len;
	pbuf__free(&out);
	return r;
}

#define NTEXTS 60

static void check_tabwriter(int64_t mw, int64_t tw, int64_t pad, uint64_t seed)
{
	char paths[NTEXTS][32], cmd[NTEXTS * 40 + 256], what[128];
	struct text in[NTEXTS], want;
	uint64_t st = seed * 0x9e3779b97f4a7c15ULL + 11;
	const char *at;
	size_t len;
	int used;

	snprintf(cmd, sizeof(cmd),
		 "'%s' tabwriter %" PRId64 " %" PRId64 " %" PRId64,
		 oracle_tool("writers_ref"), mw, tw, pad);
	for (int i = 0; i < NTEXTS; i++) {
		struct text copy;

		in[i] = random_text(&st);
		copy.s = malloc(in[i].len + 1);
		assert_non_null(copy.s);
		memcpy(copy.s, in[i].s, in[i].len + 1);
		copy.len = in[i].len;
		strcpy(paths[i], "/tmp/gh_tabw_XXXXXX");
		save(paths[i], copy);
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " '%s'",
			 paths[i]);
	}
	want = run(cmd);
	at = want.s;
	for (int i = 0; i < NTEXTS; i++) {
		struct text got = tabbed(in[i], mw, tw, pad, &st);

		used = 0;
		if (sscanf(at, "section %zu%n", &len, &used) != 1 || !used ||
		    strlen(at + used + 1) < len)
			fail_msg("writers_ref tabwriter: no section at\n%s",
				 at);
		at += used + 1;
		snprintf(what, sizeof(what),
			 "text %d aligned with %" PRId64 " %" PRId64
			 " %" PRId64,
			 i, mw, tw, pad);
		if (got.len != len || memcmp(got.s, at, len))
			fail_msg("%s:\n--- in:\n%s\n--- got:\n%s\n--- "
				 "want:\n%.*s",
				 what, in[i].s, got.s, (int)len, at);
		at += len;
		free(got.s);
		free(in[i].s);
		unlink(paths[i]);
	}
	free(want.s);
}

static void test_tabwriter(void **state)
{
	uint64_t st = 99;

	(void)state;
	check_tabwriter(1, 8, 1, 1); /* runtime/pprof's */
	check_tabwriter(1, 8, 1, 2);
	check_tabwriter(0, 0, 0, 3); /* tabs of no width: no padding */
	for (uint64_t seed = 4; seed < 12; seed++)
		check_tabwriter((int64_t)(next_rand(&st) % 12),
				(int64_t)(next_rand(&st) % 10),
				(int64_t)(next_rand(&st) % 5), seed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tabwriter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
