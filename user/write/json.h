/* json.h - what json.c writes besides the JSON renderer (render.h): an
 * index line, the document's header fields on one line; a goroutine
 * profile's states object, which the leak view writes too. */
#ifndef GH_WRITE_JSON_H
#define GH_WRITE_JSON_H

#include <stdio.h>

#include "goheap.h"
#include "profile/sink.h"

/* p's header as one JSON line: the document's fields from "pid" to
 * "top_site_bytes" (json.c's schema) but output_truncated and
 * sample_index, and "file": the file holding its profile ("" for none).
 * OUTPUT when f cannot be written. */
int json_index_line(FILE *f, const struct gh_profile *p, const char *file,
		    struct gh_err *err);

/* st as the "states" object: {"running": N, "runnable": N, "waiting":
 * N, "syscall": N, "other": N, "wait_reasons": {"chan receive": N,
 * ...}} (the reasons most first). */
void json_put_states(FILE *f, const struct gstates *st);

#endif
