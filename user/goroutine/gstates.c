/* gstates.c - a read's goroutines by state. The classes are those
 * goroutineheader (traceback.go) prints, folded as a person reading a
 * leak asks for them: running (no stack: it was on a CPU while read),
 * runnable (runnable or preempted: ready, waiting for a P), waiting (for
 * what its waitReason names; leaked, 1.26+, is a waiting goroutine the
 * leak-detecting GC found unreachable), syscall, other (copystack, or a
 * status no release we know has). The wait reasons are the release's
 * own waitReason strings (gobin/glayout.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "goroutine/gstates.h"

const char *gsample__waits_for(const struct gsample *g, const struct glayout *L)
{
	const char *r;

	if (g->running)
		return NULL;
	switch (g->g.status) {
	case GST_SYSCALL:
		return "syscall";
	case GST_WAITING:
	case GST_LEAKED:
		r = g->g.waitreason ? glayout__waitreason(L, g->g.waitreason)
				    : "";
		return *r ? r : "waiting";
	default:
		return NULL;
	}
}

static int by_count(const void *x, const void *y)
{
	const struct gstate_reason *a = x, *b = y;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->reason, b->reason);
}

/* One more waiting goroutine for reason r (a static string: equal texts
 * are the same pointer within a release's table, but "waiting" is ours,
 * so texts are compared). */
static int add_reason(struct gstates *st, const char *r, size_t *cap)
{
	struct gstate_reason *v;

	for (size_t i = 0; i < st->nreasons; i++)
		if (!strcmp(st->reasons[i].reason, r)) {
			st->reasons[i].n++;
			return 0;
		}
	if (st->nreasons == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		v = realloc(st->reasons, *cap * sizeof(*v));
		if (!v)
			return errno = ENOMEM, -1;
		st->reasons = v;
	}
	st->reasons[st->nreasons++] = (struct gstate_reason){r, 1};
	return 0;
}

int gstates__count(const struct gsnap *s, const struct glayout *L,
		   struct gstates *out)
{
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < s->n; i++) {
		const struct gsample *g = &s->v[i];
		const char *r = gsample__waits_for(g, L);

		if (g->running)
			out->running++;
		else if (g->g.status == GST_RUNNABLE ||
			 g->g.status == GST_PREEMPTED)
			out->runnable++;
		else if (r && g->g.status == GST_SYSCALL)
			out->syscall++;
		else if (r) {
			out->waiting++;
			if (add_reason(out, r, &cap)) {
				gstates__free(out);
				return -1;
			}
		} else
			out->other++;
	}
	if (out->nreasons)
		qsort(out->reasons, out->nreasons, sizeof(*out->reasons),
		      by_count);
	return 0;
}

void gstates__free(struct gstates *st)
{
	free(st->reasons);
	memset(st, 0, sizeof(*st));
}
