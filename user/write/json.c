/* json.c - the JSON renderer: the profile as one JSON document in the schema of
 * Huatuo's Go heap snapshot (ccfos/huatuo memsnapshot: Snapshot, Entry), so
 * tools reading Huatuo's output can read ours. Schema:
 *
 *   {
 *     "pid": 1234,                      target process ID
 *     "runtime_version": "go1.22.12",   Go version of the target
 *     "runtime_file": "/usr/bin/app",   file holding this Go runtime: the
 *                                       executable, or a Go c-shared
 *                                       library (one document per runtime)
 *     "comm": "app",                    the process's name
 *     "exe": "/usr/bin/app",            its executable, as it names it
 *     "build_id": "7aec7e09...",        runtime_file's GNU build ID, else
 *                                       the go command's; "" when none
 *     "cgroup": "/system.slice/app.service",  the process's cgroup path
 *                                       (v1 memory controller, else v2);
 *                                       "" when unknown
 *     "container_id": "3f4b8c1d...",    from the cgroup path: the
 *                                       container's ID (an nspawn machine
 *                                       name); "" when none
 *     "container_runtime": "containerd", docker, containerd, cri-o,
 *                                       podman, systemd-nspawn, or ""
 *     "pod_uid": "0e1a6d2c-...",        Kubernetes pod UID; "" when none
 *     "status": "complete",             complete | partial | unavailable |
 *                                       failed | mixed (complete, the
 *                                       counters from several GC cycles:
 *                                       status_reason says how many)
 *     "status_reason": "",              why not complete; "" when complete
 *     "backend": "iter",                reader backend: iter, perf, procmem
 *     "backend_notes": "",              why backends before it were passed
 *                                       over (--backend auto)
 *     "trigger": "oom-kill: ...",       what the profile was taken for
 *                                       (an OOM kill); only when set
 *     "duration_ms": 3,                 snapshot wall time in milliseconds,
 *                                       rounded up (an integer, as Huatuo)
 *     "output_truncated": false,        true when top_n cut entries
 *     "memprofilerate": 524288,         runtime.MemProfileRate at read time
 *     "sample_index": "inuse_space",    pprof sample type behind "bytes"
 *                                       (inuse_space or alloc_space)
 *     "buckets": 812,                   heap-profile buckets read
 *     "buckets_inuse": 97,              of those, buckets with in-use
 *                                       objects
 *     "gc_cycles": 1,                   GC cycles the counters come from
 *                                       (more than 1: status mixed)
 *     "totals": {                       each value summed over all samples
 *       "alloc_objects": 812,           (go tool pprof's "total"), entries
 *       "alloc_space": 4194304,         cut by top_n or not
 *       "inuse_objects": 97,
 *       "inuse_space": 1048576
 *     },
 *     "top_site": "main.load",          the name (as an entry's) holding the
 *                                       most inuse_space over all samples;
 *                                       of equals the first in byte order;
 *                                       "" when nothing is in use
 *     "top_site_bytes": 524288,         its inuse_space
 *     "entries": [                      one per distinct allocation stack
 *       {
 *         "kind": "inuse_space_objects",  "alloc_space_objects" when
 *                                         sample_index is alloc_space
 *         "name": "main.load",            first frame outside the runtime
 *                                         ("runtime.", "internal/runtime/"),
 *                                         else the first frame
 *         "bytes": 131072,                pprof inuse_space (alloc_space)
 *         "objects": 32,                  pprof inuse_objects (alloc_objects)
 *         "average_bytes": 4096,          bytes / objects; 0 if no objects
 *         "stack": [                      leaf first, inlined calls expanded
 *           "main.load, /src/app/main.go:58",
 *           "main.main, /src/app/main.go:12"
 *         ]
 *       }
 *     ]
 *   }
 *
 * A stack frame is "function, file:line" (Huatuo's format: one space after
 * the comma); only the function when the file or line is unknown, and the
 * hexadecimal PC ("0x4a1b2c") when the location has no symbol. Entries are
 * sorted by bytes, then objects, descending, then by name; entries with
 * zero bytes and zero objects are left out; entries equal in all three
 * keep the order of their first samples. Strings are valid UTF-8: bytes
 * that are not become U+FFFD, and < > & are \u003c \u003e \u0026, as Go's
 * encoding/json does (gh_json__quote).
 *
 * It streams: an entry is all the renderer keeps of its samples, and an
 * entry's stack is kept hash-consed (see struct json_render), so that a
 * million distinct stacks take 38 MB while the build lasts, 31 MB once
 * it is over (the order to write them in included), not the GB of their
 * text. Names and stack text come from the final profile when written. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/err.h"
#include "base/pairset.h"
#include "base/u64map.h"
#include "profile/refs.h"
#include "write/json.h"
#include "write/oneline.h"
#include "write/render.h"

#define NONE UINT32_MAX

struct frame {
	const struct gh_function *fn; /* NULL: unsymbolized location */
	int64_t line;
	uint64_t pc;
};

