/* refs.h - whether a profile's indexes name entries of its tables: what
 * delta and every writer check before they follow one, since a
 * caller may build a gh_profile by hand. One rule, written once. */
#ifndef GH_PROFILE_REFS_H
#define GH_PROFILE_REFS_H

#include <stdbool.h>

#include "goheap.h"

/* Whether every line of l names a function of p (all a writer that never
 * reads a mapping needs). */
bool refs_lines_ok(const struct gh_profile *p, const struct gh_location *l);
/* Whether l's lines and its mapping (0: none) name entries of p. */
bool refs_location_ok(const struct gh_profile *p, const struct gh_location *l);
/* Whether every index p's tables hold names an entry: each sample's
 * locations, and each location's lines and mapping. */
bool refs_ok(const struct gh_profile *p);

#endif
