/* json.h - what json.c writes besides the JSON renderer (render.h) and
 * gh_json__quote (the command's too: cli/cli.h): an index line, the document's
 * header fields on one line. */
#ifndef GH_WRITE_JSON_H
#define GH_WRITE_JSON_H

#include <stdio.h>

#include "goheap.h"

/* s as a JSON string, quotes included, escaped as every JSON document of
 * the library and the command is, and as Go's encoding/json does:
 * \" \\ \n \r \t for those five; the other control characters, < > &
 * and U+2028/U+2029 as \uXXXX (so that it is safe inside HTML and
 * JavaScript); each byte that is not valid UTF-8 as U+FFFD. */
void gh_json__quote(FILE *f, const char *s);

/* p's header as one JSON line: the document's fields from "pid" to
 * "top_site_bytes" (json.c's schema) but output_truncated and
 * sample_index, and "file": the file holding its profile ("" for none).
 * OUTPUT when f cannot be written. */
int json_index_line(FILE *f, const struct gh_profile *p, const char *file,
		    struct gh_err *err);

#endif
