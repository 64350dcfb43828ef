/* fixture.c - see fixture.h. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"

const char *fixture_dir(void)
{
	const char *dir = getenv("GH_FIXTURES");

	if (!dir)
		fail_msg("GH_FIXTURES is not set: run tests/unit/run.sh, or "
			 "the scripts in tests/unit/fixtures with DIR and "
			 "GH_FIXTURES=DIR");
	return dir;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t fixture_versions(const char *sub, const char *script, char ***out)
{
	char path[4096];
	struct dirent *d;
	char **v = NULL;
	size_t n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/%s", fixture_dir(), sub);
	dir = opendir(path);
	if (!dir)
		fail_msg("%s: missing: run tests/unit/fixtures/%s", path,
			 script);
	while ((d = readdir(dir)) != NULL) {
		if (strncmp(d->d_name, "1.", 2) != 0)
			continue;
		v = realloc(v, (n + 1) * sizeof(*v));
		assert_non_null(v);
		v[n] = strdup(d->d_name);
		assert_non_null(v[n++]);
	}
	closedir(dir);
	qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	return n;
}

void fixture_versions_free(char **v, size_t n)
{
	while (n--)
		free(v[n]);
	free(v);
}

void gobin_each_release(void (*check)(const char *ver))
{
	char **v;
	size_t n = fixture_versions("gobin", "gobins.sh", &v);

	assert_true(n >= 10);
	for (size_t i = 0; i < n; i++)
		check(v[i]);
	fixture_versions_free(v, n);
}

uint64_t fixture_nm_addr(const char *nm, const char *name)
{
	char line[8192];
	unsigned long long addr;
	uint64_t found = 0;
	char type;
	int off;
	FILE *f = fopen(nm, "r");

	if (!f)
		fail_msg("%s: missing: run tests/unit/run.sh", nm);
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, " %llx %c %n", &addr, &type, &off) >= 2 &&
		    strcmp(line + off, name) == 0)
			found = addr;
	}
	fclose(f);
	return found;
}

uint64_t gobin_nm_addr(const char *ver, const char *kind, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/gobin/%s/%s.nm", fixture_dir(), ver,
		 kind);
	return fixture_nm_addr(path, name);
}

void gobin_version(const char *ver, char *out, size_t outsz)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/gobin/%s/version", fixture_dir(), ver);
	f = fopen(path, "r");
	if (!f || !fgets(out, (int)outsz, f))
		fail_msg("%s: missing: run tests/unit/fixtures/gobins.sh",
			 path);
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
}
