/* labelset.c - see labelset.h. sampleKey (google/pprof merge.go) joins a
 * sample's labels sorted, so their order never tells two keys apart. */
#include <stdlib.h>
#include <string.h>

#include "base/u64map.h"
#include "profile/labelset.h"
#include "profile/sink.h"

struct labelset labelset_of(const struct gh_profile *p,
			    const struct gh_sample *s)
{
	struct labelset l;

	l.kv = profile__labels_of(p, s, &l.n);
	return l;
}

/* A set's keys are distinct (a labelMap's): each of a's pairs found in
 * b, of as many pairs, is b. */
bool labelset__eq(struct labelset a, struct labelset b)
{
	size_t i, j;

	if (a.n != b.n)
		return false;
	for (i = 0; i < a.n; i++) {
		for (j = 0; j < b.n; j++)
			if (!strcmp(a.kv[2 * i], b.kv[2 * j]) &&
			    !strcmp(a.kv[2 * i + 1], b.kv[2 * j + 1]))
				break;
		if (j == b.n)
			return false;
	}
	return true;
}

static uint64_t pair_hash(const char *k, const char *v)
{
	uint64_t h = hash_str(k) ^ hash_str(v) * 0x9e3779b97f4a7c15ULL;

	return h ^ h >> 29;
}

/* A sum of the pairs' hashes: the same in any order. */
uint64_t labelset__hash(struct labelset l)
{
	uint64_t h = 0;

	for (size_t i = 0; i < l.n; i++)
		h += pair_hash(l.kv[2 * i], l.kv[2 * i + 1]);
	return h;
}

int labelset__copy_to(struct labelset l, struct gh_profile *p, size_t i)
{
	char **kv;

	if (!l.n)
		return 0;
	if (!(kv = calloc(2 * l.n, sizeof(*kv))))
		return -1;
	p->x->labels[i] = kv;
	p->x->nlabels[i] = l.n;
	for (size_t j = 0; j < 2 * l.n; j++)
		if (!(kv[j] = strdup(l.kv[j])))
			return -1;
	return 0;
}
