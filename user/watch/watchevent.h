/* watchevent.h - a watch snapshot's context (struct gh_watch_event) as
 * the files of its directory (watchdir.c) carry it: JSON object members
 * (the snapshot's document and its index line), the likely leaks, the
 * pprof file's comment lines, and its time as ISO 8601. */
#ifndef GH_WATCH_WATCHEVENT_H
#define GH_WATCH_WATCHEVENT_H

#include <stdio.h>

#include "goheap.h"

/* A comment line: a cgroup path and words. */
#define WATCH_COMMENT_MAX (GH_PATH_MAX + 128)
/* Comment lines of one snapshot, at most. */
#define WATCH_COMMENTS 6

/* "2026-12-01T01:35:12.123Z": when ev's snapshot was taken. */
void watch_event__time(const struct gh_watch_event *ev, char *buf, size_t size);

/* The trigger's context as JSON object members (no braces). */
void watch_event__json(FILE *f, const struct gh_watch_event *ev);

/* The likely leaks as a JSON member, after others. */
void watch_event__json_leaks(FILE *f, const struct gh_watch_event *ev);

/* The context as pprof comments ("trigger: rss-above"): each line in
 * lines, v[i] pointing at it; how many (at most WATCH_COMMENTS). */
size_t watch_event__comments(const struct gh_watch_event *ev,
			     char lines[][WATCH_COMMENT_MAX], const char **v);

#endif
