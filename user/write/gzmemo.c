/* gzmemo.c - see gzmemo.h. */
#include <stdlib.h>
#include <string.h>

#include "write/gzmemo.h"

void gzmemo__clear(struct gzmemo *m)
{
	free(m->gz);
	free(m->v);
	u64map__free(&m->index);
	memset(m, 0, sizeof(*m));
}

size_t gzmemo__bytes(const struct gzmemo *m)
{
	return m->gz_len + m->n * sizeof(*m->v) +
	       m->index.cap * (sizeof(*m->index.keys) + sizeof(*m->index.vals));
}

long gzmemo__find(const struct gzmemo *m, const struct gzpiece *p)
{
	const struct gzpiece *q;
	uint32_t i;

	if (!p->key || !u64map__get(&m->index, p->key, NULL, NULL, &i))
		return -1;
	q = &m->v[i];
	if (q->digest != p->digest)
		return -1;
	return (long)i;
}

/* The index of v by key; -1 when out of memory. */
static int index_pieces(struct gzmemo *m)
{
	uint32_t seen;

	for (size_t i = 0; i < m->n; i++) {
		if (!m->v[i].key ||
		    u64map__get(&m->index, m->v[i].key, NULL, NULL, &seen))
			continue;
		if (u64map__put(&m->index, m->v[i].key, (uint32_t)i))
			return -1;
	}
	return 0;
}

int gzmemo__replace(struct gzmemo *m, struct gzpiece *v, size_t n,
		    const uint8_t *gz)
{
	size_t gz0 = n ? v[0].gz_off : 0;
	size_t gz_len = n ? v[n - 1].gz_off + v[n - 1].gz_len - gz0 : 0;

	gzmemo__clear(m);
	m->primed = true;
	m->v = v;
	m->n = n;
	m->gz = malloc(gz_len ? gz_len : 1);
	if (!m->gz || index_pieces(m)) {
		gzmemo__clear(m);
		return -1;
	}
	memcpy(m->gz, gz + gz0, gz_len);
	m->gz_len = gz_len;
	for (size_t i = 0; i < n; i++)
		m->v[i].gz_off -= gz0;
	return 0;
}
