/* live.h - live Go programs for the collector's tests: the fixture
 * targets (tests/unit/fixtures/targets.sh) started, waited for until they
 * are ready, and stopped. Needs root for what the tests then do with them
 * (BPF). */
#ifndef GH_TEST_LIVE_H
#define GH_TEST_LIVE_H

#include <stddef.h>
#include <sys/types.h>

/* heapgen at MemProfileRate rate: running, idle, its own profile written.
 * Fails the test when it does not get ready. */
pid_t live_heapgen(int rate);

/* benchgen with about n heap-profile buckets (rate 1), ready. */
pid_t live_benchgen(size_t n);

/* A process that is not Go (sleep). */
pid_t live_sleeper(void);

void live_stop(pid_t pid);

#endif
