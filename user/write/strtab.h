/* strtab.h - a pprof file's string table: each distinct string once, ""
 * at index 0, in the order first met. Strings are borrowed (from the
 * profile, or literals); the few made while encoding (comments) are
 * copied and owned. Out of memory is sticky: failed says so at the end. */
#ifndef GH_WRITE_STRTAB_H
#define GH_WRITE_STRTAB_H

#include <stdbool.h>
#include <stdint.h>

#include "base/u64map.h"

struct strtab {
	const char **s;
	size_t n, cap;
	struct u64map index; /* hash of string -> position in s */
	char *owned[16];     /* copies made by strtab__index_copy */
	size_t nowned;
	bool failed;
};

/* Index of s (NULL counts as ""), added if new; 0 when out of memory. */
int64_t strtab__index(struct strtab *t, const char *s);
/* Index of a string that will not outlive the call: a copy is kept. */
int64_t strtab__index_copy(struct strtab *t, const char *s);
void strtab__free(struct strtab *t);

#endif
