/* fixture.h - what the unit tests share to find the fixtures that
 * the scripts in tests/unit/fixtures built under $GH_FIXTURES: real Go binaries
 * of every supported release and the Go toolchain's answers about them. */
#ifndef GH_TEST_FIXTURE_H
#define GH_TEST_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

/* $GH_FIXTURES; fails the test when it is not set. */
const char *fixture_dir(void);

/* The "1.N" subdirectories of $GH_FIXTURES/sub, sorted; fails the test
 * (naming script) when sub is missing. Free with fixture_versions_free. */
size_t fixture_versions(const char *sub, const char *script, char ***out);
void fixture_versions_free(char **v, size_t n);

/* check(ver) for each release gobins.sh built (every supported one: at
 * least 10, else the test fails). */
void gobin_each_release(void (*check)(const char *ver));

/* The address `go tool nm` output in file nm gives the exact symbol name;
 * 0 when absent. Fails the test when the file is missing. */
uint64_t fixture_nm_addr(const char *nm, const char *name);

/* The gobins.sh fixtures of release ver (kind "exe" or "pie"): the
 * address go tool nm gives name (0 when absent), and `go version`'s
 * answer for the toolchain. */
uint64_t gobin_nm_addr(const char *ver, const char *kind, const char *name);
void gobin_version(const char *ver, char *out, size_t outsz);

#endif
