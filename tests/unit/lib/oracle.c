/* oracle.c - see oracle.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "oracle.h"

const char *oracle_tool(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/writers/%s", fixture_dir(), name);
	if (access(path, X_OK))
		fail_msg("%s missing: run tests/unit/fixtures/writers.sh",
			 path);
	return path;
}

struct text read_stream(FILE *f)
{
	struct text t = {0};
	size_t cap = 0;
	size_t n;

	do {
		if (cap - t.len < 4096) {
			cap = cap ? cap * 2 : 65536;
			t.s = realloc(t.s, cap + 1);
			assert_non_null(t.s);
		}
		n = fread(t.s + t.len, 1, cap - t.len, f);
		t.len += n;
	} while (n);
	t.s[t.len] = '\0';
	return t;
}

struct text run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	struct text t;
	int status;

	assert_non_null(p);
	t = read_stream(p);
	status = pclose(p);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("`%s` failed (status %d):\n%s", cmd, status, t.s);
	return t;
}

void save(char *path, struct text t)
{
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(t.s, 1, t.len, f), t.len);
	assert_int_equal(fclose(f), 0);
	free(t.s);
}

uint64_t next_rand(uint64_t *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return *st * 0x2545f4914f6cdd1dULL;
}

void expect_text(const char *what, const char *got, const char *want)
{
	size_t at, line = 1, starts[4] = {0};

	if (!strcmp(got, want))
		return;
	for (at = 0; got[at] == want[at]; at++) {
		if (got[at] == '\n')
			starts[++line % 4] = at + 1;
	}
	at = starts[(line + 1) % 4];
	fail_msg("%s differs from line %zu.\n--- got:\n%.3000s\n--- "
		 "want:\n%.3000s",
		 what, line, got + at, want + at);
}
