/* test_legacy.c - the legacy text renderer (runtime/pprof's debug=1 heap
 * profile). The renderer is fed
 * records as a build feeds them and must write what writeHeapInternal
 * prints for them, the lines spelled here after pprof.go and aligned by
 * Go's tabwriter: the header, the bump of alloc bytes, both sort orders,
 * printStackRecord's hiding of leading runtime frames (internal/runtime/
 * too from 1.24), of runtime.goexit, its second pass over a stack of
 * runtime frames only, frames without a name or no frame at all. And
 * gh_profile__write's rules: written twice alike, refused without a
 * renderer built for it. */
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

#include "goheap.h"
#include "oracle.h"
#include "write/render.h"

/* ---- the renderer ---- */

/* A profile built for the legacy text, fed records as a build feeds them
 * (a false start first, which the renderer must forget). */
struct built {
	struct gh_profile p;
	struct gh_profile_x x;
	struct psink s;
};

static void feed(struct built *b, const struct praw *recs, size_t n)
{
	const struct gh_write_opts o = {.sz = sizeof(struct gh_write_opts),
					.format = GH_FORMAT_LEGACY};
	struct gh_err err = {0};

	memset(b, 0, sizeof(*b));
	b->p.pid = 77;
	b->p.period = 524288;
	if (render_open(&o, false, &b->s, &err))
		fail_msg("render_open: %s", err.msg);
	assert_null(b->s.ops->sample);
	assert_int_equal(b->s.ops->raw(b->s.st, &b->p, &recs[0]), 0);
	b->s.ops->reset(b->s.st);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(b->s.ops->raw(b->s.st, &b->p, &recs[i]), 0);
	if (b->s.ops->finish(b->s.st, &b->p, &err))
		fail_msg("finish: %s", err.msg);
	b->x = (struct gh_profile_x){.sinks = &b->s, .nsinks = 1};
	b->p.x = &b->x;
}

static struct text legacy_text(const struct gh_profile *p, struct gh_err *err)
{
	const struct gh_write_opts o = {.sz = sizeof(struct gh_write_opts),
					.format = GH_FORMAT_LEGACY};
	struct text t = {0};
	FILE *f = open_memstream(&t.s, &t.len);

	assert_non_null(f);
	if (gh_profile__write(p, f, &o, err)) {
		fclose(f);
		free(t.s);
		return (struct text){0};
	}
	assert_int_equal(fclose(f), 0);
	return t;
}

/* untabbed, as pprof.go prints it, aligned by Go's tabwriter. */
static struct text go_aligned(const char *untabbed)
{
	char path[] = "/tmp/gh_legacy_XXXXXX", cmd[4096];
	struct text t = {strdup(untabbed), strlen(untabbed)}, out;
	size_t len;
	int used = 0;

	assert_non_null(t.s);
	save(path, t);
	snprintf(cmd, sizeof(cmd), "'%s' tabwriter 1 8 1 '%s'",
		 oracle_tool("writers_ref"), path);
	out = run(cmd);
	unlink(path);
	assert_int_equal(sscanf(out.s, "section %zu%n", &len, &used), 1);
	memmove(out.s, out.s + used + 1, len);
	out.s[len] = '\0';
	out.len = len;
	return out;
}

#define FR(pc, entry, fn, file, line)                                          \
	{                                                                      \
		pc, entry, fn, file, line                                      \
	}
#define STK(...)  ((const uint64_t[]){__VA_ARGS__})
#define NSTK(...) (sizeof(STK(__VA_ARGS__)) / sizeof(uint64_t))

