/* pprof.h - the incremental pprof encoder: samples are compressed as they
 * are built, the rest of the profile is encoded at the end. */
#ifndef GH_PPROF_H
#define GH_PPROF_H

#include "goheap.h"

struct gh_pprof_enc;

int pprof_enc__new(struct gh_pprof_enc **out, struct gh_err *err);
void pprof_enc__free(struct gh_pprof_enc *e);
void pprof_enc__sample(struct gh_pprof_enc *e, const struct gh_sample *s);
/* Encode p's header, mappings, locations, functions and strings after the
 * samples given so far, and write the whole gzip stream to f. */
int pprof_enc__finish(struct gh_pprof_enc *e, FILE *f,
		      const struct gh_profile *p, struct gh_err *err);

#endif
