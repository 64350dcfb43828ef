/* locations.c - runtime/pprof's location building, step for step; see
 * locations.h. Comments name the Go code each piece mirrors. */
#include <stdlib.h>
#include <string.h>

#include "locations.h"

/* profileBuilder's symbolizeFlag bits. */
#define LOOKUP_TRIED  1
#define LOOKUP_FAILED 2

/* expandFinalInlineFrame may append up to this many PCs. */
#define EXPAND_SLACK 64

int gh_locbuilder_init(struct gh_locbuilder *b, struct gh_profile *p,
		       struct gh_symcache *sc, struct gh_pcln *pcln,
		       const struct gh_layout *layout, uint64_t bias)
{
	memset(b, 0, sizeof(*b));
	b->p = p;
	b->sc = sc;
	b->pcln = pcln;
	b->layout = layout;
	b->bias = bias;
	b->map_result = calloc(p->nmappings ? p->nmappings : 1, 1);
	return b->map_result ? 0 : -1;
}

void gh_locbuilder_free(struct gh_locbuilder *b)
{
	free(b->loc_npcs);
	gh_map_free(&b->funcs);
	free(b->map_result);
	free(b->deck);
	free(b->stk);
	free(b->out);
	memset(b, 0, sizeof(*b));
}

static int ensure_scratch(struct gh_locbuilder *b, size_t n)
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

static bool same_name(const struct gh_locbuilder *b, const char *x,
		      const char *y)
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
static bool deck_try_add(struct gh_locbuilder *b, uint64_t pc,
			 const struct gh_pcframe *f)
{
	if (b->ndeck) {
		const struct gh_pcframe *last = &b->deck[b->ndeck - 1].f;

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
static int function_index(struct gh_locbuilder *b, const struct gh_pcframe *f,
			  uint32_t *idx)
{
	struct gh_profile *p = b->p;
	const void *ctx[2] = {p, f->function};
	uint64_t h = gh_hash_str(f->function);
	struct gh_function *fn;

	if (gh_map_get(&b->funcs, h, func_eq, (void *)ctx, idx))
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
	return gh_map_put(&b->funcs, h, *idx);
}

/* The mapping of a location is chosen by its unadjusted return PC. */
static uint32_t mapping_of(const struct gh_locbuilder *b, uint64_t addr)
{
	size_t i;

	for (i = 0; i < b->p->nmappings; i++) {
		const struct gh_mapping *m = &b->p->mappings[i];

		if ((m->start <= addr && addr < m->limit) || b->fake_mapping)
			return (uint32_t)(i + 1);
	}
	return 0;
}

static int grow_locations(struct gh_locbuilder *b)
{
	struct gh_profile *p = b->p;
	size_t ncap = b->loc_cap ? b->loc_cap * 2 : 1024;
	void *nl, *nn;

	if (p->nlocations < b->loc_cap)
		return 0;
	nl = realloc(p->locations, ncap * sizeof(*p->locations));
	if (nl)
		p->locations = nl;
	nn = realloc(b->loc_npcs, ncap * sizeof(*b->loc_npcs));
	if (nn)
		b->loc_npcs = nn;
	if (!nl || !nn)
		return -1;
	b->loc_cap = ncap;
	return 0;
}

static int fill_lines(struct gh_locbuilder *b, struct gh_location *loc)
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
static int emit_location(struct gh_locbuilder *b)
{
	struct gh_profile *p = b->p;
	struct gh_location *loc;
	struct gh_pcframe *first;
	uint32_t idx, m;

	if (!b->ndeck)
		return 0;
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
	if (m)
		b->map_result[m - 1] |= b->deck_result;
	b->loc_npcs[idx] = (uint32_t)b->ndeck;
	first = gh_symcache_get(b->sc, b->deck[0].pc);
	if (!first)
		return -1;
	first->loc = idx + 1;
	b->out[b->nout++] = idx;
	b->ndeck = 0;
	b->deck_result = 0;
	return 0;
}

/* A cached location stands for npcs PCs: skip them without looking, as
 * appendLocsForStack does. */
static size_t use_cached(struct gh_locbuilder *b, uint32_t idx, size_t left)
{
	size_t skip = b->loc_npcs[idx];

	b->out[b->nout++] = idx;
	return skip < left ? skip : left;
}

/* The location cached for first PC addr: 1 + its index, 0 for none, or
 * -1 when out of memory. */
static int64_t cached_location(struct gh_locbuilder *b, uint64_t addr)
{
	const struct gh_pcframe *f = gh_symcache_get(b->sc, addr);

	return f ? (int64_t)f->loc : -1;
}

/* One step of appendLocsForStack for stk[0]; returns how many PCs it
 * consumed, or 0 on allocation failure. */
static size_t step(struct gh_locbuilder *b, const uint64_t *stk, size_t left)
{
	uint64_t addr = stk[0];
	struct gh_pcframe f, *fp = gh_symcache_get(b->sc, addr);
	int64_t loc;

	if (!fp)
		return 0;
	/* The common case once a profile is warm: a cached location and
	 * nothing pending. */
	if (fp->loc && !b->ndeck)
		return use_cached(b, fp->loc - 1, left);
	f = *fp; /* fp is valid only until the next lookup */
	if (f.loc) {
		if (b->ndeck && deck_try_add(b, addr, &f))
			return 1;
		if (emit_location(b))
			return 0;
		return use_cached(b, f.loc - 1, left);
	}
	if (f.goexit)
		return emit_location(b) ? 0 : 1;
	if (deck_try_add(b, addr, &f))
		return 1;
	/* Not inlined with the deck: flush it, then look again (the flush
	 * may have just cached addr). */
	if (emit_location(b) || (loc = cached_location(b, addr)) < 0)
		return 0;
	if (loc)
		return use_cached(b, (uint32_t)loc - 1, left);
	deck_try_add(b, addr, &f);
	return 1;
}

int gh_locbuilder_append(struct gh_locbuilder *b, const uint64_t *stk, size_t n)
{
	size_t m, i, used;

	if (ensure_scratch(b, n))
		return -1;
	m = gh_pcln_expand_final_inline(b->pcln, stk, n, b->stk);
	b->nout = 0;
	b->ndeck = 0;
	b->deck_result = 0;
	for (i = 0; i < m; i += used) {
		used = step(b, b->stk + i, m - i);
		if (!used)
			return -1;
	}
	return emit_location(b);
}

void gh_locbuilder_finish(struct gh_locbuilder *b)
{
	size_t i;

	for (i = 0; i < b->p->nmappings; i++)
		b->p->mappings[i].has_functions =
			b->map_result[i] == LOOKUP_TRIED;
}
