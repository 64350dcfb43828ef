/* gstates.h - a goroutine read's goroutines by state, as
 * goroutineheader names the states (the waiting ones by wait reason too),
 * for the profile's JSON (profile/sink.h's struct gstates) and the leak
 * view (gleak.c). */
#ifndef GH_GOROUTINE_GSTATES_H
#define GH_GOROUTINE_GSTATES_H

#include "goroutine/gsnap.h"
#include "profile/sink.h"

/* What a goroutine waits for, as debug=2's header says it: its wait
 * reason ("waiting" for waitReasonZero or a value the release does not
 * name), "syscall" in a system call; NULL when it does not wait
 * (running, runnable, copying its stack). */
const char *gsample__waits_for(const struct gsample *g,
			       const struct glayout *L);

/* s's goroutines counted into *out (reasons malloc'd: gstates__free).
 * 0, or -1 with errno ENOMEM. */
int gstates__count(const struct gsnap *s, const struct glayout *L,
		   struct gstates *out);
void gstates__free(struct gstates *st);

#endif
