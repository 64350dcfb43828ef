/* frames.h - runtime.CallersFrames over one bucket's stack, the frames
 * runtime/pprof's printStackRecord prints in the legacy text: for each
 * return PC in a Go function, its innermost frame at the call (a heap
 * stack holds a PC for every inlined call, so each PC gives one frame,
 * and the virtual PCs Frames.Next would insert are already there); a PC
 * in no function gives none, as without a cgo symbolizer (the runtime's
 * cgo traceback hooks are not read from outside). Names are spelled as
 * Frame.Function spells them in the target's release. */
#ifndef GH_PROFILE_FRAMES_H
#define GH_PROFILE_FRAMES_H

#include "base/u64map.h"
#include "gobin/layout.h"
#include "gobin/symcache.h"
#include "profile/sink.h"

struct framer {
	struct symcache *sc; /* the binary's, shared */
	uint64_t bias;	     /* runtime = link-time + bias */
	enum frame_names names;
	struct pframe *v; /* the last stack's frames */
	size_t cap;
	/* names Frame.Function spells otherwise than the symbol table, by
	 * the address of the symbol's name (which lives with the binary) */
	struct u64map printed;
	char **pnames;
	size_t npnames, pcap;
};

void framer__init(struct framer *f, struct symcache *sc, uint64_t bias,
		  enum frame_names names);
void framer__free(struct framer *f);

/* The frames of link-time stack stk[0..n), leaf first, in f->v[0..*nout):
 * valid until the next call. -1 when out of memory. */
int framer__frames(struct framer *f, const uint64_t *stk, size_t n,
		   size_t *nout);

#endif
