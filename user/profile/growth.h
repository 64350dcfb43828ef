/* growth.h - what the library keeps with a growth ranking
 * (gh_profile__growth, growthrank.c) beyond the public struct gh_growth,
 * whose size 0.2.0's programs rely on: the diff's kind, which the table
 * (write/growthtab.c) is laid out by. */
#ifndef GH_PROFILE_GROWTH_H
#define GH_PROFILE_GROWTH_H

#include "goheap.h"

/* A gh_growth as the library allocates it: g first, so that a
 * struct gh_growth * to it is one to this. */
struct growth_x {
	struct gh_growth g;
	enum gh_kind kind; /* gh_growth__kind */
};

#endif
