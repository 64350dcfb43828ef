/* locmemo.c - see locmemo.h. */
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "profile/locmemo.h"

static void free_tables(struct gh_location *l, size_t nl, struct gh_function *f,
			size_t nf)
{
	for (size_t i = 0; i < nl; i++)
		free(l[i].lines);
	for (size_t i = 0; i < nf; i++) {
		free(f[i].name);
		free(f[i].filename);
	}
	free(l);
	free(f);
}

static void free_maps(struct locmemo *m)
{
	for (size_t i = 0; i < m->nmaps; i++) {
		free(m->maps[i].file);
		free(m->maps[i].build_id);
	}
	free(m->maps);
	m->maps = NULL;
	m->nmaps = 0;
}

static void samples_free(struct memosamples *s)
{
	bigmem_free(s->addr, s->addr_cap * sizeof(*s->addr));
	bigmem_free(s->off, s->off_cap * sizeof(*s->off));
	bigmem_free(s->ids, s->ids_cap * sizeof(*s->ids));
	memset(s, 0, sizeof(*s));
}

/* Forget the build (the samples' arrays stay, for the next). */
static void forget(struct locmemo *m)
{
	free_tables(m->locs, m->nlocs, m->funcs, m->nfuncs);
	m->locs = NULL;
	m->funcs = NULL;
	m->nlocs = m->nfuncs = m->loc_cap = m->func_cap = 0;
	free_maps(m);
	locstate__free(&m->st);
	m->s.n = m->s.nids = 0;
	m->valid = false;
}

void locmemo__clear(struct locmemo *m)
{
	forget(m);
	samples_free(&m->s);
	samples_free(&m->next);
	memset(m, 0, sizeof(*m));
}

static size_t samples_bytes(const struct memosamples *s)
{
	return s->addr_cap * sizeof(*s->addr) + s->off_cap * sizeof(*s->off) +
	       s->ids_cap * sizeof(*s->ids);
}

size_t locmemo__bytes(const struct locmemo *m)
{
	size_t b = samples_bytes(&m->s) + samples_bytes(&m->next) +
		   m->st.pcs_cap * sizeof(*m->st.pcs) + m->st.result_cap +
		   m->st.funcs.cap * (sizeof(uint64_t) + sizeof(uint32_t)) +
		   m->loc_cap * sizeof(*m->locs) +
		   m->func_cap * sizeof(*m->funcs);

	for (size_t i = 0; i < m->nlocs; i++)
		b += m->locs[i].nlines * sizeof(*m->locs[i].lines);
	return b;
}

static bool same_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Whether m holds a build against exactly p's mappings. */
static bool usable(const struct locmemo *m, const struct gh_profile *p)
{
	if (!m->valid || m->nmaps != p->nmappings)
		return false;
	for (size_t i = 0; i < m->nmaps; i++) {
		const struct gh_mapping *a = &m->maps[i], *b = &p->mappings[i];

		if (a->start != b->start || a->limit != b->limit ||
		    a->offset != b->offset || !same_str(a->file, b->file) ||
		    !same_str(a->build_id, b->build_id))
			return false;
	}
	return true;
}

static int copy_location(struct gh_location *to, const struct gh_location *l)
{
	*to = *l;
	to->lines = malloc((l->nlines ? l->nlines : 1) * sizeof(*l->lines));
	if (!to->lines)
		return -1;
	memcpy(to->lines, l->lines, l->nlines * sizeof(*l->lines));
	return 0;
}

static int copy_function(struct gh_function *to, const struct gh_function *f)
{
	*to = *f;
	to->name = strdup(f->name);
	to->filename = strdup(f->filename);
	if (to->name && to->filename)
		return 0;
	free(to->name);
	free(to->filename);
	return -1;
}

/* m's tables: copies of p's. -1 when out of memory (m has none then). */
static int copy_tables(struct locmemo *m, const struct gh_profile *p)
{
	size_t i = 0, j = 0;

	m->loc_cap = p->nlocations ? p->nlocations : 1;
	m->func_cap = p->nfunctions ? p->nfunctions : 1;
	m->locs = malloc(m->loc_cap * sizeof(*m->locs));
	m->funcs = malloc(m->func_cap * sizeof(*m->funcs));
	if (m->locs && m->funcs) {
		for (; i < p->nlocations &&
		       !copy_location(&m->locs[i], &p->locations[i]);
		     i++)
			;
		for (; j < p->nfunctions &&
		       !copy_function(&m->funcs[j], &p->functions[j]);
		     j++)
			;
	}
	m->nlocs = i;
	m->nfuncs = j;
	return m->locs && m->funcs && i == p->nlocations && j == p->nfunctions
		       ? 0
		       : -1;
}

static int copy_maps(struct locmemo *m, const struct gh_profile *p)
{
	m->maps = calloc(p->nmappings ? p->nmappings : 1, sizeof(*m->maps));
	if (!m->maps)
		return -1;
	for (; m->nmaps < p->nmappings; m->nmaps++) {
		struct gh_mapping *to = &m->maps[m->nmaps];

		*to = p->mappings[m->nmaps];
		to->file = strdup(to->file ? to->file : "");
		to->build_id = strdup(to->build_id ? to->build_id : "");
		if (!to->file || !to->build_id) {
			m->nmaps++;
			return -1;
		}
	}
	return 0;
}

