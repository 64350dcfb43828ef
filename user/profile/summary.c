/* summary.c - each value's sum and the top allocation site, sample by
 * sample. A sample's site is the function of its first frame outside the
 * runtime, leaf first and inlined calls expanded (the frame huatuo.c names
 * an entry by: where the program, not the allocator, asked for memory),
 * else its first frame. Sites are told apart by name: runtime/pprof makes
 * one function per name and file, and a name split over files is still
 * one place to look. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/summary.h"

struct summary_site {
	char name[256]; /* a function's name, or an unsymbolized PC */
	int64_t bytes;	/* in-use bytes of the samples it is the site of */
};

static bool is_runtime(const char *name)
{
	return strncmp(name, "runtime.", 8) == 0 ||
	       strncmp(name, "internal/runtime/", 17) == 0;
}

/* Whether function fn of p is the runtime's: m's answer, asked of the
 * name once per function (m NULL, or out of memory: every time). */
static bool fn_runtime(struct summary *m, const struct gh_profile *p,
		       uint32_t fn)
{
	size_t n = p->nfunctions;
	uint8_t *v;

	if (m && fn >= m->nrt && n > fn && (v = realloc(m->rt, n))) {
		memset(v + m->nrt, 0, n - m->nrt);
		m->rt = v;
		m->nrt = n;
	}
	if (!m || fn >= m->nrt)
		return is_runtime(p->functions[fn].name);
	if (!m->rt[fn])
		m->rt[fn] = is_runtime(p->functions[fn].name) ? 1 : 2;
	return m->rt[fn] == 1;
}

/* summary_site_frame, m (NULL: none) keeping which functions are the
 * runtime's. */
static bool site_frame(struct summary *m, const struct gh_profile *p,
		       const struct gh_sample *s, uint32_t *loc, uint32_t *line)
{
	bool found = false;

	for (uint32_t i = 0; i < s->nlocs; i++) {
		const struct gh_location *l = &p->locations[s->locs[i]];

		if (!l->nlines && !found) {
			*loc = i;
			*line = UINT32_MAX;
			found = true;
		}
		for (uint32_t j = 0; j < l->nlines; j++) {
			bool rt = fn_runtime(m, p, l->lines[j].function);

			if (!rt || !found) {
				*loc = i;
				*line = j;
				found = true;
			}
			if (!rt)
				return true;
		}
	}
	return found;
}

bool summary_site_frame(const struct gh_profile *p, const struct gh_sample *s,
			uint32_t *loc, uint32_t *line)
{
	return site_frame(NULL, p, s, loc, line);
}

bool summary_site(const struct gh_profile *p, const struct gh_sample *s,
		  char *name, size_t size)
{
	const struct gh_location *l;
	uint32_t loc, line;

	if (!summary_site_frame(p, s, &loc, &line))
		return false;
	l = &p->locations[s->locs[loc]];
	if (line == UINT32_MAX)
		snprintf(name, size, "0x%" PRIx64, l->address);
	else
		snprintf(name, size, "%s",
			 p->functions[l->lines[line].function].name);
	return true;
}

struct site_probe {
	const struct summary *m;
	const char *name;
};

static bool site_eq(void *ctx, uint32_t val)
{
	const struct site_probe *sp = ctx;

	return strcmp(sp->m->sites[val].name, sp->name) == 0;
}

static struct summary_site *site_get(struct summary *m, const char *name)
{
	struct site_probe sp = {m, name};
	uint64_t h = hash_str(name);
	uint32_t i;

	if (u64map__get(&m->index, h, site_eq, &sp, &i))
		return &m->sites[i];
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		void *v = cap <= UINT32_MAX
				  ? realloc(m->sites, cap * sizeof(*m->sites))
				  : NULL;

		if (!v)
			return NULL;
		m->sites = v;
		m->cap = cap;
	}
	if (u64map__put(&m->index, h, (uint32_t)m->n))
		return NULL;
	snprintf(m->sites[m->n].name, sizeof(m->sites[m->n].name), "%s", name);
	m->sites[m->n].bytes = 0;
	return &m->sites[m->n++];
}

/* The site of function fn of p, by its name the first time. */
static struct summary_site *func_site(struct summary *m,
				      const struct gh_profile *p, uint32_t fn)
{
	struct summary_site *site;
	size_t n = m->nby_func;
	uint32_t *v;

	if (fn >= n) {
		n = p->nfunctions > fn ? p->nfunctions : (size_t)fn + 1;
		v = realloc(m->by_func, n * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + m->nby_func, 0, (n - m->nby_func) * sizeof(*v));
		m->by_func = v;
		m->nby_func = n;
	}
	if (m->by_func[fn])
		return &m->sites[m->by_func[fn] - 1];
	site = site_get(m, p->functions[fn].name);
	if (site)
		m->by_func[fn] = (uint32_t)(site - m->sites) + 1;
	return site;
}

void summary__add(struct summary *m, const struct gh_profile *p,
		  const struct gh_sample *s)
{
	char name[sizeof(m->sites->name)];
	struct summary_site *site;
	uint32_t loc, line;

	/* Wrapping, as Go's int64 sums: a profile read from a file may hold
	 * any values. */
	for (int v = 0; v < GH_NVALUES; v++)
		m->total[v] = (int64_t)((uint64_t)m->total[v] +
					(uint64_t)s->value[v]);
	if (m->failed || s->value[GH_INUSE_SPACE] <= 0 ||
	    !site_frame(m, p, s, &loc, &line))
		return;
	if (line != UINT32_MAX)
		site = func_site(
			m, p, p->locations[s->locs[loc]].lines[line].function);
	else if (summary_site(p, s, name, sizeof(name)))
		site = site_get(m, name);
	else
		return;
	if (site)
		site->bytes = (int64_t)((uint64_t)site->bytes +
					(uint64_t)s->value[GH_INUSE_SPACE]);
	else
		m->failed = true;
}

void summary__reset(struct summary *m)
{
	summary__free(m);
}

/* The site with the most bytes; of equals, the first name in byte order,
 * so that the answer does not depend on sample order. */
void summary__fill(const struct summary *m, struct gh_profile *p)
{
	const struct summary_site *top = NULL;

	memcpy(p->total, m->total, sizeof(p->total));
	for (size_t i = 0; !m->failed && i < m->n; i++) {
		const struct summary_site *s = &m->sites[i];

		if (!top || s->bytes > top->bytes ||
		    (s->bytes == top->bytes && strcmp(s->name, top->name) < 0))
			top = s;
	}
	snprintf(p->top_site, sizeof(p->top_site), "%s", top ? top->name : "");
	p->top_site_bytes = top ? top->bytes : 0;
}

void summary__free(struct summary *m)
{
	free(m->by_func);
	free(m->rt);
	free(m->sites);
	u64map__free(&m->index);
	memset(m, 0, sizeof(*m));
}

void summary_of(struct gh_profile *p)
{
	struct summary sum = {0};

	for (size_t i = 0; i < p->nsamples; i++)
		summary__add(&sum, p, &p->samples[i]);
	summary__fill(&sum, p);
	summary__free(&sum);
}
