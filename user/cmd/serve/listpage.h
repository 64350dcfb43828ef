/* listpage.h - the listing endpoints (/metrics, /processes, /targets,
 * /): a page of the host's processes from a sweep. */
#ifndef GH_CMD_SERVE_LISTPAGE_H
#define GH_CMD_SERVE_LISTPAGE_H

#include "cmd/serve/exch.h"

/* On the jobs thread: the sweep the page needs, then the page. */
void listing_page(struct exch *x);
/* The same page from a sweep in hand, on either thread. */
void listing_render(struct exch *x, const struct snap *s);

#endif
