/* oracle.h - what the tests that hold our output to tools we did not
 * write share: the tools writers.sh builds (writers_ref, go tool pprof),
 * running them, random inputs for them, and comparing their answers with
 * ours. */
#ifndef GH_TEST_ORACLE_H
#define GH_TEST_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Text in memory, NUL-terminated; the caller frees s. */
struct text {
	char *s;
	size_t len;
};

/* $GH_FIXTURES/writers/NAME (tests/unit/fixtures/writers.sh); fails the
 * test when it is missing. Valid until the next call. */
const char *oracle_tool(const char *name);

/* Everything f gives until its end. */
struct text read_stream(FILE *f);

/* The output of a shell command; the test fails unless it exits with 0. */
struct text run(const char *cmd);

/* t, freed, in a new temporary file named after the template in path. */
void save(char *path, struct text t);

/* xorshift64*: random inputs for the comparisons, the same on every
 * run. */
uint64_t next_rand(uint64_t *st);

/* Fails the test when got differs from want, showing both from three
 * lines above the first difference. */
void expect_text(const char *what, const char *got, const char *want);

#endif
