/* deltapage.h - a profile with ?seconds=N, on the jobs thread. */
#ifndef GH_CMD_SERVE_DELTAPAGE_H
#define GH_CMD_SERVE_DELTAPAGE_H

#include <stdbool.h>

#include "cmd/serve/exch.h"

/* The first read, then (run again once it is due) the second and the
 * answer; false while x waits for its second read, queued again for
 * later. */
bool delta_page(struct exch *x);

#endif
