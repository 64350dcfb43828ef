/* output.h - gh_output's variant for many files written together. */
#ifndef GH_WRITE_OUTPUT_H
#define GH_WRITE_OUTPUT_H

#include "goheap.h"

/* gh_output__open, but the file is not synced when committed (renamed
 * into place all the same): for a directory of files synced at once
 * (syncfs) by the writer, before whatever names them is committed. */
int output_open_unsynced(const char *path, struct gh_output **out,
			 struct gh_err *err);

#endif
