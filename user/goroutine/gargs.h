/* gargs.h - a frame's arguments as the runtime's traceback prints them
 * (traceback.go printArgs), from a copy of the frame's argument area. */
#ifndef GH_GOROUTINE_GARGS_H
#define GH_GOROUTINE_GARGS_H

#include <stddef.h>
#include <stdint.h>

#include "gobin/pcln.h"

/* What printArgs prints between the parentheses for the function
 * holding pc (link-time, the frame's symPC) whose argument area starts
 * at args (n bytes of it were readable): "" when the function records no
 * argument layout; a value outside the copy is printed "_". malloc'd;
 * NULL when out of memory. */
char *gargs_format(struct pcln *p, uint64_t pc, const uint8_t *args, size_t n);

#endif