static bool is_runtime(const char *name)
{
	return strncmp(name, "runtime.", 8) == 0 ||
	       strncmp(name, "internal/runtime/", 17) == 0;
}

/* Whether s may be let in: its locations, and their lines, name entries of
 * p (JSON never reads a mapping, so a broken one does not keep it out). */
static bool valid_refs(const struct gh_profile *p, const struct gh_sample *s)
{
	for (uint32_t i = 0; i < s->nlocs; i++)
		if (s->locs[i] >= p->nlocations ||
		    !refs_lines_ok(p, &p->locations[s->locs[i]]))
			return false;
	return true;
}

typedef bool (*frame_fn)(void *ctx, const struct frame *fr);

/* Call fn for each frame of location l: every line, or its bare PC when it
 * has none; none when it names a missing function (no sample that has it
 * is let in). True when fn did (stop). */
static bool location_frames(const struct gh_profile *p,
			    const struct gh_location *l, frame_fn fn, void *ctx)
{
	struct frame fr = {.pc = l->address};
	uint32_t j;

	if (!refs_lines_ok(p, l))
		return false;
	if (!l->nlines)
		return fn(ctx, &fr);
	for (j = 0; j < l->nlines; j++) {
		fr.fn = &p->functions[l->lines[j].function];
		fr.line = l->lines[j].line;
		if (fn(ctx, &fr))
			return true;
	}
	return false;
}

/* ---- entries, as samples arrive ---- */

/* The sums of an entry, two 4-byte cells each (objects, bytes): a sum
 * that does not fit, or is BIG itself, moves to big for good, its cell
 * holding BIG. Heap profile values rarely need it. */
#define BIG INT32_MIN

struct cells {
	int32_t *v;
	size_t cap;
	struct u64map big_of; /* 1 + cell -> its index in big */
	int64_t *big;
	size_t nbig, cap_big;
};

static int64_t cell_get(const struct cells *c, size_t i)
{
	uint32_t b;

	if (c->v[i] != BIG)
		return c->v[i];
	u64map_get(&c->big_of, i + 1, NULL, NULL, &b);
	return c->big[b];
}

