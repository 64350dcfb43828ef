/* profile.c - freeing a gh_profile, whoever built it. */
#include <stdlib.h>

#include "goheap.h"
#include "write/pprof.h"

void gh_profile__free(struct gh_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nsamples; i++)
		free(p->samples[i].locs);
	for (i = 0; i < p->nlocations; i++)
		free(p->locations[i].lines);
	for (i = 0; i < p->nfunctions; i++) {
		free(p->functions[i].name);
		free(p->functions[i].filename);
	}
	for (i = 0; i < p->nmappings; i++) {
		free(p->mappings[i].file);
		free(p->mappings[i].build_id);
	}
	pprof_enc__free(p->encoded);
	free(p->samples);
	free(p->locations);
	free(p->functions);
	free(p->mappings);
	free(p);
}
