/* pprofpage.h - a profile endpoint's answer, made on the jobs thread
 * (it uses the collector): pprofpage.c's, and the parts of it that
 * deltapage.c's ?seconds=N reuses. */
#ifndef GH_CMD_SERVE_PPROFPAGE_H
#define GH_CMD_SERVE_PPROFPAGE_H

#include "cmd/serve/exch.h"

/* The HTTP status for a read that gave no profile (ended with code). */
int pprof_status(enum gh_status code);
/* Read x's Go runtime and answer with its profile. */
void pprof_page(struct exch *x);
/* x's endpoint's name ("heap", "allocs", "goroutine"), and its pprof options
 * (allocs' default sample type). */
const char *pprof_name(const struct exch *x);
struct gh_write_opts pprof_opts(const struct exch *x);
/* Read x's Go runtime now, built for w (NULL: none) and with its samples
 * when keep: its result, or NULL with x's reply saying why there is
 * none. *res is the caller's to free, either way. */
const struct gh_result *pprof_read(struct exch *x,
				   const struct gh_write_opts *w, bool keep,
				   struct gh_results **res);
/* When x's reply is a 200 and p's process holds more than one Go runtime:
 * which of them p is (X-Goheap-Runtime), and the paths of the others'
 * endpoint name (X-Goheap-Other-Runtimes). */
void pprof_runtime_headers(struct exch *x, const struct gh_profile *p,
			   const char *name);
/* p written as w says, with net/http/pprof's headers (a pprof file is
 * saved as filename), and the names of the process's other runtimes. */
void pprof_reply(struct exch *x, const struct gh_profile *p,
		 const struct gh_write_opts *w, const char *filename);

#endif
