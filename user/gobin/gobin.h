/* gobin.h - a Go binary opened for profiling: its Go version and layout
 * row, the link-time addresses of runtime variables, and its pclntab. */
#ifndef GH_GOBIN_H
#define GH_GOBIN_H

#include "gobin/elffile.h"
#include "gobin/layout.h"
#include "gobin/pcln.h"
#include "gobin/stripped.h"

struct gobin {
	struct elffile *elf;
	char version[64]; /* "go1.22.12" (any " X:..." suffix cut) */
	const struct layout *layout;
	struct pcln *pcln;
	char build_id[128];    /* hex GNU build ID, "" if none */
	char go_build_id[128]; /* the go command's build ID, "" if none */
	bool stripped;	       /* no .symtab: variables from code */
	struct svars svars;    /* the variables goheap-bpf reads: from the
				  symbol table, or recovered when stripped */
};

/* Open the Go binary at path for profiling a process on this host; messages
 * call it name (path when NULL: /proc/PID/exe is no name for a user). NOTGO
 * (not ELF, or no .go.buildinfo: the message says which), UNSUPPORTED (Go
 * version, an architecture other than the host's, 32-bit, pre-1.18
 * buildinfo), FAILED (I/O). Stripped binaries (-ldflags=-s -w) open too:
 * pclntab and go:func.* are then found through the moduledata, and the
 * runtime variables through the code that uses them (stripped.h). */
int gobin__open(const char *path, const char *name, struct gobin **out,
		struct gh_err *err);

/* The same for reading a binary offline: any supported architecture
 * (x86-64, arm64), whatever the host is. */
int gobin__open_offline(const char *path, const char *name, struct gobin **out,
			struct gh_err *err);
void gobin__free(struct gobin *b);

/* Link-time address of a runtime variable (runtime.*, or math.useFMA); -1
 * when the binary does not have it. In a stripped binary only the
 * variables of stripped.h are known, and only when their code patterns
 * matched. */
int gobin__symbol(const struct gobin *b, const char *name, uint64_t *addr);

/* Why gobin__symbol(b, name) failed: one line for an error message. */
const char *gobin__why(const struct gobin *b, const char *name);

#endif
