/* gtext.h - the goroutine profile's two texts, as net/http/pprof's
 * /debug/pprof/goroutine writes them: debug=1 (runtime/pprof
 * printCountProfile: counts per stack and labels) and debug=2
 * (runtime.Stack(buf, true): every goroutine, its header and frames). */
#ifndef GH_GOROUTINE_GTEXT_H
#define GH_GOROUTINE_GTEXT_H

#include <stdio.h>

#include "gobin/symcache.h"
#include "goroutine/gsnap.h"

struct gtext_env {
	struct symcache *sc;
	struct pcln *pcln;
	const struct layout
		*layout; /* Frame.Function's spelling, hideRuntime */
	const struct glayout *L;
	uint64_t bias;
};

/* 0, or -1 with errno (ENOMEM, or the stream's error). */
int gtext_debug1(const struct gtext_env *e, const struct gsnap *s, FILE *f);
int gtext_debug2(const struct gtext_env *e, const struct gsnap *s, FILE *f);

#endif
