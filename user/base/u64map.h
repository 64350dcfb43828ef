/* u64map.h - an open-addressing map from 64-bit keys to 32-bit values,
 * used to cache per-PC symbolization, locations by first PC and functions
 * by name hash. Keys equal to 0 are remapped internally; a caller whose
 * keys are hashes resolves collisions with the eq callback. */
#ifndef GH_U64MAP_H
#define GH_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys; /* 0 = empty slot */
	uint32_t *vals;
	size_t cap; /* power of two */
	size_t n;
};

/* eq(ctx, val) tells whether the entry holding val really is the one
 * looked for; NULL when keys are exact (PCs). */
typedef bool (*u64map_eq_fn)(void *ctx, uint32_t val);

void u64map__free(struct u64map *m);

/* 1 and *val when found, 0 when not. */
int u64map__get(const struct u64map *m, uint64_t key, u64map_eq_fn eq,
		void *ctx, uint32_t *val);

/* Make room for n entries in all, so that inserting them never rehashes;
 * -1 on ENOMEM. */
int u64map__reserve(struct u64map *m, size_t n);

/* Insert (key, val); the key must not be present yet. -1 on ENOMEM. */
int u64map__put(struct u64map *m, uint64_t key, uint32_t val);

/* FNV-1a of a NUL-terminated string, for string-keyed maps. */
uint64_t hash_str(const char *s);

#endif
