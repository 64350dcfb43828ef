/* goroutinepage.h - the goroutine profile endpoint's answer, made on the
 * jobs thread (goroutinepage.c). */
#ifndef GH_CMD_SERVE_GOROUTINEPAGE_H
#define GH_CMD_SERVE_GOROUTINEPAGE_H

#include "cmd/serve/exch.h"

/* Read x's process's goroutines and answer with the profile or the
 * text its ?debug=N asks for. */
void goroutine_page(struct exch *x);

#endif
