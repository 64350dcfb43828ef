/* watchscan.h - which processes a watch watches and their event sources
 * (watchscan.c), for the watch's loop (watchloop.c). */
#ifndef GH_WATCH_WATCHSCAN_H
#define GH_WATCH_WATCHSCAN_H

#include "watch/watchstate.h"

/* Find the processes again, and their event sources. Named processes
 * that cannot be watched fail the first scan (first). */
int watch_scan(struct gh_watch *w, bool first, struct gh_err *err);

/* The system's pressure source, opened first (KERNEL: no PSI). */
int watch_open_psi(struct gh_watch *w, struct gh_err *err);

#endif
