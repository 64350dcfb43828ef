/* targetmath.h - which of Go's math paths the target's runtime runs (its
 * exp, for the heap profile's scaling: goexp.c), and whether a runtime
 * variable was read into a snapshot. */
#ifndef GH_PROFILE_TARGETMATH_H
#define GH_PROFILE_TARGETMATH_H

#include <stdbool.h>

#include "profile/goexp.h"
#include "read/snapshot.h"
#include "target/target.h"

/* Was the target's variable i located, and read into s? */
bool snapshot__var_ok(const struct snapshot *s, const struct target *t,
		      enum gh_var i);

/* The target's architecture picks the exp it runs, and on amd64
 * math.useFMA picks the path; without the variable, exp takes the FMA
 * path exactly when the CPU has FMA and AVX. */
enum gomath target__math(const struct target *t, const struct snapshot *s);

#endif
