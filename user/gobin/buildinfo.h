/* buildinfo.h - the .go.buildinfo section: Go version and module info. */
#ifndef GH_BUILDINFO_H
#define GH_BUILDINFO_H

#include <stddef.h>
#include <stdint.h>

#include "goheap.h"

/* Parse the .go.buildinfo section bytes (inline-string format, go1.18+).
 * Writes the runtime version ("go1.27.4", suffixes like " X:..." kept) to
 * version. NOTGO for a missing magic, UNSUPPORTED for the pre-1.18
 * pointer format or a big-endian/32-bit header, FAILED for truncation. */
int buildinfo_version(const uint8_t *data, size_t size, char *version,
		      size_t versz, struct gh_err *err);

#endif
