/* oomtrigger.h - a watch's OOM trigger (oomtrigger.c), for its loop
 * (watchloop.c) and its scan (watchscan.c). */
#ifndef GH_WATCH_OOMTRIGGER_H
#define GH_WATCH_OOMTRIGGER_H

#include "watch/watchstate.h"

/* Open the OOM watch unless no_oom says not; when it cannot be, fail if
 * it is the only trigger (alone), else say so once (problem, pid 0) and
 * go on without it. */
int watch_oom_open(struct gh_watch *w, bool alone, struct gh_err *err);
/* Register p, newly watched (a refusal is said once; a PID still held by
 * an exited process's entry is tried again at the next scan). */
void watch_oom_add(struct gh_watch *w, struct wproc *p);
/* p is no longer watched: removed if it lives (a dead one may be a
 * victim the next poll hands over). */
void watch_oom_forget(struct gh_watch *w, const struct wproc *p);
/* The descriptor to poll for kills; -1 without the OOM trigger. */
int watch_oom_fd(const struct gh_watch *w);
/* Write the victims whose walks are over (recorded: the descriptor
 * polled readable, so drain walks under way for a while). */
int watch_oom_poll(struct gh_watch *w, bool recorded, struct gh_err *err);

#endif
