/* glabels.h - a goroutine's pprof labels (g.labels), read from the
 * target and printed as runtime/pprof's labelMap.String() prints them:
 * {"k":"v", ...}, each pair %q-quoted, sorted. */
#ifndef GH_GOROUTINE_GLABELS_H
#define GH_GOROUTINE_GLABELS_H

#include "gobin/glayout.h"
#include "goroutine/gread.h"

/* The labels at g.labels (non-zero) as a malloc'd string; NULL with
 * errno when they cannot be read whole (EAGAIN: a map being grown).
 * *header gets goroutineheader's " {k: v, ...}" when the release prints
 * one (glayout.traceback_labels) and there are labels, else NULL. */
char *glabels_read(const struct glayout *L, const struct gfetch *f,
		   uint64_t labels, char **header);

#endif
