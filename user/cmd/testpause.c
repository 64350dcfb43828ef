/* testpause.c - GOHEAP_TEST_PAUSE_MS, the tests' window between opening
 * the processes of a request and reading them (testpause.h). */
#include <stdlib.h>
#include <time.h>

#include "cmd/testpause.h"

void test_pause(void *arg, size_t n)
{
	const char *s = getenv("GOHEAP_TEST_PAUSE_MS");
	struct timespec ts;
	long ms;

	(void)arg;
	(void)n;
	if (!s || (ms = atol(s)) <= 0 || ms > 600000)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
}