/* Room in s for n more samples holding k more ids. */
static int room(struct memosamples *s, size_t n, size_t k)
{
	if (s->nids + k > UINT32_MAX ||
	    bigmem_reserve((void **)&s->addr, &s->addr_cap, s->n + n,
			   sizeof(*s->addr)))
		return -1;
	if (bigmem_reserve((void **)&s->off, &s->off_cap, s->n + n + 1,
			   sizeof(*s->off)))
		return -1;
	return bigmem_reserve((void **)&s->ids, &s->ids_cap, s->nids + k,
			      sizeof(*s->ids));
}

/* Append a sample to this profile's: bucket addr, ids[0..n). */
static void stage(struct memouse *u, uint64_t addr, const uint32_t *ids,
		  uint32_t n)
{
	struct memosamples *s = &u->m->next;

	if (u->stage_fail || room(s, 1, n)) {
		u->stage_fail = true;
		return;
	}
	s->addr[s->n] = addr;
	s->off[s->n] = (uint32_t)s->nids; /* set already but for the first */
	memcpy(s->ids + s->nids, ids, n * sizeof(*ids));
	s->nids += n;
	s->off[++s->n] = (uint32_t)s->nids;
}

/* This profile's samples so far are the memo's first k: staged, so that
 * the ones that follow can differ. */
static void stage_from(struct memouse *u, size_t k)
{
	const struct memosamples *from = &u->m->s;
	struct memosamples *s = &u->m->next;
	size_t nids = k ? from->off[k] : 0;

	u->staged = true;
	s->n = s->nids = 0;
	if (room(s, k, nids)) {
		u->stage_fail = true;
		return;
	}
	s->off[0] = 0;
	if (k) {
		memcpy(s->addr, from->addr, k * sizeof(*s->addr));
		memcpy(s->off, from->off, (k + 1) * sizeof(*s->off));
		memcpy(s->ids, from->ids, nids * sizeof(*s->ids));
	}
	s->n = k;
	s->nids = nids;
}

/* Lend m's tables to p and its state to b. */
static void lend(struct locmemo *m, struct gh_profile *p, struct locbuilder *b)
{
	p->locations = m->locs;
	p->nlocations = m->nlocs;
	p->functions = m->funcs;
	p->nfunctions = m->nfuncs;
	m->locs = NULL;
	m->funcs = NULL;
	m->nlocs = m->nfuncs = 0;
	locbuilder__resume(b, &m->st, m->loc_cap, m->func_cap);
}

/* Take back what p and b were lent, grown by what they built. */
static void take_back(struct locmemo *m, struct gh_profile *p,
		      struct locbuilder *b)
{
	m->locs = p->locations;
	m->nlocs = p->nlocations;
	m->loc_cap = b->loc_cap;
	m->funcs = p->functions;
	m->nfuncs = p->nfunctions;
	m->func_cap = b->func_cap;
	p->locations = NULL;
	p->functions = NULL;
	p->nlocations = p->nfunctions = 0;
	locbuilder__take(b, &m->st);
}

void memouse__start(struct memouse *u, struct gh_profile *p,
		    struct locbuilder *b)
{
	struct locmemo *m = u->m;

	u->mode = MEMO_OFF;
	u->next = 0;
	u->staged = u->stage_fail = false;
	if (!m || !m->primed)
		return;
	if (!usable(m, p)) {
		forget(m);
		u->mode = MEMO_RECORD;
		u->staged = true;
		m->next.n = m->next.nids = 0;
		return;
	}
	u->mode = MEMO_FOLLOW;
	lend(m, p, b);
}

int memouse__take(struct memouse *u, uint64_t addr, uint32_t **ids, uint32_t *n)
{
	const struct memosamples *s;
	size_t j = u->next;

	if (u->mode != MEMO_FOLLOW)
		return 0;
	s = &u->m->s;
	if (j < s->n && s->addr[j] == addr) {
		*n = s->off[j + 1] - s->off[j];
		*ids = s->ids + s->off[j];
		u->next++;
		if (u->staged)
			stage(u, addr, *ids, *n);
		return 1;
	}
	/* A bucket the memo does not have here: built, and from now on
	 * this profile's samples are staged. */
	if (!u->staged)
		stage_from(u, j);
	return 0;
}

void memouse__built(struct memouse *u, uint64_t addr, const uint32_t *ids,
		    uint32_t n)
{
	if (u->mode != MEMO_OFF && u->staged)
		stage(u, addr, ids, n);
}

/* What p and b hold becomes the memo's: p's tables copied, b's state,
 * and the samples staged unless the memo's are still this profile's. */
static void keep(struct memouse *u, const struct gh_profile *p,
		 struct locbuilder *b)
{
	struct locmemo *m = u->m;
	struct memosamples t;

	if (u->stage_fail || copy_tables(m, p) ||
	    (!m->maps && copy_maps(m, p))) {
		locmemo__clear(m);
		return;
	}
	locbuilder__take(b, &m->st);
	if (u->staged) {
		t = m->s;
		m->s = m->next;
		m->next = t;
	}
	m->valid = true;
}

int memouse__finish(struct memouse *u, struct gh_profile *p,
		    struct locbuilder *b)
{
	struct locmemo *m = u->m;

	if (locbuilder__finish(b))
		return -1;
	if (!m)
		return 0;
	if (u->mode != MEMO_OFF)
		keep(u, p, b);
	m->primed = true;
	u->mode = MEMO_OFF;
	return 0;
}

void memouse__drop(struct memouse *u, struct gh_profile *p,
		   struct locbuilder *b)
{
	if (u->mode == MEMO_FOLLOW && p)
		take_back(u->m, p, b);
	u->mode = MEMO_OFF;
}