static const struct pframe f_main[] = {
	FR(0x401233, 0x401200, "runtime.mallocgc", "/go/src/runtime/malloc.go",
	   900),
	FR(0x4a0011, 0x4a0000, "main.alloc", "/src/app/main.go", 12),
	FR(0x4a0101, 0x4a0000, "main.main", "/src/app/main.go", 30),
	FR(0x402000, 0x401f00, "runtime.main", "/go/src/runtime/proc.go", 250),
	FR(0x403001, 0x403000, "runtime.goexit", "/go/src/runtime/asm.s", 1700),
};
static const struct pframe f_runtime[] = {
	FR(0x401233, 0x401200, "runtime.mallocgc", "/go/src/runtime/malloc.go",
	   900),
	FR(0x405000, 0x404f00, "runtime.gcBgMarkWorker",
	   "/go/src/runtime/mgc.go", 1300),
	FR(0x403001, 0x403000, "runtime.goexit", "/go/src/runtime/asm.s", 1700),
};
static const struct pframe f_unnamed[] = {
	FR(0x7f0000001233, 0, "", "", 0),
	FR(0x401233, 0x401200, "runtime.cgocall", "/go/src/runtime/cgocall.go",
	   167),
	FR(0x4a0011, 0x4a0000, "main.c\tcall[...]", "/src/app/c.go", 5),
};
static const struct pframe f_maps[] = {
	FR(0x406010, 0x406000, "internal/runtime/maps.newTable",
	   "/go/src/internal/runtime/maps/table.go", 70),
	FR(0x4a0201, 0x4a0200, "main.fill", "/src/app/map.go", 8),
};

/* go1.19's rules, and go1.24's */
static const struct ptext_rules old_rules = {.pdqsort = true},
				new_rules = {.ascending = true,
					     .pdqsort = true,
					     .alloc_bump = true,
					     .hide_internal = true};

/* Records: allocs, frees, alloc bytes, free bytes, stack, frames. */
#define REC(rules, a, f, ab, fb, stk, fr)                                      \
	{                                                                      \
		a, f, ab, fb, stk, sizeof(stk) / sizeof(uint64_t), fr,         \
			sizeof(fr) / sizeof(struct pframe), &rules, 0, 0       \
	}

static const uint64_t s_main[] = {0x401234, 0x4a0012, 0x4a0102, 0x402001,
				  0x403002};
static const uint64_t s_runtime[] = {0x401234, 0x405001, 0x403002};
static const uint64_t s_unnamed[] = {0x7f0000001234, 0x401234, 0x4a0012};
static const uint64_t s_maps[] = {0x406011, 0x4a0202};
static const uint64_t s_none[] = {0x10};

/* What pprof.go prints for the records below, before alignment: the
 * header, then the records in the release's order. */
#define H(io, ib, ao, ab, rate)                                                \
	"heap profile: " io ": " ib " [" ao ": " ab "] @ heap/" rate "\n"
#define R_MAIN                                                                 \
	"6: 600 [10: 1000] @ 0x401234 0x4a0012 0x4a0102 0x402001 0x403002\n"   \
	"#\t0x4a0011\tmain.alloc+0x11\t/src/app/main.go:12\n"                  \
	"#\t0x4a0101\tmain.main+0x101\t/src/app/main.go:30\n"                  \
	"#\t0x402000\truntime.main+0x100\t/go/src/runtime/proc.go:250\n\n"
#define R_MAIN2                                                                \
	"1: 600 [1: 600] @ 0x401234 0x4a0012 0x4a0102 0x402001 0x403002\n"     \
	"#\t0x4a0011\tmain.alloc+0x11\t/src/app/main.go:12\n"                  \
	"#\t0x4a0101\tmain.main+0x101\t/src/app/main.go:30\n"                  \
	"#\t0x402000\truntime.main+0x100\t/go/src/runtime/proc.go:250\n\n"
#define R_RUNTIME                                                              \
	"2: 64 [2: 64] @ 0x401234 0x405001 0x403002\n"                         \
	"#\t0x401233\truntime.mallocgc+0x33\t/go/src/runtime/malloc.go:900\n"  \
	"#\t0x405000\truntime.gcBgMarkWorker+0x100\t/go/src/runtime/mgc.go:"   \
	"1300\n\n"
#define R_UNNAMED                                                              \
	"0: 0 [3: 3072] @ 0x7f0000001234 0x401234 0x4a0012\n"                  \
	"#\t0x7f0000001233\n"                                                  \
	"#\t0x401233\truntime.cgocall+0x33\t/go/src/runtime/cgocall.go:167\n"  \
	"#\t0x4a0011\tmain.c\tcall[...]+0x11\t/src/app/c.go:5\n\n"
