/* test_layout.c - user/gobin/layout.c: the version parser, and each row against
 * the binaries the matching Go toolchain builds (fixtures/gobins.sh):
 * the pclntab magic and textStart word the linker wrote, the funcIDs the
 * linker gave known wrapper and panic functions (read at their go tool nm
 * addresses), and the mProf cycle symbol go tool nm lists. The pclntab
 * record sizes are exercised by test_pclntab, which cannot pass with a
 * wrong _func or inlinedCall size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"

#include "gobin/gobin.h"

/* The funcID the linker recorded for the function nm puts at name. */
static int funcid_of(struct gobin *b, const char *ver, const char *kind,
		     const char *name)
{
	uint64_t addr = gobin_nm_addr(ver, kind, name);
	struct goframe fr;

	if (!addr)
		fail_msg("%s/%s: go tool nm has no %s", ver, kind, name);
	if (!pcln__frame(b->pcln, addr, &fr))
		fail_msg("%s/%s: no function at %s", ver, kind, name);
	assert_false(fr.inlined);
	return fr.funcid;
}

static void check_row(const char *ver, const char *kind)
{
	char path[4096], version[64];
	const struct layout *L;
	struct gobin *b;
	struct gh_err err;
	uint64_t pchdr;
	uint32_t magic;
	uint64_t textstart;

	gobin_version(ver, version, sizeof(version));
	L = layout__for(version, &err);
	if (!L)
		fail_msg("%s: %s", version, err.msg);
	assert_int_equal(L->minor, atoi(ver + 2));
	assert_int_equal(L->rec_bytes, L->cycle_words * 4 * 8);

	snprintf(path, sizeof(path), "%s/gobin/%s/%s", fixture_dir(), ver,
		 kind);
	if (gobin__open(path, NULL, &b, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	assert_ptr_equal(b->layout, L);

	/* pcHeader as the linker wrote it. */
	pchdr = gobin_nm_addr(ver, kind, "runtime.pclntab");
	assert_true(pchdr != 0);
	assert_int_equal(elffile__read_vaddr(b->elf, pchdr, &magic, 4), 0);
	assert_int_equal(elffile__read_vaddr(b->elf, pchdr + 24, &textstart, 8),
			 0);
	assert_int_equal(magic, L->pcln_magic);
	assert_int_equal(textstart == 0, L->textstart_zero);

	/* funcIDs as the linker assigned them. */
	assert_int_equal(funcid_of(b, ver, kind, "main.(*rect).area"),
			 L->funcid_wrapper);
	assert_int_equal(funcid_of(b, ver, kind, "runtime.gopanic"),
			 L->funcid_gopanic);
	assert_int_equal(funcid_of(b, ver, kind, "runtime.sigpanic"),
			 L->funcid_sigpanic);
	assert_int_equal(funcid_of(b, ver, kind, "runtime.panicwrap"),
			 L->funcid_panicwrap);

	/* The mProf cycle variable has the name the row gives. */
	assert_true(gobin_nm_addr(ver, kind, L->cycle_sym) != 0);
	gobin__free(b);
}

static void check_both(const char *ver)
{
	check_row(ver, "exe");
	check_row(ver, "pie");
}

static void test_rows_match_toolchains(void **state)
{
	(void)state;
	gobin_each_release(check_both);
}

static void test_version_strings(void **state)
{
	static const struct {
		const char *v;
		int minor;
	} ok[] = {
		{"go1.18", 18},
		{"go1.18.10", 18},
		{"go1.22rc1", 22},
		{"go1.23beta2", 23},
		{"go1.22.0 X:nocoverage", 22},
		{"go1.25.3 X:boringcrypto,loopvar", 25},
		{"go1.27.4", 27},
	};
	size_t i;
	struct gh_err err;
	const struct layout *L;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		L = layout__for(ok[i].v, &err);
		if (!L)
			fail_msg("%s: %s", ok[i].v, err.msg);
		assert_int_equal(L->minor, ok[i].minor);
	}
}

static void test_unsupported_versions(void **state)
{
	static const char *const bad[] = {
		"go1.17",
		"go1.17.13",
		"go1.28",
		"go1.28.0",
		"go1.100",
		"go1.9",
		"go2.0",
		"go1.22x",
		"go1.22.",
		"go1.22rc",
		"garbage",
		"",
		"devel go1.25-abcdef Tue Jan 1",
	};
	struct gh_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_null(layout__for(bad[i], &err));
		assert_int_equal(err.code, GH_E_UNSUPPORTED);
		if (!strstr(err.msg, bad[i]))
			fail_msg("message for \"%s\" does not name it: %s",
				 bad[i], err.msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_strings),
		cmocka_unit_test(test_unsupported_versions),
		cmocka_unit_test(test_rows_match_toolchains),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
