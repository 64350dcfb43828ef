/* kept.h - the stacks kept between reads of each Go runtime (stream.h's
 * struct known), its heap profile's locations (locmemo.h) and its pprof
 * file's compressed pieces (gzmemo.h), per process
 * and runtime, for collectors that take snapshot after snapshot: a
 * runtime's entry is keyed by PID, start time and the address of its
 * bucket list, freed once its process is gone, and all of them together
 * stay under a byte bound (least recently used go first). */
#ifndef GH_COLLECT_KEPT_H
#define GH_COLLECT_KEPT_H

#include <stddef.h>

#include "target/target.h"

struct kept;

struct kept *kept__new(size_t max_bytes);
void kept__free(struct kept *k);

/* The kept stacks of t's runtime (empty at first), for read_req.known;
 * NULL when out of memory. Valid until the next kept__trim. */
struct known *kept__for(struct kept *k, const struct target *t);

/* The locations kept from t's last heap profile (none at first), for
 * view_opts.memo; NULL when out of memory. Valid until the next
 * kept__trim. */
struct locmemo *kept__memo(struct kept *k, const struct target *t);

/* The pieces of t's last pprof profile (none at first), for
 * render_pprof_memo; NULL when out of memory. Valid until the next
 * kept__trim. */
struct gzmemo *kept__gzmemo(struct kept *k, const struct target *t);

/* After a request: drop the entries of processes that are gone, then the
 * least recently used until the rest fit the bound. */
void kept__trim(struct kept *k);

/* Bytes the kept stacks and locations take now. */
size_t kept__bytes(const struct kept *k);

#endif
