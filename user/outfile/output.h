/* output.h - gh_output: a file written all or nothing, by the rules every
 * writer of the library and the command follow; its variant for many
 * files written together. gh_output__* are the command's too (cli/cli.h),
 * hidden in libgoheap.so. */
#ifndef GH_OUTFILE_OUTPUT_H
#define GH_OUTFILE_OUTPUT_H

#include "goheap.h"

/* A file written all or nothing, by the rules every writer of the library
 * and the command follow (goheap-bpf(8), OUTPUT FILES):
 * - a regular file is written into a temporary file in its directory
 *   (path.tmp.XXXXXX, or .goheap-XXXXXX when that name would not fit
 *   NAME_MAX), renamed over path only when every byte was written;
 * - a new file's mode is 0666 minus the umask, as open(2) makes it; an
 *   existing file keeps its mode and its owner and group (given to the
 *   temporary file before the rename): when they cannot be kept (a caller
 *   without CAP_CHOWN replacing another user's file), the write fails and
 *   the file is left as it was;
 * - the links of path's last component are followed one at a time, each
 *   checked before it is: in a sticky directory others may write (/tmp),
 *   an entry must be the caller's or the directory owner's; a link of
 *   another user's (not the caller's, not root's) may lead only to what
 *   that user owns (for a new file, its directory); a link in /proc
 *   (/dev/stdout, /dev/fd/N) is the open file it names, appended to in
 *   place;
 * - "-" (or NULL) is stdout; character devices and FIFOs are written in
 *   place; block devices, directories and sockets are refused.
 * The temporary file is created, and later renamed or removed, with the
 * calling thread's signals blocked (a few system calls), so that a
 * handler calling gh_output__cleanup finds it or finds it gone. OUTPUT
 * when it cannot be created or is refused (the message names the path
 * and the rule). */
struct gh_output;
int gh_output__open(const char *path, struct gh_output **out,
		    struct gh_err *err);
FILE *gh_output__file(struct gh_output *o);
/* Flush, give the old file's mode and owner, sync and rename into place,
 * and free o. OUTPUT on any write error, or when the owner cannot be kept;
 * then nothing is left behind and the destination is untouched. */
int gh_output__commit(struct gh_output *o, struct gh_err *err);
/* Drop everything written (the destination is untouched), and free o. */
void gh_output__abort(struct gh_output *o);
/* Remove the temporary file of every output still open, in every thread,
 * and fail every later gh_output__open of a file (OUTPUT): for a front end's
 * handler of the signals that end it (SIGINT, SIGTERM, SIGHUP), which
 * then ends the process; the library installs no handler of its own.
 * Async-signal-safe: atomic operations and unlinkat only. Destinations
 * and outputs written in place are not touched; outputs left open stay
 * allocated (committing one fails, aborting one frees it). */
void gh_output__cleanup(void);

/* gh_output__open, but the file is not synced when committed (renamed
 * into place all the same): for a directory of files synced at once
 * (syncfs) by the writer, before whatever names them is committed. */
int output_open_unsynced(const char *path, struct gh_output **out,
			 struct gh_err *err);

#endif
