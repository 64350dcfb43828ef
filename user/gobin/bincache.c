/* bincache.c - see bincache.h. Entries live in an array, found through a
 * hash of the file identity; past its bound the cache drops the least
 * recently used quarter at once and re-indexes (parses are what cost, not
 * this). A dropped binary lives on until its last reference goes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/fileid.h"
#include "base/u64map.h"
#include "gobin/bincache.h"

/* Negative entries are small; this many bounds a sweep of a busy host. */
#define MAX_NEGATIVE 4096

struct entry {
	struct fileid key;
	struct binary *bin; /* NULL: a negative entry, err says why */
	struct gh_err err;
	uint64_t used; /* clock of the last lookup */
};

struct bincache {
	struct entry *v;
	size_t n, cap;
	struct u64map index; /* key hash -> position in v */
	size_t max_pos, npos;
	uint64_t clock;
	size_t parses;
	size_t hits; /* lookups the cache answered */
};

struct bincache_probe {
	const struct bincache *c;
	const struct fileid *k;
};

static bool key_eq(void *ctx, uint32_t val)
{
	const struct bincache_probe *p = ctx;

	return fileid__eq(&p->c->v[val].key, p->k);
}

struct bincache *bincache__new(size_t max_binaries)
{
	struct bincache *c = calloc(1, sizeof(*c));

	if (c)
		c->max_pos = max_binaries ? max_binaries : 1;
	return c;
}

static void binary__free(struct binary *b)
{
	if (b->gobin)
		symcache__free(&b->sc);
	gobin__free(b->gobin);
	free(b);
}

void binary__put(struct binary *b)
{
	if (b && !--b->refs && !b->cached)
		binary__free(b);
}

/* Out of the cache; freed now, or by the last binary__put. */
static void drop(struct entry *e)
{
	if (!e->bin)
		return;
	e->bin->cached = false;
	if (!e->bin->refs)
		binary__free(e->bin);
}

void bincache__free(struct bincache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		drop(&c->v[i]);
	free(c->v);
	u64map__free(&c->index);
	free(c);
}

size_t bincache__parses(const struct bincache *c)
{
	return c->parses;
}

size_t bincache__hits(const struct bincache *c)
{
	return c->hits;
}

static int by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->used < y->used ? 1 : x->used > y->used ? -1 : 0;
}

/* Keep the most recently used three quarters of each kind, re-index. */
static int trim(struct bincache *c)
{
	size_t keep_pos = c->max_pos - c->max_pos / 4;
	size_t keep_neg = MAX_NEGATIVE - MAX_NEGATIVE / 4, pos = 0, neg = 0, n;

	qsort(c->v, c->n, sizeof(*c->v), by_use);
	for (size_t i = n = 0; i < c->n; i++) {
		bool keep = c->v[i].bin ? pos++ < keep_pos : neg++ < keep_neg;

		if (keep)
			c->v[n++] = c->v[i];
		else
			drop(&c->v[i]);
	}
	c->n = n;
	c->npos = pos < keep_pos ? pos : keep_pos;
	u64map__free(&c->index);
	for (size_t i = 0; i < c->n; i++)
		if (u64map__put(&c->index, fileid__hash(&c->v[i].key),
				(uint32_t)i))
			return -1;
	return 0;
}

static int add(struct bincache *c, const struct entry *e)
{
	size_t nneg = c->n - c->npos;

	if ((e->bin && c->npos >= c->max_pos) ||
	    (!e->bin && nneg >= MAX_NEGATIVE)) {
		if (trim(c))
			return -1;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		void *v = realloc(c->v, cap * sizeof(*c->v));

		if (!v)
			return -1;
		c->v = v;
		c->cap = cap;
	}
	if (u64map__put(&c->index, fileid__hash(&e->key), (uint32_t)c->n))
		return -1;
	c->v[c->n++] = *e;
	c->npos += e->bin != NULL;
	return 0;
}

static int parse(const char *path, const char *name, struct binary **out,
		 struct gh_err *err)
{
	struct binary *b = calloc(1, sizeof(*b));

	*out = b;
	if (!b)
		return err_set(err, GH_E_FAILED, "out of memory");
	if (gobin__open(path, name, &b->gobin, err))
		return -1;
	symcache__init(&b->sc, b->gobin->pcln,
		       b->gobin->layout->hide_internal_runtime);
	return 0;
}

/* Failures that say something about the file, not about this moment. */
static bool lasting(enum gh_status code)
{
	return code == GH_E_NOTGO || code == GH_E_UNSUPPORTED;
}

int bincache__get(struct bincache *c, const char *path, const char *name,
		  struct binary **out, struct gh_err *err)
{
	struct entry e = {.used = ++c->clock};
	struct bincache_probe pr = {c, &e.key};
	struct gh_err perr = {GH_OK, ""};
	uint32_t i;

	*out = NULL;
	if (fileid__of(path, &e.key))
		return err_set(err, errno == ENOENT ? GH_E_NOPROC : GH_E_FAILED,
			       "cannot stat %s: %s", name, strerror(errno));
	if (u64map__get(&c->index, fileid__hash(&e.key), key_eq, &pr, &i)) {
		c->hits++;
		c->v[i].used = e.used;
		if (!c->v[i].bin) {
			if (err)
				*err = c->v[i].err;
			return -1;
		}
		c->v[i].bin->refs++;
		*out = c->v[i].bin;
		return 0;
	}
	c->parses++;
	if (parse(path, name, &e.bin, &perr)) {
		if (e.bin)
			binary__free(e.bin);
		e.bin = NULL;
		e.err = perr;
		if (err)
			*err = perr;
		if (lasting(perr.code))
			add(c, &e);
		return -1;
	}
	e.bin->refs = 1;
	e.bin->cached = add(c, &e) == 0;
	*out = e.bin;
	return 0;
}
