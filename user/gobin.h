/* gobin.h - a Go binary opened for profiling: its Go version and layout
 * row, the link-time addresses of runtime variables, and its pclntab. */
#ifndef GH_GOBIN_H
#define GH_GOBIN_H

#include "elf.h"
#include "layout.h"
#include "pclntab.h"

struct gh_gobin {
	struct gh_elf *elf;
	char version[64];              /* "go1.22.12" (any " X:..." suffix cut) */
	const struct gh_layout *layout;
	struct gh_pcln *pcln;
	char build_id[128];            /* hex GNU build ID, "" if none */
};

/* Open the Go binary at path: NOTGO (not ELF, or no .go.buildinfo: the
 * message says which), UNSUPPORTED (Go version, architecture, 32-bit,
 * pre-1.18 buildinfo), FAILED (I/O). */
int gh_gobin_open(const char *path, struct gh_gobin **out, struct gh_err *err);
void gh_gobin_free(struct gh_gobin *b);

/* Link-time address of a data symbol; -1 when the binary does not have it
 * (stripped binaries: see issue 3). */
int gh_gobin_symbol(const struct gh_gobin *b, const char *name, uint64_t *addr);

#endif
