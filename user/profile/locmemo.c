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

void locmemo__clear(struct locmemo *m)
{
	free_tables(m->locs, m->nlocs, m->funcs, m->nfuncs);
	free(m->locs);
	free(m->funcs);
	free_maps(m);
	locstate__free(&m->st);
	bigmem_free(m->addr, m->addr_cap * sizeof(*m->addr));
	bigmem_free(m->off, m->off_cap * sizeof(*m->off));
	bigmem_free(m->ids, m->ids_cap * sizeof(*m->ids));
	bigmem_free(m->marks, m->marks_cap * sizeof(*m->marks));
	memset(m, 0, sizeof(*m));
}

size_t locmemo__bytes(const struct locmemo *m)
{
	size_t b = m->addr_cap * sizeof(*m->addr) +
		   m->off_cap * sizeof(*m->off) + m->ids_cap * sizeof(*m->ids) +
		   m->marks_cap * sizeof(*m->marks) +
		   m->st.pcs_cap * sizeof(*m->st.pcs) + m->st.result_cap +
		   m->st.funcs.cap * (sizeof(uint64_t) + sizeof(uint32_t)) +
		   m->nlocs * sizeof(*m->locs) + m->nfuncs * sizeof(*m->funcs);

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

/* Sample i's location ids, when m has a sample i of bucket addr. */
static uint32_t *ids_of(struct locmemo *m, size_t i, uint64_t addr, uint32_t *n)
{
	if (i >= m->n || m->addr[i] != addr)
		return NULL;
	*n = m->off[i + 1] - m->off[i];
	return m->ids + m->off[i];
}

/* The tables' sizes after samples [0, i). */
static struct memomark mark_at(const struct locmemo *m, size_t i)
{
	size_t lo = 0, hi = m->nmarks;

	/* the last mark of a sample before i */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->marks[mid].i < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? m->marks[lo - 1] : (struct memomark){0, 0, 0};
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

/* Copies of l[0..nl) and f[0..nf) in arrays of at least 1024 (the
 * builder grows them by doubling). */
static int copy_tables(const struct gh_location *l, size_t nl,
		       const struct gh_function *f, size_t nf,
		       struct gh_location **tl, size_t *lcap,
		       struct gh_function **tf, size_t *fcap)
{
	size_t i = 0, j = 0;

	*lcap = nl > 1024 ? nl : 1024;
	*fcap = nf > 1024 ? nf : 1024;
	*tl = malloc(*lcap * sizeof(**tl));
	*tf = malloc(*fcap * sizeof(**tf));
	if (*tl && *tf) {
		for (; i < nl && !copy_location(&(*tl)[i], &l[i]); i++)
			;
		for (; j < nf && !copy_function(&(*tf)[j], &f[j]); j++)
			;
		if (i == nl && j == nf)
			return 0;
	}
	if (*tl && *tf)
		free_tables(*tl, i, *tf, j);
	free(*tl);
	free(*tf);
	*tl = NULL;
	*tf = NULL;
	return -1;
}

/* Copy m's tables, cut to what its first i samples needed, into p (which
 * has none); *loc_cap, *func_cap: the arrays' sizes. -1 when out of
 * memory (p then holds none). */
static int tables_into(const struct locmemo *m, size_t i, struct gh_profile *p,
		       size_t *loc_cap, size_t *func_cap)
{
	struct memomark k = mark_at(m, i);

	if (copy_tables(m->locs, k.nloc, m->funcs, k.nfunc, &p->locations,
			loc_cap, &p->functions, func_cap))
		return -1;
	p->nlocations = k.nloc;
	p->nfunctions = k.nfunc;
	return 0;
}

/* Cut p's tables (copied from m) to what m's first i samples needed. */
static void cut(const struct locmemo *m, size_t i, struct gh_profile *p)
{
	struct memomark k = mark_at(m, i);

	if (k.nloc >= p->nlocations && k.nfunc >= p->nfunctions)
		return;
	free_tables(p->locations + k.nloc, p->nlocations - k.nloc,
		    p->functions + k.nfunc, p->nfunctions - k.nfunc);
	p->nlocations = k.nloc;
	p->nfunctions = k.nfunc;
}

/* Record again from sample i on (m is no longer valid). */
static void rewind_to(struct locmemo *m, size_t i)
{
	m->valid = false;
	if (i > m->n)
		i = m->n;
	m->n = i;
	m->nids = i ? m->off[i] : 0;
	while (m->nmarks && m->marks[m->nmarks - 1].i >= i)
		m->nmarks--;
}

/* v grown to hold need elements of size (*cap: its capacity), on huge
 * pages from 4 MiB (bigmem.h: a sample's ids are written once, and each
 * page fault is dear); NULL when out of memory (v stays as it was). */
static void *grow(void *v, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 1024;
	void *nv;

	if (need <= *cap)
		return v;
	while (ncap < need)
		ncap *= 2;
	nv = bigmem_grow_huge(v, *cap * size, ncap * size);
	if (nv)
		*cap = ncap;
	return nv;
}

/* Room for one more sample of n ids: its off[] entry and the next. */
static int room(struct locmemo *m, uint32_t n)
{
	void *v;

	if (!(v = grow(m->addr, &m->addr_cap, m->n + 2, sizeof(*m->addr))))
		return -1;
	m->addr = v;
	if (!(v = grow(m->off, &m->off_cap, m->n + 2, sizeof(*m->off))))
		return -1;
	m->off = v;
	if (!(v = grow(m->ids, &m->ids_cap, m->nids + n, sizeof(*m->ids))))
		return -1;
	m->ids = v;
	return 0;
}

/* Record the next sample: bucket addr, ids[0..n), and the tables' sizes
 * after it. -1 when out of memory (m is then cleared). */
static int record(struct locmemo *m, uint64_t addr, const uint32_t *ids,
		  uint32_t n, size_t nloc, size_t nfunc)
{
	struct memomark last = mark_at(m, m->n);

	if (m->nids + n > UINT32_MAX || room(m, n))
		goto fail;
	if (nloc != last.nloc || nfunc != last.nfunc) {
		void *k = grow(m->marks, &m->marks_cap, m->nmarks + 1,
			       sizeof(*m->marks));

		if (!k)
			goto fail;
		m->marks = k;
		m->marks[m->nmarks++] = (struct memomark){
			(uint32_t)m->n, (uint32_t)nloc, (uint32_t)nfunc};
	}
	m->addr[m->n] = addr;
	m->off[m->n] = (uint32_t)m->nids;
	memcpy(m->ids + m->nids, ids, n * sizeof(*ids));
	m->nids += n;
	m->off[++m->n] = (uint32_t)m->nids;
	return 0;
fail:
	locmemo__clear(m);
	return -1;
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

/* The recording is a complete profile p, built by b: keep p's tables and
 * take what b learnt. -1 when out of memory (m is then cleared). */
static int store(struct locmemo *m, const struct gh_profile *p,
		 struct locbuilder *b)
{
	size_t lcap, fcap;

	free_tables(m->locs, m->nlocs, m->funcs, m->nfuncs);
	free(m->locs);
	free(m->funcs);
	m->locs = NULL;
	m->funcs = NULL;
	m->nlocs = m->nfuncs = 0;
	free_maps(m);
	locstate__free(&m->st);
	if (copy_tables(p->locations, p->nlocations, p->functions,
			p->nfunctions, &m->locs, &lcap, &m->funcs, &fcap) ||
	    copy_maps(m, p)) {
		locmemo__clear(m);
		return -1;
	}
	m->nlocs = p->nlocations;
	m->nfuncs = p->nfunctions;
	locbuilder__take(b, &m->st);
	m->valid = true;
	return 0;
}

void memouse__start(struct memouse *u, const struct gh_profile *p)
{
	u->nsamp = 0;
	u->mode = MEMO_OFF;
	if (!u->m || !u->m->primed)
		return;
	u->mode = usable(u->m, p) ? MEMO_FOLLOW : MEMO_RECORD;
	if (u->mode == MEMO_RECORD)
		rewind_to(u->m, 0);
}

/* Sample i's bucket is not the memo's: p's tables go back to what the
 * samples before it needed, and b goes on from there, recording. */
static int part(struct memouse *u, size_t i, struct gh_profile *p,
		struct locbuilder *b)
{
	u->mode = MEMO_RECORD;
	if (i) {
		cut(u->m, i, p);
		if (locbuilder__resume(b, &u->m->st, b->loc_cap, b->func_cap))
			return -1;
	}
	rewind_to(u->m, i);
	return 0;
}

int memouse__take(struct memouse *u, uint64_t addr, struct gh_profile *p,
		  struct locbuilder *b, uint32_t **ids, uint32_t *n)
{
	size_t i = u->nsamp++;

	if (u->mode != MEMO_FOLLOW)
		return 0;
	if (!(*ids = ids_of(u->m, i, addr, n)))
		return part(u, i, p, b);
	/* All the tables: cut() trims them in the end. */
	if (!i && tables_into(u->m, u->m->n, p, &b->loc_cap, &b->func_cap))
		return -1;
	return 1;
}

void memouse__built(struct memouse *u, uint64_t addr, const uint32_t *ids,
		    uint32_t n, const struct gh_profile *p)
{
	/* Out of memory for the memo clears it; the profile goes on. */
	if (u->mode == MEMO_RECORD &&
	    record(u->m, addr, ids, n, p->nlocations, p->nfunctions))
		u->mode = MEMO_OFF;
}

int memouse__finish(struct memouse *u, struct gh_profile *p,
		    struct locbuilder *b)
{
	if (u->mode == MEMO_FOLLOW) {
		cut(u->m, u->nsamp, p);
		return locations__has_functions(p, u->m->st.result);
	}
	if (locbuilder__finish(b))
		return -1;
	/* Out of memory for the memo clears it; the profile stands. */
	if (u->mode == MEMO_RECORD)
		store(u->m, p, b);
	if (u->m)
		u->m->primed = true;
	return 0;
}
