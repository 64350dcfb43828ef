/* tmpfile.h - the temporary files outputs are written into, each in a
 * list that a signal handler can empty (tmp_unlink_all) before the
 * process ends. Each is created, and renamed or removed, with the calling
 * thread's signals blocked, so that a handler finds it listed or finds it
 * gone, never in between. */
#ifndef GH_OUTFILE_TMPFILE_H
#define GH_OUTFILE_TMPFILE_H

#include <sys/types.h>

struct tmpfile;

/* A new file in directory dirfd, named after dest (dest.tmp.XXXXXX, or
 * .goheap-XXXXXX when that would not fit NAME_MAX), never one that was
 * there (O_EXCL, O_NOFOLLOW), created with mode (the umask applies). Its
 * descriptor and *out, or -1 with errno (ECANCELED after
 * tmp_unlink_all). */
int tmp_create(int dirfd, const char *dest, mode_t mode, struct tmpfile **out);

/* Rename t's file to name, in its directory; t is done with either way.
 * -1 with errno, the file removed (ECANCELED: tmp_unlink_all removed it
 * first). */
int tmp_publish(struct tmpfile *t, const char *name);

/* Remove t's file; t is done with. */
void tmp_discard(struct tmpfile *t);

/* Remove every listed file (any thread's), and make tmp_create fail from
 * now on: the process is ending. Async-signal-safe: atomic operations and
 * unlinkat only. */
void tmp_unlink_all(void);

#endif
