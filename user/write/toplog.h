/* toplog.h - the samples the top table reads a second time, kept
 * compressed (toplog.c). pprof builds its graph twice: once for flat and
 * cum, which pick the nodes it keeps, and again knowing them, for the
 * edges between kept nodes that give the "(inline)" marks. The first pass
 * needs per-function sums only; this log is what the second reads: each
 * sample's weight and its stack of locations, root first, written as the
 * length it shares with the stack before and the rest (varints), the whole
 * deflated: a few bytes a sample. */
#ifndef GH_WRITE_TOPLOG_H
#define GH_WRITE_TOPLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

struct toplog {
	z_stream z;
	bool open;	    /* z holds a deflate stream */
	uint8_t raw[16384]; /* encoded, not yet deflated */
	size_t nraw;
	uint8_t **chunks; /* the deflated bytes, TOPLOG_CHUNK each */
	size_t nchunks, cap_chunks;
	size_t last_len; /* bytes in the last chunk */
	uint32_t *prev;	 /* the stack before, root first */
	size_t nprev, cap_prev;
	bool closed; /* no more samples: deflate is over */
};

/* Sample weight w, its stack locs[0..n) leaf first; -1 when out of
 * memory. */
int toplog__add(struct toplog *l, int64_t w, const uint32_t *locs, uint32_t n);

/* Each sample in the order added: fn(ctx, w, stack root first, n), which
 * stops the replay when non-zero. The log is closed for adds. -1 when out
 * of memory or the log is damaged, else fn's last return. */
int toplog__replay(struct toplog *l,
		   int (*fn)(void *ctx, int64_t w, const uint32_t *stack,
			     size_t n),
		   void *ctx);

void toplog__free(struct toplog *l);

#endif
