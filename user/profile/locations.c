/* locations.c - runtime/pprof's location building, step for step; see
 * locations.h. Comments name the Go code each piece mirrors. */
#include <stdlib.h>
#include <string.h>

#include "profile/locations.h"

/* profileBuilder's symbolizeFlag bits. */
#define LOOKUP_TRIED  1
#define LOOKUP_FAILED 2

/* expandFinalInlineFrame may append up to this many PCs. */
#define EXPAND_SLACK 64

/* pcloc.flags: hideRuntime's and expandFinalInlineFrame's answers. */
#define PCLOC_HIDE_KNOWN 1
#define PCLOC_HIDE	 2
#define PCLOC_TAIL_KNOWN 4
#define PCLOC_TAIL_PLAIN 8 /* as the last PC, it expands to itself */
#define PCLOC_MIN_CAP	 1024

int locbuilder__init(struct locbuilder *b, struct gh_profile *p,
		     struct symcache *sc, struct pcln *pcln,
		     const struct layout *layout, uint64_t bias)
{
	memset(b, 0, sizeof(*b));
	b->p = p;
	b->sc = sc;
	b->pcln = pcln;
	b->layout = layout;
	b->bias = bias;
	return 0;
}

void locstate__free(struct locstate *st)
{
	free(st->pcs);
	u64map__free(&st->funcs);
	free(st->result);
	memset(st, 0, sizeof(*st));
}

void locbuilder__free(struct locbuilder *b)
{
	locstate__free(&b->st);
	free(b->deck);
	free(b->stk);
	free(b->out);
	memset(b, 0, sizeof(*b));
}

static int ensure_scratch(struct locbuilder *b, size_t n)
{
	size_t cap = n + EXPAND_SLACK;
	void *d, *s, *o;

	if (cap <= b->scratch_cap)
		return 0;
	d = realloc(b->deck, cap * sizeof(*b->deck));
	if (d)
		b->deck = d;
	s = realloc(b->stk, cap * sizeof(*b->stk));
	if (s)
		b->stk = s;
	o = realloc(b->out, cap * sizeof(*b->out));
	if (o)
		b->out = o;
	if (!d || !s || !o)
		return -1;
	b->scratch_cap = cap;
	return 0;
}

/* ---- the PC table (proto.go's b.locs, plus cached answers) ---- */

/* Fibonacci hashing: return PCs share their low bits less than their high
 * ones, and the table is small enough to stay in cache. */
