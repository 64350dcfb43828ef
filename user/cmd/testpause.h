/* testpause.h - the tests' window between opening and reading. */
#ifndef GH_CMD_TESTPAUSE_H
#define GH_CMD_TESTPAUSE_H

#include <stddef.h>

/* A gh_request.opened hook: sleeps GOHEAP_TEST_PAUSE_MS (at most ten
 * minutes) when it is set, so that a test can replace or kill a target
 * after every process is opened and before any is read, and check that a
 * vanished process is reported, never misread. */
void test_pause(void *arg, size_t n);

#endif
