/* values.c - runtime/pprof's names of the heap profile's sample types,
 * the one table every format and front end spells them from. */
#include <string.h>

#include "goheap.h"

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
