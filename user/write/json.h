/* json.h - what json.c writes besides the JSON renderer (render.h): an
 * index line, the document's header fields on one line. */
#ifndef GH_WRITE_JSON_H
#define GH_WRITE_JSON_H

#include <stdio.h>

#include "goheap.h"

/* p's header as one JSON line: the document's fields from "pid" to
 * "top_site_bytes" (json.c's schema) but output_truncated and
 * sample_index, and "file": the file holding its profile ("" for none).
 * OUTPUT when f cannot be written. */
int json_index_line(FILE *f, const struct gh_profile *p, const char *file,
		    struct gh_err *err);

#endif
