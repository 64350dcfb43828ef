/* goroutinepage.h - the goroutine profile endpoint's answer, made on the
 * jobs thread (goroutinepage.c). */
#ifndef GH_CMD_SERVE_GOROUTINEPAGE_H
#define GH_CMD_SERVE_GOROUTINEPAGE_H

#include "cmd/serve/exch.h"

/* Read x's process's goroutines and answer with the profile or the
 * text its ?debug=N asks for. */
void goroutine_page(struct exch *x);

/* x's process's goroutine profile read now (samples kept, for a delta),
 * or NULL with x's reply saying why there is none (a partial read
 * included: never served). The caller's to free. */
struct gh_profile *goroutine_read(struct exch *x);

/* p as the gzip pprof file net/http/pprof serves, named filename:
 * pprof_reply's answer, runtime headers included. */
void goroutine_reply(struct exch *x, const struct gh_profile *p,
		     const char *filename);

#endif
