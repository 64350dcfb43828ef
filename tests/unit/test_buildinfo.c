/* test_buildinfo.c - user/gobin/buildinfo.c, user/gobin/elffile.c and
 * user/gobin/gobin.c on the binaries every supported Go toolchain builds
 * (fixtures/gobins.sh): the version in .go.buildinfo equals `go version` of the
 * toolchain, and the addresses of the runtime variables goheap-bpf reads equal
 * go tool nm's. Then the refusals: damaged or foreign build info, files that
 * are not ELF, 32-bit and big-endian ELF, another architecture, a C program. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"

#include "gobin/buildinfo.h"
#include "gobin/gobin.h"

static void check_binary(const char *ver, const char *kind)
{
	const char *syms[] = {
		"runtime.mbuckets",
		"runtime.MemProfileRate",
		"runtime.disableMemoryProfiling",
		"math.useFMA",
		"runtime.text",
		"runtime.buildVersion",
		NULL, /* the layout's cycle symbol */
	};
	char path[4096], want[64], got[64];
	struct elffile_sect sect;
	struct elffile *e;
	struct gobin *b;
	struct gh_err err;
	uint64_t addr, ref;
	size_t i;

	gobin_version(ver, want, sizeof(want));
	snprintf(path, sizeof(path), "%s/gobin/%s/%s", fixture_dir(), ver,
		 kind);

	if (elffile__open(path, NULL, &e, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	assert_int_equal(elffile__section(e, ".go.buildinfo", &sect), 0);
	if (buildinfo_version(sect.data, sect.size, got, sizeof(got), &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	assert_string_equal(got, want);
	assert_int_equal(elffile__is_dyn(e), strcmp(kind, "pie") == 0);
	elffile__close(e);

	if (gobin__open(path, NULL, &b, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	assert_string_equal(b->version, want);
	syms[6] = b->layout->cycle_sym;
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		ref = gobin_nm_addr(ver, kind, syms[i]);
		if (!ref)
			fail_msg("%s: go tool nm has no %s", path, syms[i]);
		if (gobin__symbol(b, syms[i], &addr) < 0)
			fail_msg("%s: %s not found", path, syms[i]);
		assert_int_equal(addr, ref);
	}
	assert_int_equal(gobin__symbol(b, "runtime.noSuchSymbol", &addr), -1);
	gobin__free(b);
}

static void check_both(const char *ver)
{
	check_binary(ver, "exe");
	check_binary(ver, "pie");
}

static void test_every_release(void **state)
{
	(void)state;
	gobin_each_release(check_both);
}

/* A .go.buildinfo in the go1.18+ layout holding version v. */
static size_t make_buildinfo(uint8_t *buf, size_t bufsz, const char *v)
{
	size_t n = strlen(v);

	assert_true(32 + 1 + n <= bufsz && n < 128);
	memset(buf, 0, bufsz);
	memcpy(buf, "\xff Go buildinf:", 14);
	buf[14] = 8;
	buf[15] = 2;
	buf[32] = (uint8_t)n;
	memcpy(buf + 33, v, n);
	return 33 + n;
}

static void expect_buildinfo_error(const uint8_t *buf, size_t n,
				   enum gh_status code, const char *what)
{
	char v[64];
	struct gh_err err;

	memset(&err, 0, sizeof(err));
	if (buildinfo_version(buf, n, v, sizeof(v), &err) != -1)
		fail_msg("%s: accepted (%s)", what, v);
	if (err.code != code)
		fail_msg("%s: status %d, want %d (%s)", what, err.code, code,
			 err.msg);
}

static void test_bad_buildinfo(void **state)
{
	uint8_t buf[256];
	size_t n;
	char v[64];
	struct gh_err err;

	(void)state;
	n = make_buildinfo(buf, sizeof(buf), "go1.22.3");
	assert_int_equal(buildinfo_version(buf, n, v, sizeof(v), &err), 0);
	assert_string_equal(v, "go1.22.3");

	expect_buildinfo_error(buf, 20, GH_E_FAILED, "header cut short");
	expect_buildinfo_error(buf, n - 3, GH_E_FAILED, "version cut short");
	expect_buildinfo_error(buf, 32, GH_E_FAILED, "no version length");
	expect_buildinfo_error(buf, 0, GH_E_NOTGO, "empty");
	expect_buildinfo_error(NULL, 0, GH_E_NOTGO, "absent");

	buf[1] = 'g';
	expect_buildinfo_error(buf, n, GH_E_NOTGO, "bad magic");

	n = make_buildinfo(buf, sizeof(buf), "go1.22.3");
	buf[15] = 0;
	expect_buildinfo_error(buf, n, GH_E_UNSUPPORTED, "pre-1.18 format");

	n = make_buildinfo(buf, sizeof(buf), "go1.22.3");
	buf[15] = 3;
	expect_buildinfo_error(buf, n, GH_E_UNSUPPORTED, "big-endian");

	n = make_buildinfo(buf, sizeof(buf), "go1.22.3");
	buf[14] = 4;
	expect_buildinfo_error(buf, n, GH_E_UNSUPPORTED, "32-bit");

	n = make_buildinfo(buf, sizeof(buf), "go1.22.3");
	buf[32] = 0x80;
	expect_buildinfo_error(buf, n, GH_E_FAILED, "huge version length");
}

/* Write bytes to a fresh temporary file; its path goes to path. */
static void temp_file(char *path, size_t pathsz, const void *data, size_t n)
{
	int fd;

	snprintf(path, pathsz, "/tmp/gh-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
}

static void expect_open_error(const char *path, enum gh_status code,
			      const char *needle)
{
	struct gobin *b;
	struct gh_err err;

	memset(&err, 0, sizeof(err));
	assert_int_equal(gobin__open(path, NULL, &b, &err), -1);
	assert_null(b);
	if (err.code != code || !strstr(err.msg, needle))
		fail_msg("%s: status %d \"%s\", want %d naming \"%s\"", path,
			 err.code, err.msg, code, needle);
}

/* The linux/arm64 build gobins.sh makes with the newest toolchain. */
static void find_arm64(char *path, size_t pathsz)
{
	char dirpath[2048];
	struct dirent *d;
	DIR *dir;

	snprintf(dirpath, sizeof(dirpath), "%s/gobin", fixture_dir());
	dir = opendir(dirpath);
	if (!dir)
		fail_msg("%s: missing: run tests/unit/fixtures/gobins.sh",
			 dirpath);
	path[0] = '\0';
	while ((d = readdir(dir)) != NULL) {
		snprintf(path, pathsz, "%s/%s/arm64", dirpath, d->d_name);
		if (strncmp(d->d_name, "1.", 2) == 0 && access(path, R_OK) == 0)
			break;
		path[0] = '\0';
	}
	closedir(dir);
	if (!path[0])
		fail_msg(
			"%s: no arm64 build: run tests/unit/fixtures/gobins.sh",
			dirpath);
}

static void test_refused_files(void **state)
{
	uint8_t elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
	char path[64], arm[4096];

	(void)state;
	temp_file(path, sizeof(path), "#!/bin/sh\necho hi\n", 18);
	expect_open_error(path, GH_E_NOTGO, "script");
	unlink(path);

	temp_file(path, sizeof(path), "", 0);
	expect_open_error(path, GH_E_NOTGO, "empty");
	unlink(path);

	temp_file(path, sizeof(path), "MZ\x90\x00", 4);
	expect_open_error(path, GH_E_NOTGO, "PE");
	unlink(path);

	elf[4] = 1; /* ELFCLASS32 */
	temp_file(path, sizeof(path), elf, sizeof(elf));
	expect_open_error(path, GH_E_UNSUPPORTED, "32-bit");
	unlink(path);

	elf[4] = 2;
	elf[5] = 2; /* ELFDATA2MSB */
	temp_file(path, sizeof(path), elf, sizeof(elf));
	expect_open_error(path, GH_E_UNSUPPORTED, "big-endian");
	unlink(path);

	expect_open_error("/nonexistent/gh-test", GH_E_FAILED, "cannot open");
	/* This test program: ELF, but not Go. */
	expect_open_error("/proc/self/exe", GH_E_NOTGO, ".go.buildinfo");

	find_arm64(arm, sizeof(arm));
	expect_open_error(arm, GH_E_UNSUPPORTED, "arm64");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_release),
		cmocka_unit_test(test_bad_buildinfo),
		cmocka_unit_test(test_refused_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
