/* pprofmeta.h - a pprof profile's fields other than its samples (see
 * pprofmeta.c), encoded after them. */
#ifndef GH_WRITE_PPROFMETA_H
#define GH_WRITE_PPROFMETA_H

#include "goheap.h"
#include "write/pbuf.h"
#include "write/strtab.h"

/* Append p's fields but its samples to pb, indexing their strings in st,
 * then st itself; o: the labels and comments asked for. */
void pprof_meta__encode(struct pbuf *pb, struct strtab *st,
			const struct gh_profile *p,
			const struct gh_write_opts *o);

#endif
