/* units.h - sizes ("64MiB") and durations ("500ms") as flags and specs
 * spell them, parsed strictly: the whole text, in range, or -1. */
#ifndef GH_BASE_UNITS_H
#define GH_BASE_UNITS_H

#include <stdint.h>

#include "goheap.h"

/* Upper bounds: 1 PiB; 30 days. */
#define UNITS_SIZE_MAX	   (1ULL << 50)
#define UNITS_DURATION_MAX (30ULL * 86400 * 1000000)

/* "4096", "512K", "64M", "64MB", "64MiB", "1.5G", "2T": bytes, K/M/G/T
 * powers of 1024 (as go tool pprof's MB), case-insensitive; > 0. */
int units_size(const char *s, uint64_t *bytes);
/* "150ms", "2s", "1.5s", "1m", "1h", "250us"; a bare number is seconds;
 * > 0, at least 1 us. Microseconds, for PSI's windows. */
int units_duration_us(const char *s, uint64_t *us);

/* The command's flags (cli/cli.h): "4096", "512K", "64M", "64MiB", "1.5G":
 * bytes (K, M, G, T are powers of 1024; "i" and "B" optional), > 0, at most 1
 * PiB; -1 otherwise. */
int gh_size__parse(const char *s, uint64_t *bytes);
/* "500ms", "2s", "1.5s", "1m", "1h" (a bare number is seconds) into
 * milliseconds, at least 1 ms and at most 30 days; -1 otherwise. */
int gh_duration__parse(const char *s, uint64_t *ms);

#endif