/* Two's complement wrap, as an int64_t sum does in practice. */
static int64_t add64(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int cell_add(struct cells *c, size_t i, int64_t d)
{
	int64_t sum = add64(cell_get(c, i), d);
	uint32_t b;

	if (c->v[i] == BIG) {
		u64map_get(&c->big_of, i + 1, NULL, NULL, &b);
		c->big[b] = sum;
	} else if (sum > INT32_MIN && sum <= INT32_MAX) {
		c->v[i] = (int32_t)sum;
	} else {
		if (c->nbig == c->cap_big) {
			size_t cap = c->cap_big ? c->cap_big * 2 : 64;
			int64_t *grown = realloc(c->big, cap * sizeof(*grown));

			if (!grown)
				return -1;
			c->big = grown;
			c->cap_big = cap;
		}
		if (c->nbig >= UINT32_MAX ||
		    u64map_put(&c->big_of, i + 1, (uint32_t)c->nbig))
			return -1;
		c->big[c->nbig++] = sum;
		c->v[i] = BIG;
	}
	return 0;
}

/* Cells for n entries, new ones 0. */
static int cells_reserve(struct cells *c, size_t n)
{
	size_t cap = c->cap ? c->cap : 1024;
	int32_t *grown;

	if (2 * n <= c->cap)
		return 0;
	while (cap < 2 * n)
		cap *= 2;
	grown = bigmem_grow(c->v, c->cap * sizeof(*grown),
			    cap * sizeof(*grown));
	if (!grown)
		return -1;
	c->v = grown;
	c->cap = cap;
	return 0;
}

static void cells_free(struct cells *c)
{
	bigmem_free(c->v, c->cap * sizeof(*c->v));
	free(c->big);
	u64map_free(&c->big_of);
	*c = (struct cells){0};
}

/* The JSON renderer. A stack is its leaf location below its callers, and
 * the callers are a trie of location ids: a node is (its caller's node,
 * or NONE at the root; its location). An entry is (its callers' node or
 * NONE, its leaf location or NONE for an empty stack). The million stacks
 * of tools/bench/benchgen make 1.33 million nodes and a million entries,
 * 8 bytes each, 8 more an entry for its sums, and the indexes of both
 * sets (about 5 bytes a pair) while the build lasts. Entries are numbered
 * as their first samples come (zero ones too), which is the order that
 * breaks ties. */
struct json_render {
	struct render_head h;
	struct pairset callers; /* (caller node or NONE, location) */
	struct pairset entries; /* (callers node or NONE, leaf or NONE) */
	struct cells sums;	/* per entry: objects, bytes */
	bool bad_refs;		/* a sample refers to nothing */
	/* The last sample's callers, root first: (location, node) each. */
	uint32_t (*last)[2];
	size_t nlast, cap_last;
	/* Once finished: the entries to write, in order, and how many had
	 * something (top_n may cut them). */
	bool finished;
	uint32_t *order;
	size_t nshown, nnonzero;
};

static int64_t entry_objects(const struct json_render *r, uint32_t e)
{
	return cell_get(&r->sums, 2 * (size_t)e);
}

static int64_t entry_bytes(const struct json_render *r, uint32_t e)
{
	return cell_get(&r->sums, 2 * (size_t)e + 1);
}

/* The callers node of s's stack (NONE: no callers), root first. Samples
 * come in allnext order, newest bucket first, and neighbours share most
 * of their callers: those the last sample had need no lookup. */
static int callers_of(struct json_render *r, const struct gh_sample *s,
		      uint32_t *node)
{
	size_t n = s->nlocs ? s->nlocs - 1 : 0, k = 0, cap;
	uint32_t loc, (*grown)[2];

	if (n > r->cap_last) {
		cap = n > 2 * r->cap_last ? n : 2 * r->cap_last;
		grown = realloc(r->last, cap * sizeof(*r->last));
		if (!grown)
			return -1;
		r->last = grown;
		r->cap_last = cap;
	}
	*node = NONE;
	while (k < r->nlast && k < n &&
	       r->last[k][0] == s->locs[s->nlocs - 1 - k])
		*node = r->last[k++][1];
	for (; k < n; k++) {
		loc = s->locs[s->nlocs - 1 - k];
		if (pairset_add(&r->callers, *node, loc, node) < 0) {
			r->nlast = 0;
			return -1;
		}
		r->last[k][0] = loc;
		r->last[k][1] = *node;
	}
	r->nlast = n;
	return 0;
}

static int json_sample(void *st, const struct gh_profile *p,
		       const struct gh_sample *s)
{
	struct json_render *r = st;
	bool alloc = r->h.o.index == GH_ALLOC_OBJECTS ||
		     r->h.o.index == GH_ALLOC_SPACE;
	uint32_t node, e;
	int added;

	if (r->bad_refs || !valid_refs(p, s)) {
		r->bad_refs = true;
		return 0;
	}
	if (callers_of(r, s, &node))
		return -1;
	added = pairset_add(&r->entries, node, s->nlocs ? s->locs[0] : NONE,
			    &e);
	if (added < 0 || (added && cells_reserve(&r->sums, (size_t)e + 1)))
		return -1;
	if (cell_add(&r->sums, 2 * (size_t)e,
		     s->value[alloc ? GH_ALLOC_OBJECTS : GH_INUSE_OBJECTS]) ||
	    cell_add(&r->sums, 2 * (size_t)e + 1,
		     s->value[alloc ? GH_ALLOC_SPACE : GH_INUSE_SPACE]))
		return -1;
	return 0;
}

/* ---- names and order, from the final profile ---- */

/* What each location gives the name of an entry that has it: its first
 * frame outside the runtime (NULL: none), and its first frame. An
 * unsymbolized location's frame is its PC, in pc. */
struct loc_names {
	const char **own, **first;
	char (*pc)[20];
};

struct name_pick {
	struct loc_names *ln;
	size_t loc;
};

static bool pick_name(void *ctx, const struct frame *fr)
{
	struct name_pick *np = ctx;
	struct loc_names *ln = np->ln;
	const char *name = fr->fn ? fr->fn->name : ln->pc[np->loc];

	if (!fr->fn)
		snprintf(ln->pc[np->loc], sizeof(ln->pc[np->loc]), "0x%" PRIx64,
			 fr->pc);
	if (!ln->first[np->loc])
		ln->first[np->loc] = name;
	if (fr->fn && is_runtime(name))
		return false;
	ln->own[np->loc] = name;
	return true;
}

static int loc_names_build(const struct gh_profile *p, struct loc_names *ln)
{
	size_t n = p->nlocations ? p->nlocations : 1;
	struct name_pick np = {ln, 0};

	ln->own = calloc(n, sizeof(*ln->own));
	ln->first = calloc(n, sizeof(*ln->first));
	ln->pc = calloc(n, sizeof(*ln->pc));
	if (!ln->own || !ln->first || !ln->pc)
		return -1;
	for (np.loc = 0; np.loc < p->nlocations; np.loc++)
		location_frames(p, &p->locations[np.loc], pick_name, &np);
	return 0;
}

static void loc_names_free(struct loc_names *ln)
{
	free(ln->own);
	free(ln->first);
	free(ln->pc);
}

/* The entry's name: its first frame outside the runtime, leaf first,
 * else its first frame; "" for an empty stack. */
static const char *entry_name(const struct json_render *r,
			      const struct loc_names *ln, uint32_t e)
{
	uint32_t node = pairset_a(&r->entries, e);
	uint32_t loc = pairset_b(&r->entries, e);
	const char *first;

	if (loc == NONE)
		return "";
	first = ln->first[loc];
	while (!ln->own[loc]) {
		if (node == NONE)
			return first;
		loc = pairset_b(&r->callers, node);
		node = pairset_a(&r->callers, node);
	}
	return ln->own[loc];
}

struct sort_ctx {
	const struct json_render *r;
	const struct loc_names *ln;
};

static int cmp3(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* Bytes, objects descending, then name, then first-sample order. */
static int cmp_entry(const void *a, const void *b, void *ctx)
{
	const struct sort_ctx *sc = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const char *nx, *ny;
	int c = cmp3(entry_bytes(sc->r, y), entry_bytes(sc->r, x));

	if (!c)
		c = cmp3(entry_objects(sc->r, y), entry_objects(sc->r, x));
	if (!c) {
		nx = entry_name(sc->r, sc->ln, x);
		ny = entry_name(sc->r, sc->ln, y);
		c = nx == ny ? 0 : strcmp(nx, ny);
	}
	return c ? c : cmp3(x, y);
}

/* The entries to write: those with something, sorted, cut to top_n. */
static int order_entries(struct json_render *r, const struct gh_profile *p)
{
	size_t n = r->entries.n, top_n = r->h.o.top_n;
	struct loc_names ln = {0};
	struct sort_ctx sc = {r, &ln};
	uint32_t e, *shrunk;
	int rc = -1;

	r->order = malloc((n ? n : 1) * sizeof(*r->order));
	if (!r->order || loc_names_build(p, &ln))
		goto out;
	for (e = 0; e < n; e++)
		if (entry_bytes(r, e) || entry_objects(r, e))
			r->order[r->nnonzero++] = e;
	qsort_r(r->order, r->nnonzero, sizeof(*r->order), cmp_entry, &sc);
	r->nshown = top_n && top_n < r->nnonzero ? top_n : r->nnonzero;
	shrunk = realloc(r->order,
			 (r->nshown ? r->nshown : 1) * sizeof(*r->order));
	if (shrunk)
		r->order = shrunk;
	rc = 0;
out:
	loc_names_free(&ln);
	return rc;
}

/* ---- writing ---- */

/* Length of the valid UTF-8 sequence at s, 0 if s does not start one.
 * Never reads past a NUL: each byte is checked before the next is read. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		/* No overlong forms (E0 80..9F), no surrogates (ED A0..BF). */
		if (s[0] == 0xe0)
			lo = 0xa0;
		if (s[0] == 0xed)
			hi = 0x9f;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		/* No overlong forms (F0 80..8F), nothing past U+10FFFF. */
		if (s[0] == 0xf0)
			lo = 0x90;
		if (s[0] == 0xf4)
			hi = 0x8f;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

static const char *short_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	}
	return NULL;
}

