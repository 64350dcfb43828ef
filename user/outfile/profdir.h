/* profdir.h - what a directory of profiles shares with other writers of
 * directories (watch/watchdir.c). */
#ifndef GH_OUTFILE_PROFDIR_H
#define GH_OUTFILE_PROFDIR_H

#include "goheap.h"

/* Make dir if missing (0777 minus the umask) and check it by the rules of
 * gh_profile_dir__open: a directory, a link to one only when the caller's
 * or root's or its owner's directory. USAGE for none, OUTPUT else. */
int profdir_make(const char *dir, struct gh_err *err);

#endif
