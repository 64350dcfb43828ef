/* output.h - write a file all or nothing: into a temporary file beside it,
 * renamed over the target only when every byte is written. */
#ifndef GH_OUTPUT_H
#define GH_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "goheap.h"

struct outfile {
	FILE *f;
	char *path; /* NULL for stdout and devices */
	char *tmp;
	bool direct; /* a device or FIFO, written in place */
};

/* path "-" (or NULL) is stdout; a path naming a device or FIFO is written
 * in place. OUTPUT when the file cannot be created. */
int outfile_open(struct outfile *o, const char *path, struct gh_err *err);

/* Flush, sync and rename into place (or flush stdout). OUTPUT on any
 * write error; the temporary file is removed. */
int outfile_commit(struct outfile *o, struct gh_err *err);

/* Drop everything written (the destination is left untouched). */
void outfile_abort(struct outfile *o);

#endif
