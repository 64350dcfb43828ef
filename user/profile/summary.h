/* summary.h - what a glance at a profile needs, gathered while its samples
 * are built (so that nothing has to keep them): each value's sum, go tool
 * pprof's "total", and the allocation site holding the most in-use bytes.
 * A sweep ranks processes by these; metrics export them. */
#ifndef GH_PROFILE_SUMMARY_H
#define GH_PROFILE_SUMMARY_H

#include "base/u64map.h"
#include "goheap.h"

struct summary_site;

struct summary {
	int64_t total[GH_NVALUES];
	struct u64map index; /* hash of a site's name -> position in sites */
	struct summary_site *sites;
	size_t n, cap;
	/* per function index of the profile: 1 + its site, 0 not yet met
	 * (a function's name is formatted and looked up once) */
	uint32_t *by_func;
	size_t nby_func;
	/* per function index: 1 the runtime's, 2 not, 0 not asked yet */
	uint8_t *rt;
	size_t nrt;
	bool failed; /* out of memory: no top site */
};

/* The frame that is s's site: the index in s->locs of its location, and
 * of its line there (UINT32_MAX: a location without lines, named by its
 * PC); false for an empty stack. */
bool summary_site_frame(const struct gh_profile *p, const struct gh_sample *s,
			uint32_t *loc, uint32_t *line);
/* The site's name: its function, or its PC ("0x4a1b2c"); false for an
 * empty stack. */
bool summary_site(const struct gh_profile *p, const struct gh_sample *s,
		  char *name, size_t size);

/* One sample of p (whose tables hold everything s refers to). */
void summary__add(struct summary *m, const struct gh_profile *p,
		  const struct gh_sample *s);
/* The build starts over. */
void summary__reset(struct summary *m);
/* Into p's header: total, top_site, top_site_bytes. */
void summary__fill(const struct summary *m, struct gh_profile *p);
void summary__free(struct summary *m);
/* Into p's header, from each of the samples it holds (a profile built
 * whole: read back, merged): total, top_site, top_site_bytes. */
void summary_of(struct gh_profile *p);

#endif
