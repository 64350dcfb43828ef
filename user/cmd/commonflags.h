/* commonflags.h - the flags that more than one front end takes, each
 * declared here once: its long name, short key and argument, and what
 * reads its value (parse.h), so that a flag is spelled and refused alike
 * wherever it is taken. A front end puts the row into its own table, in
 * its own group, with the help line that says what the flag means
 * there. The filters (--comm, ...) are one argp child instead
 * (selectflags.h). */
#ifndef GH_CMD_COMMONFLAGS_H
#define GH_CMD_COMMONFLAGS_H

#include "cmd/parse.h"

/* The keys of the long-only rows, apart from each front end's own (256
 * and up) and the filters' (1024 and up). */
enum {
	KEY_TIMEOUT = 512,
	KEY_BACKEND,
};

/* -b, --backend NAME (key 'b'; serve's, KEY_BACKEND, has no -b),
 * read by flag_backend. */
#define FLAG_BACKEND(key, doc, grp)                                            \
	{                                                                      \
		"backend", (key), "NAME", 0, (doc), (grp)                      \
	}
/* The help line where nothing more is said of the default. */
#define FLAG_BACKEND_DOC "auto (default), iter, perf or procmem"
/* -p, --pid PID[,PID...], read by flag_pids (at most MAX_PIDS). */
#define FLAG_PID(doc, grp)                                                     \
	{                                                                      \
		"pid", 'p', "PID[,PID...]", 0, (doc), (grp)                    \
	}
/* --timeout TIME, read by flag_duration; arg: the word its help shows. */
#define FLAG_TIMEOUT(arg, doc, grp)                                            \
	{                                                                      \
		"timeout", KEY_TIMEOUT, arg, 0, doc, grp                       \
	}
/* -v, --verbose. */
#define FLAG_VERBOSE(doc, grp)                                                 \
	{                                                                      \
		"verbose", 'v', NULL, 0, (doc), (grp)                          \
	}
/* -d, --output-dir DIR. */
#define FLAG_OUTPUT_DIR(doc, grp)                                              \
	{                                                                      \
		"output-dir", 'd', "DIR", 0, (doc), (grp)                      \
	}
/* -o, --output FILE, opened with gh_output__open. */
#define FLAG_OUTPUT(doc, grp)                                                  \
	{                                                                      \
		"output", 'o', "FILE", 0, (doc), (grp)                         \
	}
/* -n, --top N. */
#define FLAG_TOP(doc, grp)                                                     \
	{                                                                      \
		"top", 'n', "N", 0, (doc), (grp)                               \
	}

#endif
