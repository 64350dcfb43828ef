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

/* One of printCountProfile's keys: "@ 0x.. 0x.." and the labels, the
 * goroutines that have it, and the first of them (an index into s->v). */
struct gkey {
	char *text;
	size_t count, first;
};

/* s's distinct keys in keysByCount's order (most goroutines first, then
 * by key as strings), the order both the text and the proto take. 0, or
 * -1 with errno ENOMEM. */
int gkeys_count(const struct gsnap *s, struct gkey **out, size_t *n);
void gkeys_free(struct gkey *k, size_t n);

/* 0, or -1 with errno (ENOMEM, or the stream's error). */
int gtext_debug1(const struct gtext_env *e, const struct gsnap *s, FILE *f);
int gtext_debug2(const struct gtext_env *e, const struct gsnap *s, FILE *f);

#endif
