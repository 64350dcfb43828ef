/* gintern.c - the snapshot's stacks and label sets, each kept once (see
 * gintern.h). PC arrays go into chunks of CHUNK bytes (a stack of the
 * release's depth at most, 128 frames or so, fits many times), found
 * again by a hash of their words; label sets are found by their
 * labelMap.String() text, which names every pair, so two sets with the
 * same text have the same header and pairs too. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "goroutine/gintern.h"

#define CHUNK (64u << 10)

struct gchunk {
	struct gchunk *next;
	size_t used, cap; /* in words */
	uint64_t w[];
};

static uint64_t hash_pcs(const uint64_t *pcs, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;

	for (size_t i = 0; i < n; i++) {
		h ^= pcs[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

struct stk_probe {
	const struct gintern *in;
	const uint64_t *pcs;
	size_t n;
};

static bool stk_eq(void *ctx, uint32_t v)
{
	const struct stk_probe *p = ctx;
	const struct gstk_ent *e = &p->in->stk[v];

	return e->n == p->n && !memcmp(e->pcs, p->pcs, p->n * sizeof(*p->pcs));
}

/* Room for n words, in the newest chunk or a new one. */
static uint64_t *chunk_take(struct gintern *in, size_t n)
{
	struct gchunk *c = in->chunks;

	if (!c || c->cap - c->used < n) {
		size_t cap = CHUNK / sizeof(uint64_t);

		if (cap < n)
			cap = n;
		c = malloc(sizeof(*c) + cap * sizeof(uint64_t));
		if (!c)
			return NULL;
		c->next = in->chunks;
		c->used = 0;
		c->cap = cap;
		in->chunks = c;
		in->bytes += sizeof(*c) + cap * sizeof(uint64_t);
	}
	c->used += n;
	return &c->w[c->used - n];
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? 2 * *cap : 256;
	void *nv;

	if (n < *cap)
		return 0;
	if (ncap > UINT32_MAX)
		return errno = ENOMEM, -1; /* the maps' values are 32 bits */
	nv = realloc(*v, ncap * size);
	if (!nv)
		return errno = ENOMEM, -1;
	*v = nv;
	*cap = ncap;
	return 0;
}

uint64_t *gintern__pcs(struct gintern *in, const uint64_t *pcs, size_t n)
{
	struct stk_probe p = {in, pcs, n};
	uint64_t h = hash_pcs(pcs, n);
	uint64_t *w;
	uint32_t v;

	if (u64map__get(&in->stk_map, h, stk_eq, &p, &v) == 1)
		return in->stk[v].pcs;
	if (grow((void **)&in->stk, &in->capstk, in->nstk, sizeof(*in->stk)))
		return NULL;
	/* One word at least: an empty stack has a pointer of its own. */
	w = chunk_take(in, n ? n : 1);
	if (!w || u64map__put(&in->stk_map, h, (uint32_t)in->nstk)) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(w, pcs, n * sizeof(*pcs));
	in->stk[in->nstk++] = (struct gstk_ent){w, n};
	return w;
}

struct lab_probe {
	const struct gintern *in;
	const char *labels;
};

static bool lab_eq(void *ctx, uint32_t v)
{
	const struct lab_probe *p = ctx;

	return !strcmp(p->in->lab[v].labels, p->labels);
}

static void lab_free(char *labels, char *header, char **kv, size_t nkv)
{
	for (size_t i = 0; kv && i < 2 * nkv; i++)
		free(kv[i]);
	free(kv);
	free(labels);
	free(header);
}

int gintern__labels(struct gintern *in, char **labels, char **header,
		    char ***kv, size_t *nkv)
{
	struct lab_probe p = {in, *labels};
	uint64_t h = hash_str(*labels);
	struct glab_ent *e;
	uint32_t v;

	if (u64map__get(&in->lab_map, h, lab_eq, &p, &v) == 1) {
		lab_free(*labels, *header, *kv, *nkv);
		e = &in->lab[v];
	} else if (grow((void **)&in->lab, &in->caplab, in->nlab,
			sizeof(*in->lab)) ||
		   u64map__put(&in->lab_map, h, (uint32_t)in->nlab)) {
		lab_free(*labels, *header, *kv, *nkv);
		*labels = *header = NULL;
		*kv = NULL;
		*nkv = 0;
		return errno = ENOMEM, -1;
	} else {
		e = &in->lab[in->nlab++];
		*e = (struct glab_ent){*labels, *header, *kv, *nkv};
		in->bytes += strlen(*labels) + 1;
	}
	*labels = e->labels;
	*header = e->header;
	*kv = e->kv;
	*nkv = e->nkv;
	return 0;
}

void gintern__free(struct gintern *in)
{
	while (in->chunks) {
		struct gchunk *c = in->chunks;

		in->chunks = c->next;
		free(c);
	}
	for (size_t i = 0; i < in->nlab; i++)
		lab_free(in->lab[i].labels, in->lab[i].header, in->lab[i].kv,
			 in->lab[i].nkv);
	free(in->stk);
	free(in->lab);
	u64map__free(&in->stk_map);
	u64map__free(&in->lab_map);
	memset(in, 0, sizeof(*in));
}
