/* refs.c - the index checks of refs.h. */
#include "profile/refs.h"

bool refs_lines_ok(const struct gh_profile *p, const struct gh_location *l)
{
	for (uint32_t j = 0; j < l->nlines; j++)
		if (l->lines[j].function >= p->nfunctions)
			return false;
	return true;
}

bool refs_location_ok(const struct gh_profile *p, const struct gh_location *l)
{
	return l->mapping <= p->nmappings && refs_lines_ok(p, l);
}

bool refs_ok(const struct gh_profile *p)
{
	for (size_t i = 0; i < p->nsamples; i++)
		for (uint32_t j = 0; j < p->samples[i].nlocs; j++)
			if (p->samples[i].locs[j] >= p->nlocations)
				return false;
	for (size_t i = 0; i < p->nlocations; i++)
		if (!refs_location_ok(p, &p->locations[i]))
			return false;
	return true;
}
