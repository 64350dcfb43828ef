/* values.c - runtime/pprof's names of the sample types of each profile
 * kind, and the kinds' names: the one table every format and front end
 * spells them from. */
#include <string.h>

#include "goheap.h"
#include "profile/sink.h"

static const char *const names[GH_NVALUES][2] = {
	[GH_ALLOC_OBJECTS] = {"alloc_objects", "count"},
	[GH_ALLOC_SPACE] = {"alloc_space", "bytes"},
	[GH_INUSE_OBJECTS] = {"inuse_objects", "count"},
	[GH_INUSE_SPACE] = {"inuse_space", "bytes"},
};

const char *gh_value__name(enum gh_value v)
{
	return (unsigned)v < GH_NVALUES ? names[v][0] : NULL;
}

const char *gh_value__unit(enum gh_value v)
{
	return (unsigned)v < GH_NVALUES ? names[v][1] : NULL;
}

int gh_value__parse(const char *name)
{
	for (int i = 0; name && i < GH_NVALUES; i++)
		if (strcmp(name, names[i][0]) == 0)
			return i;
	return -1;
}

/* printCountCycleProfile's, for the block and mutex profiles. */
static const char *const contention_names[2][2] = {
	[GH_CONTENTIONS] = {"contentions", "count"},
	[GH_DELAY] = {"delay", "nanoseconds"},
};

const char *profile__value_name(enum gh_kind k, int v, bool unit)
{
	if (k == GH_KIND_BLOCK || k == GH_KIND_MUTEX)
		return v >= 0 && v < 2 ? contention_names[v][unit] : NULL;
	/* printCountProfile's one value: the profile's name, a count */
	if (k == GH_KIND_GOROUTINE)
		return v == 0 ? (unit ? "count" : "goroutine") : NULL;
	return unit ? gh_value__unit(v) : gh_value__name(v);
}

int profile__nvalues(enum gh_kind k)
{
	if (k == GH_KIND_GOROUTINE)
		return 1;
	return k == GH_KIND_BLOCK || k == GH_KIND_MUTEX ? 2 : GH_NVALUES;
}

static const char *const kind_names[] = {
	[GH_KIND_HEAP] = "heap",
	[GH_KIND_BLOCK] = "block",
	[GH_KIND_MUTEX] = "mutex",
	[GH_KIND_GOROUTINE] = "goroutine",
};
#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

const char *gh_kind__name(enum gh_kind k)
{
	return (unsigned)k < NKINDS ? kind_names[k] : NULL;
}

int gh_kind__parse(const char *name)
{
	for (size_t i = 0; name && i < NKINDS; i++)
		if (strcmp(name, kind_names[i]) == 0)
			return (int)i;
	return -1;
}

enum gh_kind gh_profile__kind(const struct gh_profile *p)
{
	return p && p->x ? p->x->kind : GH_KIND_HEAP;
}
