/* gzstream.h - a gzip stream (RFC 1952) made of pieces: each piece raw
 * deflate ended by a sync flush, the compressor reset after it, so that
 * pieces are independent and byte-aligned and one compressed before can
 * be copied in as it is (pigz joins its blocks the same way); the CRC-32
 * combined piece by piece. Compression runs on a thread of its own when
 * there is one: the calls below hand it their work in order. */
#ifndef GH_WRITE_GZSTREAM_H
#define GH_WRITE_GZSTREAM_H

#include <stdbool.h>
#include <zlib.h>

#include "write/gzmemo.h"
#include "write/pbuf.h"

struct bytepipe;

struct gzstream {
	/* The compressing side's, until gzstream__finish: */
	z_stream zs;
	bool zs_live, failed;
	struct pbuf gz;	      /* the stream so far */
	uint32_t crc;	      /* of the pieces ended */
	uint64_t len;	      /* their raw bytes */
	struct gzpiece piece; /* the piece under way: gz_off, raw_len, crc */
	struct gzpiece *out;  /* the pieces ended: gz range, raw_len, crc */
	size_t nout, cap_out;
	const struct gzmemo *old; /* read only; set before the first piece */
	struct bytepipe *pipe;	  /* NULL: compress on the caller's thread */
};

/* A stream at level whose reused pieces come from old (NULL: none);
 * -1 when out of memory. */
int gzstream__init(struct gzstream *g, int level, bool own_thread,
		   const struct gzmemo *old);
void gzstream__fini(struct gzstream *g);

/* Bytes of the last piece (gzstream__finish ends it). */
void gzstream__part(struct gzstream *g, const void *data, size_t len);
/* A whole piece, between two pieces: len bytes of data, whose CRC-32 the
 * caller has taken (crc). */
void gzstream__piece(struct gzstream *g, const void *data, size_t len,
		     uint32_t crc);
/* old's piece i, as it was compressed, between two pieces. */
void gzstream__reuse(struct gzstream *g, size_t i);
/* The piece under way is the last: end the stream (g->gz whole, g->out
 * the pieces before the last). -1 when compression or memory failed. */
int gzstream__finish(struct gzstream *g);

#endif
