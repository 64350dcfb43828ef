/* pprofmsg.h - profile.proto's Profile message, uncompressed, into a
 * gh_profile (pprofmsg.c), and the message every refusal of the reader
 * gives (pprofread.c). */
#ifndef GH_PPROFIN_PPROFMSG_H
#define GH_PPROFIN_PPROFMSG_H

#include <stddef.h>
#include <stdint.h>

#include "goheap.h"

/* The n bytes at data, a Profile message, as a new *out; name is the file
 * (or "the profile") the messages name. UNSUPPORTED when it is not a pprof
 * heap profile, FAILED when out of memory. */
int pprofmsg_decode(const uint8_t *data, size_t n, const char *name,
		    struct gh_profile **out, struct gh_err *err);

/* -1 with UNSUPPORTED: name "is not a pprof heap profile: " what, and the
 * files to give instead. */
int pprofmsg_refuse(const char *name, const char *what, struct gh_err *err);

#endif
