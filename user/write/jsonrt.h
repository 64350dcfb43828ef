/* jsonrt.h - the JSON document's "runtime" object: the Go runtime's own
 * counters the collector read with the profile. */
#ifndef GH_WRITE_JSONRT_H
#define GH_WRITE_JSONRT_H

#include <stdio.h>

#include "goheap.h"

/* ",\n  \"runtime\": {...}" for p: the counters its release keeps, under
 * runtime/metrics' names; {"available": false, "reason": ...} when they
 * could not be read; nothing for a profile no collector read. */
void json_put_runtime(FILE *f, const struct gh_profile *p);

#endif
