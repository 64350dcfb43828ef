/* test_glayout.c - user/gobin/glayout.c: each release's row against what
 * fixtures/structrefs.sh read with Go's own debug/dwarf and go/parser:
 * runtime.g's field offsets in the DWARF of a binary that release built,
 * and the waitReason strings of its runtime2.go, value by value. Unknown
 * releases are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"

#include "base/err.h"
#include "gobin/glayout.h"

/* Our offset of the field the DWARF names; -1 for a field we do not read. */
static long ours(const struct glayout *L, const char *name)
{
	static const struct {
		const char *name;
		size_t off;
	} f[] = {
#define F(n, m) {n, offsetof(struct glayout, m)}
		F("sched.sp", sched_sp),
		F("sched.pc", sched_pc),
		F("sched.lr", sched_lr),
		F("sched.bp", sched_bp),
		F("stack.lo", stack_lo),
		F("stack.hi", stack_hi),
		F("m", m),
		F("syscallsp", syscallsp),
		F("syscallpc", syscallpc),
		F("atomicstatus", atomicstatus),
		F("goid", goid),
		F("waitsince", waitsince),
		F("waitreason", waitreason),
		F("parentGoid", parent_goid),
		F("gopc", gopc),
		F("startpc", startpc),
		F("labels", labels),
		F("runningCleanups", running_cleanups),
		F("lockedm", lockedm),
#undef F
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(f[i].name, name))
			return *(const uint32_t *)((const char *)L + f[i].off);
	return -1;
}

static void check_release(const char *ver)
{
	char path[4096], line[512], name[128];
	const struct glayout *L;
	struct gh_err err;
	size_t nfields = 0, nreasons = 0;
	bool parent = false, cleanups = false;
	long off;
	FILE *f;

	L = glayout__for(atoi(ver + 2), &err);
	if (!L)
		fail_msg("%s: %s", ver, err.msg);
	snprintf(path, sizeof(path), "%s/gobin/%s/gstruct", fixture_dir(), ver);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: missing (fixtures/structrefs.sh)", path);
	while (fgets(line, sizeof(line), f)) {
		int n = 0;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "size %ld", &off) == 1) {
			if (off != (long)L->size)
				fail_msg("go%s: sizeof(runtime.g) is %ld, "
					 "the row says %u",
					 ver, off, L->size);
		} else if (sscanf(line, "field %127s %ld", name, &off) == 2) {
			long o = ours(L, name);

			if (o != off)
				fail_msg("go%s: g.%s is at %ld, the row says "
					 "%ld",
					 ver, name, off, o);
			parent |= !strcmp(name, "parentGoid");
			cleanups |= !strcmp(name, "runningCleanups");
			nfields++;
		} else if (sscanf(line, "waitreason %ld %n", &off, &n) == 1) {
			const char *s = glayout__waitreason(L, (uint8_t)off);

			if ((size_t)off >= L->nwaitreasons ||
			    strcmp(s, line + n) != 0)
				fail_msg("go%s: waitReason %ld is \"%s\", the "
					 "row says \"%s\"",
					 ver, off, line + n, s);
			nreasons++;
		}
	}
	fclose(f);
	/* Every field we read was in the DWARF; absent ones are 0. */
	assert_int_equal(nfields, 17 + parent + cleanups);
	assert_int_equal(parent, L->parent_goid != 0);
	assert_int_equal(cleanups, L->running_cleanups != 0);
	assert_int_equal(nreasons, L->nwaitreasons);
}

static void test_rows(void **state)
{
	(void)state;
	gobin_each_release(check_release);
}

static void test_unknown(void **state)
{
	struct gh_err err;

	(void)state;
	assert_null(glayout__for(17, &err));
	assert_int_equal(err.code, GH_E_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "1.17"));
	assert_null(glayout__for(28, &err));
	assert_non_null(glayout__for(27, &err));
}

static void test_status(void **state)
{
	const struct glayout *L25 = glayout__for(25, NULL),
			     *L26 = glayout__for(26, NULL);

	(void)state;
	assert_string_equal(glayout__status(L25, GST_WAITING | GST_SCAN),
			    "waiting");
	assert_string_equal(glayout__status(L25, GST_LEAKED), "???");
	assert_string_equal(glayout__status(L26, GST_LEAKED), "leaked");
	assert_string_equal(glayout__waitreason(L26, 250), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
