/* strtab.c - see strtab.h. */
#include <stdlib.h>
#include <string.h>

#include "write/strtab.h"

struct strtab_probe {
	const struct strtab *t;
	const char *s;
};

static bool strtab_eq(void *ctx, uint32_t val)
{
	const struct strtab_probe *p = ctx;

	return strcmp(p->t->s[val], p->s) == 0;
}

int64_t strtab__index(struct strtab *t, const char *s)
{
	struct strtab_probe probe = {t, s ? s : ""};
	uint64_t h = hash_str(probe.s);
	const char **grown;
	uint32_t val;

	if (u64map__get(&t->index, h, strtab_eq, &probe, &val))
		return val;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;

		if (cap > UINT32_MAX)
			goto fail;
		grown = realloc(t->s, cap * sizeof(*t->s));
		if (!grown)
			goto fail;
		t->s = grown;
		t->cap = cap;
	}
	if (u64map__put(&t->index, h, (uint32_t)t->n))
		goto fail;
	t->s[t->n] = probe.s;
	return (int64_t)t->n++;
fail:
	t->failed = true;
	return 0;
}

int64_t strtab__index_copy(struct strtab *t, const char *s)
{
	size_t n = t->n;
	char *copy;
	int64_t i;

	if (t->nowned == sizeof(t->owned) / sizeof(t->owned[0]) ||
	    !(copy = strdup(s))) {
		t->failed = true;
		return 0;
	}
	i = strtab__index(t, copy);
	if (t->n > n)
		t->owned[t->nowned++] = copy;
	else
		free(copy);
	return i;
}

void strtab__free(struct strtab *t)
{
	for (size_t i = 0; i < t->nowned; i++)
		free(t->owned[i]);
	free(t->s);
	u64map__free(&t->index);
	memset(t, 0, sizeof(*t));
}
