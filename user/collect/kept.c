/* kept.c - see kept.h. A handful to a few hundred entries: a flat array,
 * searched linearly per target of a request. */
#include <stdlib.h>

#include "collect/kept.h"
#include "profile/locmemo.h"
#include "read/stream.h"
#include "write/gzmemo.h"

struct keptentry {
	int pid;
	uint64_t start_ticks, mbuckets;
	uint64_t used; /* clock of the last request that used it */
	struct known *known;
	struct locmemo *memo;
	struct gzmemo *gz;
};

struct kept {
	struct keptentry *v;
	size_t n, cap, max_bytes;
	uint64_t clock;
};

struct kept *kept__new(size_t max_bytes)
{
	struct kept *k = calloc(1, sizeof(*k));

	if (k)
		k->max_bytes = max_bytes;
	return k;
}

static void entry_free(struct keptentry *e)
{
	known__clear(e->known);
	free(e->known);
	locmemo__clear(e->memo);
	free(e->memo);
	gzmemo__clear(e->gz);
	free(e->gz);
}

void kept__free(struct kept *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		entry_free(&k->v[i]);
	free(k->v);
	free(k);
}

/* t's entry, made when it has none; NULL when out of memory. */
static struct keptentry *entry_for(struct kept *k, const struct target *t)
{
	struct keptentry *e;

	for (size_t i = 0; i < k->n; i++) {
		e = &k->v[i];
		if (e->pid == t->pid && e->start_ticks == t->start_ticks &&
		    e->mbuckets == t->mbuckets) {
			e->used = k->clock + 1;
			return e;
		}
	}
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 16;
		void *v = realloc(k->v, cap * sizeof(*k->v));

		if (!v)
			return NULL;
		k->v = v;
		k->cap = cap;
	}
	e = &k->v[k->n];
	*e = (struct keptentry){t->pid,
				t->start_ticks,
				t->mbuckets,
				k->clock + 1,
				calloc(1, sizeof(struct known)),
				calloc(1, sizeof(struct locmemo)),
				calloc(1, sizeof(struct gzmemo))};
	if (!e->known || !e->memo || !e->gz) {
		free(e->known);
		free(e->memo);
		free(e->gz);
		return NULL;
	}
	k->n++;
	return e;
}

struct known *kept__for(struct kept *k, const struct target *t)
{
	struct keptentry *e = entry_for(k, t);

	return e ? e->known : NULL;
}

struct locmemo *kept__memo(struct kept *k, const struct target *t)
{
	struct keptentry *e = entry_for(k, t);

	return e ? e->memo : NULL;
}

struct gzmemo *kept__gzmemo(struct kept *k, const struct target *t)
{
	struct keptentry *e = entry_for(k, t);

	return e ? e->gz : NULL;
}

static size_t entry_bytes(const struct keptentry *e)
{
	const struct known *kn = e->known;

	return kn->n * sizeof(*kn->b) + kn->nwords * sizeof(*kn->words) +
	       locmemo__bytes(e->memo) + gzmemo__bytes(e->gz);
}

size_t kept__bytes(const struct kept *k)
{
	size_t total = 0;

	for (size_t i = 0; i < k->n; i++)
		total += entry_bytes(&k->v[i]);
	return total;
}

static bool gone(const struct keptentry *e)
{
	struct gh_err err;
	uint64_t ticks;

	return proc_start_time(e->pid, &ticks, &err) || ticks != e->start_ticks;
}

static int by_use(const void *a, const void *b)
{
	const struct keptentry *x = a, *y = b;

	return x->used < y->used ? 1 : x->used > y->used ? -1 : 0;
}

void kept__trim(struct kept *k)
{
	size_t n = 0, total = 0, bytes;

	k->clock++;
	/* Most recently used first: the bound keeps those. (None kept yet:
	 * no array, which qsort may not be given even for 0 elements.) */
	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), by_use);
	for (size_t i = 0; i < k->n; i++) {
		bytes = entry_bytes(&k->v[i]);
		if (gone(&k->v[i]) || total + bytes > k->max_bytes) {
			entry_free(&k->v[i]);
			continue;
		}
		total += bytes;
		k->v[n++] = k->v[i];
	}
	k->n = n;
}
