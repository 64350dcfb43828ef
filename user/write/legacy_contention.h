/* legacy_contention.h - the legacy text of a block or mutex profile, as
 * runtime/pprof's writeProfileInternal writes it for debug=1
 * (/debug/pprof/block?debug=1, /mutex?debug=1); the heap's is legacy.c's,
 * whose renderer hands a contention profile's records here. */
#ifndef GH_WRITE_LEGACY_CONTENTION_H
#define GH_WRITE_LEGACY_CONTENTION_H

#include "profile/sink.h"
#include "write/pbuf.h"

/* One record's lines into b: "CYCLES COUNT @ 0x.. 0x..", then
 * printStackRecord(stack, true). Records come in the order the runtime
 * sorted them (builder.c). */
void contention_text_record(struct pbuf *b, const struct praw *r);

/* The whole text into out: the header ("--- contention:" or "---
 * mutex:", "cycles/second=", the mutex profile's "sampling period="),
 * then the records' lines in blocks[0..n), all through text/tabwriter
 * (1, 8, 1, '\t', 0). -1 when out of memory. */
int contention_text_finish(struct pbuf *out, const struct gh_profile *p,
			   const struct pbuf *blocks);

#endif
