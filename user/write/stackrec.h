/* stackrec.h - runtime/pprof's printStackRecord: a record's frames as the
 * legacy texts print them ("#\t0x..\tname+0x..\tfile:line"), shared by
 * the heap's (legacy.c) and the block and mutex profiles'
 * (legacy_contention.c). */
#ifndef GH_WRITE_STACKREC_H
#define GH_WRITE_STACKREC_H

#include "profile/sink.h"
#include "write/pbuf.h"

/* printStackRecord(w, stk, all) of frames v[0..n) (runtime.CallersFrames
 * of the stack; none: Frames.Next's Frame{}), into b: runtime.goexit
 * never, the leading runtime frames (and "internal/runtime/" ones when
 * hide_internal) only when all or when hiding them leaves none; a frame
 * without a name as its PC alone; then a blank line. */
void stack_record_print(struct pbuf *b, const struct pframe *v, size_t n,
			bool hide_internal, bool all);

#endif