#define R_MAPS_HIDDEN                                                          \
	"5: 2000 [5: 2000] @ 0x406011 0x4a0202\n"                              \
	"#\t0x4a0201\tmain.fill+0x1\t/src/app/map.go:8\n\n"
#define R_MAPS_SHOWN                                                           \
	"5: 2000 [5: 2000] @ 0x406011 0x4a0202\n"                              \
	"#\t0x406010\tinternal/runtime/maps.newTable+0x10\t/go/src/internal/"  \
	"runtime/maps/table.go:70\n"                                           \
	"#\t0x4a0201\tmain.fill+0x1\t/src/app/map.go:8\n\n"
#define R_NONE "0: 0 [0: 0] @ 0x10\n#\t0x0\n\n"
#define MEMSTATS                                                               \
	"\n# runtime.MemStats: not shown: goheap-bpf reads the heap profile "  \
	"from outside the process\n"

static void expect_legacy(const char *what, const struct praw *recs, size_t n,
			  const char *untabbed)
{
	struct gh_err err = {0};
	struct text got, again, want = go_aligned(untabbed);
	struct built b;

	feed(&b, recs, n);
	got = legacy_text(&b.p, &err);
	if (!got.s)
		fail_msg("%s: %s", what, err.msg);
	again = legacy_text(&b.p, &err);
	expect_text(what, got.s, want.s);
	expect_text("the legacy text written again", again.s, got.s);
	free(got.s);
	free(again.s);
	free(want.s);
	b.s.ops->free(b.s.st);
}

/* Up to go1.19: descending, no bump, internal/runtime/ shown. */
static void test_old_release(void **state)
{
	const struct praw recs[] = {
		REC(old_rules, 1, 0, 600, 0, s_main, f_main),
		REC(old_rules, 2, 0, 64, 0, s_runtime, f_runtime),
		REC(old_rules, 10, 4, 1000, 400, s_main, f_main),
		REC(old_rules, 3, 3, 3072, 3072, s_unnamed, f_unnamed),
		REC(old_rules, 5, 0, 2000, 0, s_maps, f_maps),
		{0, 0, 0, 0, s_none, 1, NULL, 0, &old_rules, 0, 0},
	};

	(void)state;
	expect_legacy("the legacy text of go1.19", recs, 6,
		      H("14", "3264", "21", "6736", "1048576")
			      R_MAPS_SHOWN R_MAIN2 R_MAIN R_RUNTIME R_UNNAMED
				      R_NONE MEMSTATS);
}

/* From go1.24: ascending, alloc bytes bumped past equal in-use bytes,
 * internal/runtime/ hidden. */
static void test_new_release(void **state)
{
	const struct praw recs[] = {
		REC(new_rules, 1, 0, 600, 0, s_main, f_main),
		REC(new_rules, 2, 0, 64, 0, s_runtime, f_runtime),
		REC(new_rules, 5, 0, 2000, 0, s_maps, f_maps),
		{0, 0, 0, 0, s_none, 1, NULL, 0, &new_rules, 0, 0},
	};

	(void)state;
	expect_legacy("the legacy text of go1.24", recs, 4,
		      H("8", "2664", "8", "2665", "1048576")
			      R_NONE R_RUNTIME R_MAIN2 R_MAPS_HIDDEN MEMSTATS);
}

/* Only a profile built for the legacy text writes it. */
static void test_refused(void **state)
{
	struct gh_profile_x kept = {.kept = true};
	struct gh_profile p = {.pid = 5, .x = &kept};
	struct gh_err err = {0};
	struct text t;

	(void)state;
	t = legacy_text(&p, &err);
	assert_null(t.s);
	assert_int_equal(err.code, GH_E_USAGE);
	assert_non_null(strstr(err.msg, "render list"));
	p.x = NULL; /* the caller's own */
	err.code = GH_OK;
	t = legacy_text(&p, &err);
	assert_null(t.s);
	assert_int_equal(err.code, GH_E_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_release),
		cmocka_unit_test(test_new_release),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
