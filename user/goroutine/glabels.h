/* glabels.h - a goroutine's pprof labels (g.labels), read from the
 * target and printed as runtime/pprof's labelMap.String() prints them:
 * {"k":"v", ...}, each pair %q-quoted, sorted. */
#ifndef GH_GOROUTINE_GLABELS_H
#define GH_GOROUTINE_GLABELS_H

#include "gobin/glayout.h"
#include "goroutine/gread.h"

/* The labels at g.labels (0: none) as a malloc'd string, with
 * "state":"running" among them for a running goroutine; NULL with errno
 * when they cannot be read whole (EAGAIN: a map being grown). *header
 * gets goroutineheader's " {k: v, ...}" of the labels read when the
 * release prints one (glayout.traceback_labels) and there are some, else
 * NULL. With kv, the pairs too, as pprof's string labels want them:
 * *nkv of them, kv[2i] a key and kv[2i+1] its value, sorted by key. */
char *glabels_read(const struct glayout *L, const struct gfetch *f,
		   uint64_t labels, bool running, char **header, char ***kv,
		   size_t *nkv);

#endif
