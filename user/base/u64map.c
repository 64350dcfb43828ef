/* u64map.c - open addressing with linear probing over 64-bit keys; see
 * u64map.h. Load factor stays under 1/2, so probes stay short. */
#include <stdint.h>
#include <stdlib.h>

#include "base/u64map.h"

/* Keys are stored +0 → 1 remapped: slot key 0 means empty. */
static uint64_t slot_key(uint64_t key)
{
	return key ? key : 1;
}

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

void u64map__free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}

int u64map__get(const struct u64map *m, uint64_t key, u64map_eq_fn eq,
		void *ctx, uint32_t *val)
{
	size_t i;

	if (!m->cap)
		return 0;
	key = slot_key(key);
	for (i = slot_of(key, m->cap); m->keys[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key && (!eq || eq(ctx, m->vals[i]))) {
			*val = m->vals[i];
			return 1;
		}
	}
	return 0;
}

static void insert(struct u64map *m, uint64_t key, uint32_t val)
{
	size_t i = slot_of(key, m->cap);

	while (m->keys[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
}

/* Move m's entries to a table of cap slots (a power of two). */
static int rehash(struct u64map *m, size_t cap)
{
	struct u64map nm = {.cap = cap};
	size_t i;

	nm.keys = calloc(nm.cap, sizeof(*nm.keys));
	nm.vals = calloc(nm.cap, sizeof(*nm.vals));
	if (!nm.keys || !nm.vals) {
		u64map__free(&nm);
		return -1;
	}
	for (i = 0; i < m->cap; i++)
		if (m->keys[i])
			insert(&nm, m->keys[i], m->vals[i]);
	u64map__free(m);
	*m = nm;
	return 0;
}

int u64map__reserve(struct u64map *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 1024;

	while (n * 2 > cap) {
		if (cap > SIZE_MAX / 4)
			return -1;
		cap *= 2;
	}
	return cap == m->cap ? 0 : rehash(m, cap);
}

int u64map__put(struct u64map *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap && rehash(m, m->cap ? m->cap * 2 : 1024))
		return -1;
	insert(m, slot_key(key), val);
	return 0;
}

uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}
