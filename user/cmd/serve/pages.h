/* pages.h - the pages made from the last sweep of the host: /metrics
 * (metrics.c), /processes and /targets (discovery.c), / (indexpage.c).
 * Each writes the whole body into f. */
#ifndef GH_CMD_PAGES_H
#define GH_CMD_PAGES_H

#include <stdio.h>

#include "cmd/serve/stats.h"
#include "cmd/serve/sweepcache.h"

void metrics_write(FILE *f, const struct snap *s, const struct stats_view *st);
/* The Go processes, as JSON: their labels and profile paths. */
void processes_write(FILE *f, const struct snap *s);
/* The same as a Prometheus http_sd document: a target per process, at
 * addr (this server as the client reached it), its path prefix a
 * label. */
void targets_write(FILE *f, const struct snap *s, const char *addr);
void index_write(FILE *f, const struct snap *s);

#endif