/* < > & go out as \u escapes, as Go's encoding/json writes them by
 * default, so that a document is safe inside HTML too (the server embeds
 * its strings). */
static bool html_special(unsigned char c)
{
	return c == '<' || c == '>' || c == '&';
}

/* Bytes at s that go out as they are: valid UTF-8, no control character,
 * quote, backslash or < > &, no U+2028/U+2029. */
static size_t plain_run(const unsigned char *s)
{
	size_t len = 0, n;

	while (s[len] >= 0x20 && !short_escape(s[len]) &&
	       !html_special(s[len]) && (n = utf8_len(s + len)) &&
	       !(n == 3 && s[len] == 0xe2 && s[len + 1] == 0x80 &&
		 (s[len + 2] == 0xa8 || s[len + 2] == 0xa9)))
		len += n;
	return len;
}

/* s escaped for the inside of a JSON string. U+2028 and U+2029 are escaped
 * too, as Go does, so the output is also valid JavaScript. Plain runs go
 * out in one write: a large profile's JSON runs to hundreds of MB. */
static void put_escaped(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n = plain_run(s);
		const char *esc;

		if (n) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		n = utf8_len(s);
		esc = short_escape(*s);
		if (!n) {
			fputs("\xef\xbf\xbd", f); /* U+FFFD for a bad byte */
			n = 1;
		} else if (esc) {
			fputs(esc, f);
		} else if (*s < 0x20 || html_special(*s)) {
			fprintf(f, "\\u%04x", *s);
		} else {
			/* U+2028 or U+2029 */
			fprintf(f, "\\u%04x", s[2] == 0xa8 ? 0x2028 : 0x2029);
		}
		s += n;
	}
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	put_escaped(f, s);
	fputc('"', f);
}

