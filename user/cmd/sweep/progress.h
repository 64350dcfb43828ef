/* progress.h - a sweep's progress line on stderr: shown only when stderr
 * is a terminal and the sweep has taken over a second. */
#ifndef GH_CMD_PROGRESS_H
#define GH_CMD_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct progress {
	bool tty, shown;
	uint64_t start_ns, last_ns;
	size_t total;
};

void progress__start(struct progress *pg);
/* done of pg->total finished. */
void progress__step(struct progress *pg, size_t done);
/* Clear the line (before any other output on stderr). */
void progress__clear(struct progress *pg);

#endif
