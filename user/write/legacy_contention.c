/* legacy_contention.c - a block or mutex profile's debug=1 text, as
 * pprof.go's writeProfileInternal writes it in every release from 1.18:
 *
 *	--- contention:          ("--- mutex:" for the mutex profile)
 *	cycles/second=N          (runtime_cyclesPerSecond)
 *	sampling period=R        (mutex only: SetMutexProfileFraction(-1))
 *	CYCLES COUNT @ 0x.. 0x.. (per record, unscaled, largest cycles first)
 *	#	0x..	name+0x..	file:line (printStackRecord(stk, true))
 *
 * The records' values are BlockProfileRecord's own (no scaling: only the
 * proto scales), the stack the one it prints (1.23+: inlined frames
 * expanded, expandInlinedFrames), the frames every one but
 * runtime.goexit. The header's two numbers are the target's own
 * (gh_profile_x: cycles_per_second, rate). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "write/legacy_contention.h"
#include "write/stackrec.h"
#include "write/tabwriter.h"

static void put_line(struct pbuf *b, const char *fmt, int64_t v)
{
	char s[64];
	int n = snprintf(s, sizeof(s), fmt, v);

	pbuf__bytes(b, s, n < 0 ? 0 : (size_t)n);
}

void contention_text_record(struct pbuf *b, const struct praw *r)
{
	char s[32];
	int n;

	n = snprintf(s, sizeof(s), "%" PRId64 " ", r->cycles);
	pbuf__bytes(b, s, n < 0 ? 0 : (size_t)n);
	put_line(b, "%" PRId64 " @", r->count);
	for (size_t i = 0; i < r->nstk; i++) {
		n = snprintf(s, sizeof(s), " 0x%" PRIx64, r->stk[i]);
		pbuf__bytes(b, s, n < 0 ? 0 : (size_t)n);
	}
	pbuf__bytes(b, "\n", 1);
	stack_record_print(b, r->frames, r->nframes, r->rules->hide_internal,
			   true);
}

int contention_text_finish(struct pbuf *out, const struct gh_profile *p,
			   const struct pbuf *blocks)
{
	bool mutex = gh_profile__kind(p) == GH_KIND_MUTEX;
	struct tabwriter tw;
	struct pbuf head = {0};
	int rc = 0;

	/* writeBlock's name is "contention", writeMutex's "mutex" */
	pbuf__bytes(&head, mutex ? "--- mutex:\n" : "--- contention:\n",
		    strlen(mutex ? "--- mutex:\n" : "--- contention:\n"));
	put_line(&head, "cycles/second=%" PRId64 "\n",
		 p->x ? p->x->cycles_per_second : 0);
	if (mutex)
		put_line(&head, "sampling period=%" PRId64 "\n",
			 p->x ? p->x->rate : 0);
	tabwriter__init(&tw, out, 1, 8, 1);
	tabwriter__write(&tw, (const char *)head.data, head.len);
	if (blocks->len)
		tabwriter__write(&tw, (const char *)blocks->data, blocks->len);
	tabwriter__flush(&tw);
	if (tw.failed || head.failed || blocks->failed || out->failed)
		rc = -1;
	tabwriter__free(&tw);
	pbuf__free(&head);
	return rc;
}
