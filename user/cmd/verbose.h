/* verbose.h - what --verbose adds on stderr, for --pid and --all. */
#ifndef GH_CMD_VERBOSE_H
#define GH_CMD_VERBOSE_H

#include "goheap.h"

/* What one profile cost. */
void verbose_profile(const struct gh_profile *p);
/* What the request did. */
void verbose_results(const struct gh_results *r, size_t nresults);

#endif
