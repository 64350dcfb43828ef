/* hashmap.h - an open-addressing map from 64-bit keys to 32-bit values,
 * used to cache per-PC symbolization, locations by first PC and functions
 * by name hash. Keys equal to 0 are remapped internally; a caller whose
 * keys are hashes resolves collisions with the eq callback. */
#ifndef GH_HASHMAP_H
#define GH_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gh_map {
	uint64_t *keys; /* 0 = empty slot */
	uint32_t *vals;
	size_t cap; /* power of two */
	size_t n;
};

/* eq(ctx, val) tells whether the entry holding val really is the one
 * looked for; NULL when keys are exact (PCs). */
typedef bool (*gh_map_eq_fn)(void *ctx, uint32_t val);

void gh_map_free(struct gh_map *m);

/* 1 and *val when found, 0 when not. */
int gh_map_get(const struct gh_map *m, uint64_t key, gh_map_eq_fn eq, void *ctx,
	       uint32_t *val);

/* Insert (key, val); the key must not be present yet. -1 on ENOMEM. */
int gh_map_put(struct gh_map *m, uint64_t key, uint32_t val);

/* FNV-1a of a NUL-terminated string, for string-keyed maps. */
uint64_t gh_hash_str(const char *s);

#endif
