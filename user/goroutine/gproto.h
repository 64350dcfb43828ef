/* gproto.h - the goroutine profile as a gh_profile of kind
 * GH_KIND_GOROUTINE: what runtime/pprof's /debug/pprof/goroutine writes
 * at debug=0, for write/pprof.c to encode. */
#ifndef GH_GOROUTINE_GPROTO_H
#define GH_GOROUTINE_GPROTO_H

#include "goroutine/gsnap.h"
#include "target/target.h"

/* s's profile (samples kept, one per distinct stack and label set, each
 * value[0] its goroutines), t's mappings, functions and locations, period
 * 1; partial when s is. The caller frees it (gh_profile__free). */
int gproto_build(const struct target *t, const struct gsnap *s,
		 struct gh_profile **out, struct gh_err *err);

#endif
