/* progress.c - "goheap-bpf: 37/200 profiles" on stderr, rewritten in
 * place (at most ten times a second) once a sweep has run for a second,
 * when stderr is a terminal; never in a pipe or a log. */
#include <stdio.h>
#include <unistd.h>

#include "cmd/cmdclock.h"
#include "cmd/sweep/progress.h"

#define SHOW_AFTER_NS 1000000000ull
#define REDRAW_GAP_NS 100000000ull

void progress__start(struct progress *pg)
{
	*pg = (struct progress){.tty = isatty(STDERR_FILENO) == 1,
				.start_ns = now_ns()};
}

void progress__step(struct progress *pg, size_t done)
{
	uint64_t t;

	if (!pg->tty)
		return;
	t = now_ns();
	if (t - pg->start_ns < SHOW_AFTER_NS ||
	    (pg->shown && t - pg->last_ns < REDRAW_GAP_NS && done < pg->total))
		return;
	fprintf(stderr, "\rgoheap-bpf: %zu/%zu profiles\033[K", done,
		pg->total);
	pg->shown = true;
	pg->last_ns = t;
}

void progress__clear(struct progress *pg)
{
	if (pg->shown)
		fputs("\r\033[K", stderr);
	pg->shown = false;
}