void gh_json__quote(FILE *f, const char *s)
{
	put_string(f, s);
}

/* The shortest decimal that reads back as x: plain where Go's encoding/json
 * writes plain numbers (1e-6 <= |x| < 1e21), else with an exponent. */
static void put_double(FILE *f, double x)
{
	bool plain = x == 0 || (fabs(x) >= 1e-6 && fabs(x) < 1e21);
	int prec, max = plain ? 30 : 17;
	char buf[128];

	for (prec = plain ? 0 : 1; prec <= max; prec++) {
		snprintf(buf, sizeof(buf), plain ? "%.*f" : "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	fputs(buf, f);
}

struct stack_out {
	FILE *f;
	bool first;
};

static bool put_frame(void *ctx, const struct frame *fr)
{
	struct stack_out *so = ctx;

	fputs(so->first ? "\n        " : ",\n        ", so->f);
	so->first = false;
	if (!fr->fn) {
		fprintf(so->f, "\"0x%" PRIx64 "\"", fr->pc);
		return false;
	}
	fputc('"', so->f);
	put_escaped(so->f, fr->fn->name);
	if (fr->fn->filename && fr->fn->filename[0] && fr->line > 0) {
		fputs(", ", so->f);
		put_escaped(so->f, fr->fn->filename);
		fprintf(so->f, ":%" PRId64, fr->line);
	}
	fputc('"', so->f);
	return false;
}

/* Every location's frames as put_frame writes them, each frame with its
 * ",\n        " in front: written once, copied into every entry that has
 * them (a profile repeats a few thousand locations over all its entries).
 * Location i's text is buf[off[i], off[i + 1]). */
struct loc_text {
	char *buf;
	size_t size;
	long *off;
};

static int loc_text_build(const struct gh_profile *p, struct loc_text *t)
{
	FILE *m = open_memstream(&t->buf, &t->size);
	struct stack_out so = {m, false};
	size_t i;

	t->off = malloc((p->nlocations + 1) * sizeof(*t->off));
	if (!m || !t->off) {
		if (m)
			fclose(m);
		return -1;
	}
	for (i = 0; i < p->nlocations; i++) {
		t->off[i] = ftell(m);
		location_frames(p, &p->locations[i], put_frame, &so);
	}
	t->off[i] = ftell(m);
	return fclose(m) || t->off[i] < 0 ? -1 : 0;
}

static void loc_text_free(struct loc_text *t)
{
	free(t->buf);
	free(t->off);
}

/* The stack of entry e, leaf first: its leaf, then its callers. */
static void put_stack(FILE *f, const struct json_render *r, uint32_t e,
		      const struct loc_text *t)
{
	uint32_t node = pairset_a(&r->entries, e);
	uint32_t loc = pairset_b(&r->entries, e);
	bool first = true;

	while (loc != NONE) {
		long a = t->off[loc], b = t->off[loc + 1];

		if (a != b) {
			/* The first frame has no comma in front. */
			a += first;
			first = false;
			fwrite(t->buf + a, 1, (size_t)(b - a), f);
		}
		if (node == NONE)
			break;
		loc = pairset_b(&r->callers, node);
		node = pairset_a(&r->callers, node);
	}
	fputs(first ? "]\n    }" : "\n      ]\n    }", f);
}

static void put_entry(FILE *f, const struct json_render *r,
		      const struct loc_names *ln, uint32_t e, const char *kind,
		      const struct loc_text *t)
{
	int64_t bytes = entry_bytes(r, e), objects = entry_objects(r, e);

	fprintf(f, "    {\n      \"kind\": \"%s\",\n      \"name\": ", kind);
	put_string(f, entry_name(r, ln, e));
	fprintf(f,
		",\n      \"bytes\": %" PRId64 ",\n      \"objects\": %" PRId64
		",\n      \"average_bytes\": ",
		bytes, objects);
	put_double(f, objects ? (double)bytes / (double)objects : 0);
	fputs(",\n      \"stack\": [", f);
	put_stack(f, r, e, t);
}

static const char *status_name(enum gh_snap_status s)
{
	switch (s) {
	case GH_SNAP_COMPLETE:
		return "complete";
	case GH_SNAP_PARTIAL:
		return "partial";
	case GH_SNAP_UNAVAILABLE:
		return "unavailable";
	case GH_SNAP_FAILED:
		return "failed";
	case GH_SNAP_MIXED:
		return "mixed";
	}
	return "failed";
}

/* ",\n  \"name\": \"value\"", value escaped. */
static void put_field(FILE *f, const char *name, const char *value)
{
	fprintf(f, ",\n  \"%s\": ", name);
	put_string(f, value);
}

/* Who and how: the fields from "pid" to "backend_notes" (or "trigger"). */
static void put_who(FILE *f, const struct gh_profile *p)
{
	fprintf(f, "{\n  \"pid\": %d,\n  \"runtime_version\": ", p->pid);
	put_string(f, p->go_version);
	put_field(f, "runtime_file", p->runtime_file);
	put_field(f, "comm", p->comm);
	put_field(f, "exe", p->exe);
	put_field(f, "build_id", p->build_id);
	put_field(f, "cgroup", p->cgroup);
	put_field(f, "container_id", p->container_id);
	put_field(f, "container_runtime", p->container_runtime);
	put_field(f, "pod_uid", p->pod_uid);
	fprintf(f, ",\n  \"status\": \"%s\"", status_name(p->status));
	put_field(f, "status_reason", p->status_reason);
	put_field(f, "backend", p->backend);
	put_field(f, "backend_notes", p->backend_notes);
	if (p->trigger[0])
		put_field(f, "trigger", p->trigger);
}

/* The fields from "buckets" to "top_site_bytes". */
static void put_counts(FILE *f, const struct gh_profile *p)
{
	fprintf(f,
		",\n  \"buckets\": %zu,\n  \"buckets_inuse\": %zu,"
		"\n  \"gc_cycles\": %u,\n  \"totals\": {\"alloc_objects\": "
		"%" PRId64 ", \"alloc_space\": %" PRId64
		", \"inuse_objects\": %" PRId64 ", \"inuse_space\": %" PRId64
		"}",
		p->nbuckets, p->nbuckets_inuse, p->gc_cycles ? p->gc_cycles : 1,
		p->total[GH_ALLOC_OBJECTS], p->total[GH_ALLOC_SPACE],
		p->total[GH_INUSE_OBJECTS], p->total[GH_INUSE_SPACE]);
	put_field(f, "top_site", p->top_site);
	fprintf(f, ",\n  \"top_site_bytes\": %" PRId64, p->top_site_bytes);
}

static double rounded_ms(const struct gh_profile *p)
{
	return p->duration_ms > 0 ? ceil(p->duration_ms) : 0;
}

static void put_header(FILE *f, const struct gh_profile *p, bool alloc,
		       bool truncated)
{
	put_who(f, p);
	fprintf(f,
		",\n  \"duration_ms\": %.0f,\n  \"output_truncated\": %s,"
		"\n  \"memprofilerate\": %" PRId64
		",\n  \"sample_index\": \"%s\"",
		rounded_ms(p), truncated ? "true" : "false", p->period,
		alloc ? "alloc_space" : "inuse_space");
	put_counts(f, p);
	fputs(",\n  \"entries\": [", f);
}

int json_index_line(FILE *f, const struct gh_profile *p, const char *file,
		    struct gh_err *err)
{
	FILE *line = oneline_open(f);
	int rc;

	if (!line)
		return err_set(err, GH_E_FAILED, "out of memory");
	put_who(line, p);
	fprintf(line,
		",\n  \"duration_ms\": %.0f,\n  \"memprofilerate\": %" PRId64,
		rounded_ms(p), p->period);
	put_counts(line, p);
	put_field(line, "file", file);
	fputs("\n}", line);
	rc = fclose(line);
	if (rc || fputc('\n', f) == EOF || ferror(f))
		return err_set(err, GH_E_OUTPUT,
			       "cannot write the index: %s; check the output "
			       "directory and free disk space",
			       strerror(errno));
	return 0;
}

static void json_reset(void *st)
{
	struct json_render *r = st;

	pairset_free(&r->callers);
	pairset_free(&r->entries);
	cells_free(&r->sums);
	free(r->last);
	free(r->order);
	*r = (struct json_render){.h = r->h};
}

static int json_open(void **st, const struct gh_write_opts *o, bool own_thread,
		     struct gh_err *err)
{
	struct json_render *r = calloc(1, sizeof(*r));

	(void)own_thread;
	*st = r;
	if (!r)
		return err_set(err, GH_E_FAILED, "out of memory");
	r->h = (struct render_head){o->format == GH_FORMAT_JSONL ? &render_jsonl
								 : &render_json,
				    *o};
	return 0;
}

/* No more entries: drop the indexes, put the entries in order. */
static int json_finish(void *st, const struct gh_profile *p, struct gh_err *err)
{
	struct json_render *r = st;

	pairset_freeze(&r->callers);
	pairset_freeze(&r->entries);
	if (r->bad_refs)
		return err_set(err, GH_E_FAILED,
			       "internal error: a sample refers to a missing "
			       "location or function; please report it");
	if (order_entries(r, p))
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the JSON output");
	r->finished = true;
	return 0;
}

static int json_write(void *st, const struct gh_profile *p, FILE *f,
		      struct gh_err *err)
{
	const struct json_render *r = st;
	bool alloc = r->h.o.index == GH_ALLOC_OBJECTS ||
		     r->h.o.index == GH_ALLOC_SPACE;
	struct loc_text t = {0};
	struct loc_names ln = {0};
	size_t i;

	if (!r->finished)
		return err_set(err, GH_E_FAILED,
			       "internal error: the JSON entries were not "
			       "finished; please report it");
	if (loc_text_build(p, &t) || loc_names_build(p, &ln)) {
		loc_text_free(&t);
		loc_names_free(&ln);
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the JSON output");
	}
	put_header(f, p, alloc, r->nshown < r->nnonzero);
	for (i = 0; i < r->nshown; i++) {
		fputs(i ? ",\n" : "\n", f);
		put_entry(f, r, &ln, r->order[i],
			  alloc ? "alloc_space_objects" : "inuse_space_objects",
			  &t);
	}
	fputs(r->nshown ? "\n  ]\n}\n" : "]\n}\n", f);
	loc_text_free(&t);
	loc_names_free(&ln);
	if (fflush(f) || ferror(f))
		return err_set(err, GH_E_OUTPUT,
			       "cannot write the JSON output: %s; check the "
			       "output path and free disk space",
			       strerror(errno));
	return 0;
}

static void json_free(void *st)
{
	if (!st)
		return;
	json_reset(st);
	free(st);
}

/* The document on one line, for JSON Lines. */
static int jsonl_write(void *st, const struct gh_profile *p, FILE *f,
		       struct gh_err *err)
{
	FILE *line = oneline_open(f);
	struct gh_err e = {GH_OK, ""};
	int rc;

	if (!line)
		return err_set(err, GH_E_FAILED,
			       "out of memory writing the JSON output");
	rc = json_write(st, p, line, &e);
	if (fclose(line) && !rc)
		rc = -1;
	if (!rc && (fputc('\n', f) == EOF || fflush(f)))
		rc = -1;
	if (!rc)
		return 0;
	if (e.code)
		return err_set(err, e.code, "%s", e.msg);
	return err_set(err, GH_E_OUTPUT,
		       "cannot write the JSON output: %s; check the output "
		       "path and free disk space",
		       strerror(errno));
}

const struct render_ops render_json = {
	.format = GH_FORMAT_JSON,
	.open = json_open,
	.sink = {.sample = json_sample,
		 .reset = json_reset,
		 .finish = json_finish,
		 .free = json_free},
	.write = json_write,
};

const struct render_ops render_jsonl = {
	.format = GH_FORMAT_JSONL,
	.open = json_open,
	.sink = {.sample = json_sample,
		 .reset = json_reset,
		 .finish = json_finish,
		 .free = json_free},
	.write = jsonl_write,
};
