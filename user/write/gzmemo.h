/* gzmemo.h - a process's last pprof profile, compressed piece by piece
 * (gzstream.h), kept for the next one: each piece's deflate output, its
 * encoded bytes' length and CRC-32 (for the gzip trailer), and the digest
 * of its samples (piecesamples.h). A repeated snapshot of a process whose
 * buckets mostly kept their counters makes the same samples again, in the
 * same order behind the new buckets Go prepends; a piece whose samples
 * have a kept piece's digest is copied compressed, neither encoded nor
 * compressed again. Pieces end where a sample's stack says (its location
 * ids' hash), so they end at the same buckets from one profile to the
 * next however many buckets came in front.
 *
 * The digest is a 64-bit hash of every input of the encoding (location
 * ids, values, the "bytes" label and its key's index, how many samples),
 * in the manner of wyhash: pieces that differ share it by chance only,
 * about one in 2^64, where keeping the bytes to compare would take ten
 * times the memory (about 4 MiB per 100k buckets, against 0.3 for the
 * compressed pieces) and encoding them the time this saves. */
#ifndef GH_WRITE_GZMEMO_H
#define GH_WRITE_GZMEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/u64map.h"

/* One piece: its key (the hash of its last sample's stack and size; 0:
 * never looked up), its samples' digest, its encoded bytes' length and
 * CRC-32, and their deflate output gz[gz_off..+gz_len). */
struct gzpiece {
	uint64_t key;
	uint64_t digest; /* of its samples (piecesamples.h) */
	size_t raw_len, gz_off, gz_len;
	uint32_t crc;
};

struct gzmemo {
	/* A profile of the process was made: the next one keeps its pieces
	 * (a process read once never pays for them). */
	bool primed;
	uint8_t *gz;
	size_t gz_len;
	struct gzpiece *v;
	size_t n;
	struct u64map index; /* key -> first piece with it */
	/* The last profile's pieces: how many were copied compressed. */
	size_t reused, made;
};

void gzmemo__clear(struct gzmemo *m);
size_t gzmemo__bytes(const struct gzmemo *m);

/* The piece with p's key and digest, or -1. */
long gzmemo__find(const struct gzmemo *m, const struct gzpiece *p);

/* The memo becomes a profile's: v[0..n) its pieces, back to back in gz
 * (copied). Takes v. -1 when out of memory (then m is empty, v freed). */
int gzmemo__replace(struct gzmemo *m, struct gzpiece *v, size_t n,
		    const uint8_t *gz);

#endif