static size_t pc_slot(uint64_t pc, size_t cap)
{
	return (size_t)((pc * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/* The entry of pc, NULL when it has none. */
static inline struct pcloc *pcloc__find(struct locbuilder *b, uint64_t pc)
{
	size_t i;

	if (!pc)
		return &b->st.pc0;
	if (!b->st.pcs_cap)
		return NULL;
	for (i = pc_slot(pc, b->st.pcs_cap); b->st.pcs[i].pc;
	     i = (i + 1) & (b->st.pcs_cap - 1))
		if (b->st.pcs[i].pc == pc)
			return &b->st.pcs[i];
	return NULL;
}

static int pcloc_grow(struct locbuilder *b)
{
	size_t ncap = b->st.pcs_cap ? b->st.pcs_cap * 2 : PCLOC_MIN_CAP, i, j;
	struct pcloc *t = calloc(ncap, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < b->st.pcs_cap; i++) {
		if (!b->st.pcs[i].pc)
			continue;
		for (j = pc_slot(b->st.pcs[i].pc, ncap); t[j].pc;
		     j = (j + 1) & (ncap - 1))
			;
		t[j] = b->st.pcs[i];
	}
	free(b->st.pcs);
	b->st.pcs = t;
	b->st.pcs_cap = ncap;
	return 0;
}

/* The entry of pc, made empty if it has none; NULL when out of memory.
 * Valid until the next call. */
static struct pcloc *pcloc(struct locbuilder *b, uint64_t pc)
{
	struct pcloc *e = pcloc__find(b, pc);
	size_t i;

	if (e)
		return e;
	if ((b->st.pcs_n + 1) * 2 > b->st.pcs_cap && pcloc_grow(b))
		return NULL;
	for (i = pc_slot(pc, b->st.pcs_cap); b->st.pcs[i].pc;
	     i = (i + 1) & (b->st.pcs_cap - 1))
		;
	b->st.pcs[i] = (struct pcloc){.pc = pc};
	b->st.pcs_n++;
	return &b->st.pcs[i];
}

/* hideRuntime's answer for link-time PC pc (FuncForPC(pc) is a runtime
 * function): 1 or 0, -1 on allocation failure. */
static int hidden(struct locbuilder *b, uint64_t pc)
{
	struct pcloc *e = pcloc(b, pc);
	struct pcframe f;

	if (!e)
		return -1;
	if (!(e->flags & PCLOC_HIDE_KNOWN)) {
		if (symcache__get(b->sc, pc, &f))
			return -1;
		e->flags |= PCLOC_HIDE_KNOWN | (f.hide ? PCLOC_HIDE : 0);
	}
	return (e->flags & PCLOC_HIDE) != 0;
}

/* funcNameForPrint: "pkg.f[go.shape.int]" prints as "pkg.f[...]". */
static size_t print_name(const char *name, const char **tail)
{
	const char *i = strchr(name, '['), *j;

	*tail = "";
	if (!i)
		return strlen(name);
	j = strrchr(name, ']');
	if (!j || j <= i)
		return strlen(name);
	*tail = j + 1;
	return (size_t)(i - name);
}

static bool same_name(const struct locbuilder *b, const char *x, const char *y)
{
	const char *tx, *ty;
	size_t nx, ny;

	if (b->layout->merge_raw_names)
		return strcmp(x, y) == 0;
	nx = print_name(x, &tx);
	ny = print_name(y, &ty);
	if (nx != ny || strncmp(x, y, nx) || strcmp(tx, ty))
		return false;
	/* Both have "[...]" or neither has: compare what print shows. */
	return (x[nx] == '[') == (y[ny] == '[');
}

/* pcDeck.tryAdd: merge pc's frame into the location being built while the
 * previous frame is inlined into the same real function and the names
 * differ (the same name suggests recursion). */
static bool deck_try_add(struct locbuilder *b, uint64_t pc,
			 const struct pcframe *f)
{
	if (b->ndeck) {
		const struct pcframe *last = &b->deck[b->ndeck - 1].f;

		if (!last->func_nil || !last->entry || !f->entry ||
		    last->entry != f->entry ||
		    same_name(b, last->function, f->function))
			return false;
	}
	b->deck[b->ndeck].pc = pc;
	b->deck[b->ndeck].f = *f;
	b->ndeck++;
	b->deck_result |= LOOKUP_TRIED | (f->failed ? LOOKUP_FAILED : 0);
	return true;
}

static bool func_eq(void *ctx, uint32_t idx)
{
	const void **c = ctx;
	const struct gh_profile *p = c[0];

	return strcmp(p->functions[idx].name, c[1]) == 0;
}

/* Function ids are keyed by name; file and start line come from the first
 * frame seen with that name. */
static int function_index(struct locbuilder *b, const struct pcframe *f,
			  uint32_t *idx)
{
	struct gh_profile *p = b->p;
	const void *ctx[2] = {p, f->function};
	uint64_t h = hash_str(f->function);
	struct gh_function *fn;

	if (u64map__get(&b->st.funcs, h, func_eq, (void *)ctx, idx))
		return 0;
	if (p->nfunctions == b->func_cap) {
		size_t ncap = b->func_cap ? b->func_cap * 2 : 256;
		void *nv = realloc(p->functions, ncap * sizeof(*fn));

		if (!nv)
			return -1;
		p->functions = nv;
		b->func_cap = ncap;
	}
	fn = &p->functions[p->nfunctions];
	fn->name = strdup(f->function);
	fn->filename = strdup(f->file);
	fn->start_line = f->start_line;
	if (!fn->name || !fn->filename) {
		free(fn->name);
		free(fn->filename);
		return -1;
	}
	*idx = (uint32_t)p->nfunctions++;
	return u64map__put(&b->st.funcs, h, *idx);
}

/* The mapping of a location is chosen by its unadjusted return PC. */
static uint32_t mapping_of(const struct locbuilder *b, uint64_t addr)
{
	size_t i;

	for (i = 0; i < b->p->nmappings; i++) {
		const struct gh_mapping *m = &b->p->mappings[i];

		if ((m->start <= addr && addr < m->limit) || b->fake_mapping)
			return (uint32_t)(i + 1);
	}
	return 0;
}

static int grow_locations(struct locbuilder *b)
{
	struct gh_profile *p = b->p;
	size_t ncap = b->loc_cap ? b->loc_cap * 2 : 1024;
	void *nl, *nr;

	if (p->nlocations < b->loc_cap && p->nlocations < b->st.result_cap)
		return 0;
	if (p->nlocations >= b->loc_cap) {
		nl = realloc(p->locations, ncap * sizeof(*p->locations));
		if (!nl)
			return -1;
		p->locations = nl;
		b->loc_cap = ncap;
	}
	if (p->nlocations >= b->st.result_cap) {
		ncap = b->st.result_cap ? b->st.result_cap * 2 : 1024;
		nr = realloc(b->st.result, ncap);
		if (!nr)
			return -1;
		b->st.result = nr;
		b->st.result_cap = ncap;
	}
	return 0;
}

static int fill_lines(struct locbuilder *b, struct gh_location *loc)
{
	size_t k;

	loc->lines = calloc(b->ndeck, sizeof(*loc->lines));
	if (!loc->lines)
		return -1;
	loc->nlines = (uint32_t)b->ndeck;
	for (k = 0; k < b->ndeck; k++) {
		loc->lines[k].line = b->deck[k].f.line;
		if (function_index(b, &b->deck[k].f, &loc->lines[k].function))
			return -1;
	}
	return 0;
}

/* emitLocation: turn the deck into a new location, cache it by its first
 * PC, and append its id to the sample. Nothing to do for an empty deck. */
static int emit_location(struct locbuilder *b)
{
	struct gh_profile *p = b->p;
	struct gh_location *loc;
	struct pcloc *first;
	uint32_t idx, m;

	if (!b->ndeck)
		return 0;
	if (b->ndeck > UINT16_MAX)
		return -1;
	if (grow_locations(b))
		return -1;
	idx = (uint32_t)p->nlocations;
	loc = &p->locations[idx];
	memset(loc, 0, sizeof(*loc));
	p->nlocations++;
	loc->address = b->deck[0].f.frame_pc + b->bias;
	if (fill_lines(b, loc))
		return -1;
	m = mapping_of(b, b->deck[0].pc + b->bias);
	loc->mapping = m;
	b->st.result[idx] = b->deck_result;
	first = pcloc(b, b->deck[0].pc);
	if (!first)
		return -1;
	first->loc = idx + 1;
	first->npcs = (uint16_t)b->ndeck;
	b->out[b->nout++] = idx;
	b->ndeck = 0;
	b->deck_result = 0;
	return 0;
}

/* A cached location stands for npcs PCs: skip them without looking, as
 * appendLocsForStack does. */
static size_t use_cached(struct locbuilder *b, uint32_t loc, size_t npcs,
			 size_t left)
{
	b->out[b->nout++] = loc - 1;
	return npcs < left ? npcs : left;
}

/* One step of appendLocsForStack for stk[0]; returns how many PCs it
 * consumed, or 0 on allocation failure. */
static size_t step(struct locbuilder *b, const uint64_t *stk, size_t left)
{
	uint64_t addr = stk[0];
	struct pcloc *e = pcloc(b, addr);
	struct pcframe f;
	uint32_t loc;
	size_t npcs;

	if (!e)
		return 0;
	loc = e->loc;
	npcs = e->npcs;
	if (loc && !b->ndeck)
		return use_cached(b, loc, npcs, left);
	if (symcache__get(b->sc, addr, &f))
		return 0;
	if (loc) {
		if (b->ndeck && deck_try_add(b, addr, &f))
			return 1;
		if (emit_location(b))
			return 0;
		return use_cached(b, loc, npcs, left);
	}
	if (f.goexit)
		return emit_location(b) ? 0 : 1;
	if (deck_try_add(b, addr, &f))
		return 1;
	/* Not inlined with the deck: flush it, then look again (the flush
	 * may have just cached addr). */
	if (emit_location(b) || !(e = pcloc(b, addr)))
		return 0;
	if (e->loc)
		return use_cached(b, e->loc, e->npcs, left);
	deck_try_add(b, addr, &f);
	return 1;
}

/* expandFinalInlineFrame: stk itself when its last PC expands to itself
 * (known after the first stack ending there), else the expansion in b->stk.
 * NULL when out of memory. */
static const uint64_t *expand_tail(struct locbuilder *b, const uint64_t *stk,
				   size_t n, size_t *m)
{
	struct pcloc *e = pcloc(b, stk[n - 1]);

	if (!e)
		return NULL;
	*m = n;
	if (e->flags & PCLOC_TAIL_KNOWN && e->flags & PCLOC_TAIL_PLAIN)
		return stk;
	*m = pcln__expand_final_inline(b->pcln, stk, n, b->stk);
	if (!(e->flags & PCLOC_TAIL_KNOWN))
		e->flags |= PCLOC_TAIL_KNOWN |
			    (*m == n && b->stk[n - 1] == stk[n - 1]
				     ? PCLOC_TAIL_PLAIN
				     : 0);
	return b->stk;
}

int locbuilder__append(struct locbuilder *b, const uint64_t *stk, size_t n)
{
	const struct pcloc *e;
	const uint64_t *pcs = stk;
	size_t m = n, i, used;

	if (ensure_scratch(b, n))
		return -1;
	b->nout = 0;
	b->ndeck = 0;
	b->deck_result = 0;
	if (n && !(pcs = expand_tail(b, stk, n, &m)))
		return -1;
	for (i = 0; i < m; i += used) {
		/* The common case once a profile is warm, inline: a cached
		 * location and nothing pending. */
		e = pcloc__find(b, pcs[i]);
		if (e && e->loc && !b->ndeck) {
			used = use_cached(b, e->loc, e->npcs, m - i);
			continue;
		}
		used = step(b, pcs + i, m - i);
		if (!used)
			return -1;
	}
	return emit_location(b);
}

int locbuilder__sample(struct locbuilder *b, const uint64_t *stk, size_t n,
		       bool hide)
{
	for (int tries = 0; tries < 2; tries++, hide = false) {
		size_t i = 0;

		while (hide && i < n) {
			int h = hidden(b, stk[i]);

			if (h < 0)
				return -1;
			if (!h)
				break;
			i++;
		}
		if (i == n)
			i = 0; /* all runtime: keep them all */
		if (locbuilder__append(b, stk + i, n - i))
			return -1;
		if (b->nout)
			break;
	}
	return 0;
}

int locations__has_functions(struct gh_profile *p, const uint8_t *result)
{
	uint8_t *seen = calloc(p->nmappings ? p->nmappings : 1, 1);
	uint32_t m;

	if (!seen)
		return -1;
	for (size_t i = 0; i < p->nlocations; i++)
		if ((m = p->locations[i].mapping))
			seen[m - 1] |= result[i];
	for (size_t i = 0; i < p->nmappings; i++)
		p->mappings[i].has_functions = seen[i] == LOOKUP_TRIED;
	free(seen);
	return 0;
}

int locbuilder__finish(struct locbuilder *b)
{
	return locations__has_functions(b->p, b->st.result);
}

void locbuilder__take(struct locbuilder *b, struct locstate *st)
{
	*st = b->st;
	memset(&b->st, 0, sizeof(b->st));
}

void locbuilder__resume(struct locbuilder *b, struct locstate *st,
			size_t loc_cap, size_t func_cap)
{
	locstate__free(&b->st);
	b->st = *st;
	memset(st, 0, sizeof(*st));
	b->loc_cap = loc_cap;
	b->func_cap = func_cap;
}
