/* buildids.c - see buildids.h. A flat table searched through a hash of
 * the identity; past its bound it is emptied and starts again (a host has
 * a few thousand distinct mapped files at most). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileid.h"
#include "base/u64map.h"
#include "gobin/buildids.h"
#include "gobin/elffile.h"

#define MAX_FILES 8192

struct identry {
	struct fileid key;
	char *hex;
};

struct buildids {
	pthread_mutex_t mu;
	struct identry *v;
	size_t n, cap;
	struct u64map index;
};

struct buildids *buildids__new(void)
{
	struct buildids *c = calloc(1, sizeof(*c));

	if (c)
		pthread_mutex_init(&c->mu, NULL);
	return c;
}

static void clear(struct buildids *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].hex);
	c->n = 0;
	u64map__free(&c->index);
}

void buildids__free(struct buildids *c)
{
	if (!c)
		return;
	clear(c);
	free(c->v);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

struct buildid_probe {
	const struct buildids *c;
	const struct fileid *k;
};

static bool key_eq(void *ctx, uint32_t val)
{
	const struct buildid_probe *p = ctx;

	return fileid__eq(&p->c->v[val].key, p->k);
}

/* The build ID as runtime/pprof's elfBuildID finds it. */
static char *read_build_id(const char *path)
{
	char hex[128] = "";
	struct elffile *e;
	struct gh_err err;

	if (!elffile__open(path, NULL, &e, &err)) {
		elffile__build_id(e, hex, sizeof(hex));
		elffile__close(e);
	}
	return strdup(hex);
}

/* Remember k's build ID (a failure to only costs a later re-read). */
static void remember(struct buildids *c, const struct fileid *k,
		     const char *hex)
{
	struct identry e = {*k, strdup(hex)};

	if (!e.hex)
		return;
	if (c->n == MAX_FILES)
		clear(c);
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		void *v = realloc(c->v, cap * sizeof(*c->v));

		if (!v) {
			free(e.hex);
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	if (u64map__put(&c->index, fileid__hash(k), (uint32_t)c->n)) {
		free(e.hex);
		return;
	}
	c->v[c->n++] = e;
}

char *buildids__get(struct buildids *c, const char *path)
{
	struct fileid k;
	struct buildid_probe pr = {c, &k};
	uint32_t i;
	char *hex;

	if (!c || fileid__of(path, &k))
		return read_build_id(path);
	pthread_mutex_lock(&c->mu);
	if (u64map__get(&c->index, fileid__hash(&k), key_eq, &pr, &i)) {
		hex = strdup(c->v[i].hex);
		pthread_mutex_unlock(&c->mu);
		return hex;
	}
	pthread_mutex_unlock(&c->mu);
	hex = read_build_id(path);
	if (hex) {
		pthread_mutex_lock(&c->mu);
		remember(c, &k, hex);
		pthread_mutex_unlock(&c->mu);
	}
	return hex;
}
