/* pcln.c - symbolization from a Go binary's pclntab, the tables the Go
 * runtime itself uses for runtime.FuncForPC and runtime.CallersFrames.
 * Each lookup repeats the runtime's own steps (runtime/symtab.go,
 * runtime/symtabinl.go of the target's release): findfunc over the
 * function table, pcvalue over the pc-value tables, the inline tree of
 * go:func.*. Every offset read from the tables is checked against the
 * bounds of the table it points into; lookups allocate nothing.
 *
 * Strings are returned as pointers into the caller's pclntab bytes: every
 * name in funcnametab and filetab is NUL-terminated, and open() checks
 * that each table ends in a NUL, so any in-bounds offset yields a
 * terminated string that lives as long as the source bytes. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "gobin/pcln.h"
#include "gobin/pclntab.h"

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The NUL-terminated string at off in a NUL-ended table, or NULL. */
const char *table_str(const struct span *t, int64_t off)
{
	if (off < 0 || (uint64_t)off >= t->len)
		return NULL;
	return (const char *)t->p + off;
}

/* A function name as the runtime reads it: funcname() gives "" for
 * nameOff 0 (the first name in the table), and so does every name lookup
 * from go1.21 (moduledata.funcName); earlier inline-tree lookups do not
 * check. */
const char *func_name(const struct pcln *p, int32_t off, bool physical)
{
	const char *s;

	if (off == 0 && (physical || p->layout->minor >= 21))
		return "";
	s = table_str(&p->funcname, off);
	return s ? s : "";
}

/* ---- opening ---- */

static int header_span(const uint8_t *pcln, size_t size, uint64_t from,
		       uint64_t to, struct span *out)
{
	if (from < PCHDR_SIZE || from > to || to > size)
		return -1;
	out->p = pcln + from;
	out->len = (size_t)(to - from);
	return 0;
}

/* Check the function table is whole and sorted by entry, as
 * moduledataverify1 does, so binary search is sound. */
static int check_ftab(const struct pcln *p)
{
	uint32_t i, prev = 0, e;

	if ((uint64_t)p->nfunc * 8 + 8 > p->functab.len)
		return -1;
	for (i = 0; i <= p->nfunc; i++) {
		e = le32(p->functab.p + 8 * (size_t)i);
		if (e < prev)
			return -1;
		prev = e;
	}
	return 0;
}

static int parse_header(struct pcln *p, const struct pcln_src *src,
			struct gh_err *err)
{
	const uint8_t *h = src->pcln;
	uint64_t nfunc, off[5];
	int i;

	if (!h || src->pcln_size < PCHDR_SIZE)
		return err_set(err, GH_E_NOTGO,
			       "pclntab is missing or shorter than its header");
	if (le32(h) != src->layout->pcln_magic || h[4] != 0 || h[5] != 0)
		return err_set(err, GH_E_UNSUPPORTED,
			       "pclntab magic %#x is not go1.%d's %#x: the "
			       "binary's Go version and pclntab disagree",
			       le32(h), src->layout->minor,
			       src->layout->pcln_magic);
	if ((h[6] != 1 && h[6] != 2 && h[6] != 4) || h[7] != 8)
		return err_set(err, GH_E_UNSUPPORTED,
			       "pclntab has minLC %u and pointer size %u: "
			       "only 64-bit targets are supported",
			       h[6], h[7]);
	p->minlc = h[6];
	nfunc = le64(h + 8);
	if (nfunc == 0 || nfunc >= UINT32_MAX)
		return err_set(err, GH_E_FAILED,
			       "pclntab claims %llu functions: damaged",
			       (unsigned long long)nfunc);
	p->nfunc = (uint32_t)nfunc;
	p->text_start = src->text_start ? src->text_start : le64(h + 24);
	for (i = 0; i < 5; i++)
		off[i] = le64(h + 32 + 8 * i);
	if (header_span(h, src->pcln_size, off[0], off[1], &p->funcname) < 0 ||
	    header_span(h, src->pcln_size, off[1], off[2], &p->cutab) < 0 ||
	    header_span(h, src->pcln_size, off[2], off[3], &p->filetab) < 0 ||
	    header_span(h, src->pcln_size, off[3], off[4], &p->pctab) < 0 ||
	    header_span(h, src->pcln_size, off[4], src->pcln_size,
			&p->functab) < 0)
		return err_set(err, GH_E_FAILED,
			       "pclntab table offsets run outside its %zu "
			       "bytes: damaged",
			       src->pcln_size);
	return 0;
}

int pcln__open(const struct pcln_src *src, struct pcln **out,
	       struct gh_err *err)
{
	struct pcln *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return err_set(err, GH_E_FAILED, "out of memory");
	p->layout = src->layout;
	p->gofunc.p = src->gofunc;
	p->gofunc.len = src->gofunc ? src->gofunc_size : 0;
	if (parse_header(p, src, err) < 0)
		goto fail;
	if (p->text_start == 0) {
		err_set(err, GH_E_FAILED,
			"no text start address for the pclntab (go1.26+ "
			"needs runtime.text)");
		goto fail;
	}
	if (p->funcname.len == 0 || p->funcname.p[p->funcname.len - 1] ||
	    p->filetab.len == 0 || p->filetab.p[p->filetab.len - 1] ||
	    check_ftab(p) < 0) {
		err_set(err, GH_E_FAILED,
			"pclntab name or function tables are malformed: "
			"the binary is damaged");
		goto fail;
	}
	p->text_end_off = le32(p->functab.p + 8 * (size_t)p->nfunc);
	*out = p;
	return 0;
fail:
	free(p);
	return -1;
}

void pcln__free(struct pcln *p)
{
	free(p);
}

/* ---- findfunc and _func ---- */

/* Decode the _func at funcoff; -1 if it does not fit in functab. */
static int func__at(const struct pcln *p, uint32_t funcoff, struct func *f)
{
	const struct layout *L = p->layout;
	const uint8_t *r;

	if (funcoff > p->functab.len || L->func_size > p->functab.len - funcoff)
		return -1;
	r = p->functab.p + funcoff;
	f->rec = r;
	f->avail = p->functab.len - funcoff;
	f->entry = p->text_start + le32(r);
	f->name_off = (int32_t)le32(r + 4);
	f->pcsp = le32(r + 16);
	f->pcfile = le32(r + 20);
	f->pcln = le32(r + 24);
	f->npcdata = le32(r + 28);
	f->cu_off = le32(r + 32);
	f->start_line = L->func_has_start_line ? (int32_t)le32(r + 36) : 0;
	f->funcid = r[L->func_size - 4];
	f->flag = r[L->func_size - 3];
	f->nfuncdata = r[L->func_size - 1];
	return 0;
}

/* runtime.findfunc: the last function whose entry is <= pc, for pc in
 * [first entry, end of text). */
int findfunc(const struct pcln *p, uint64_t pc, struct func *f)
{
	uint64_t off64;
	uint32_t off, lo = 0, hi, mid;

	if (pc < p->text_start)
		return -1;
	off64 = pc - p->text_start;
	if (off64 >= p->text_end_off || off64 < le32(p->functab.p))
		return -1;
	off = (uint32_t)off64;
	/* Invariant: entry[lo] <= off < entry[hi]. */
	hi = p->nfunc;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (le32(p->functab.p + 8 * (size_t)mid) <= off)
			lo = mid;
		else
			hi = mid;
	}
	return func__at(p, le32(p->functab.p + 8 * (size_t)lo + 4), f);
}

int pcln__func_by_name(struct pcln *p, const char *name, uint64_t *entry,
		       uint64_t *end)
{
	uint32_t i, lo, hi, best = 0;
	struct func f;
	int found = -1;

	for (i = 0; i < p->nfunc; i++) {
		if (func__at(p, le32(p->functab.p + 8 * (size_t)i + 4), &f) <
			    0 ||
		    strcmp(func_name(p, f.name_off, true), name) != 0)
			continue;
		lo = le32(p->functab.p + 8 * (size_t)i);
		hi = le32(p->functab.p + 8 * (size_t)i + 8);
		if (found == 0 && hi - lo <= best)
			continue;
		best = hi - lo;
		*entry = p->text_start + lo;
		*end = p->text_start + hi;
		found = 0;
	}
	return found;
}

/* The u32 at index i of the array starting idx words after the record. */
int func__word(const struct pcln *p, const struct func *f, uint64_t idx,
	       uint32_t *v)
{
	uint64_t at = p->layout->func_size + 4 * idx;

	if (at + 4 > f->avail)
		return -1;
	*v = le32(f->rec + at);
	return 0;
}

/* ---- pc-value tables ---- */

/* runtime.readvarint: a uint32 varint; 0 bytes when truncated. */
static size_t read_varint(const uint8_t *p, size_t len, uint32_t *v)
{
	uint32_t shift = 0, r = 0;
	size_t n = 0;
	uint8_t b;

	do {
		if (n >= len || n >= 5)
			return 0;
		b = p[n++];
		r |= (uint32_t)(b & 0x7f) << (shift & 31);
		shift += 7;
	} while (b & 0x80);
	*v = r;
	return n;
}

/* runtime.pcvalue, non-strict: the value the table at off gives for
 * target, -1 when off is 0 or the table has no row covering target. */
int32_t pcvalue(const struct pcln *p, const struct func *f, uint32_t off,
		uint64_t target)
{
	const uint8_t *t;
	size_t len, n;
	uint64_t pc = f->entry;
	uint32_t val = (uint32_t)-1, uv, pcd;

	if (off == 0 || off >= p->pctab.len)
		return -1;
	t = p->pctab.p + off;
	len = p->pctab.len - off;
	for (;;) {
		if (len == 0 || (t[0] == 0 && pc != f->entry))
			return -1;
		n = read_varint(t, len, &uv);
		if (n == 0)
			return -1;
		t += n, len -= n;
		val += -(uv & 1) ^ (uv >> 1);
		n = read_varint(t, len, &pcd);
		if (n == 0)
			return -1;
		t += n, len -= n;
		pc += (uint32_t)(pcd * p->minlc);
		if (target < pc)
			return (int32_t)val;
	}
}

/* ---- inline tree ---- */

/* Index of the innermost inlined call at pc, or -1 for the function
 * itself; *tree is set to the inline tree's offset in gofunc. */
int32_t inl_index(const struct pcln *p, const struct func *f, uint64_t pc,
		  uint32_t *tree)
{
	uint32_t pcdata;

	if (f->nfuncdata <= FUNCDATA_INLTREE ||
	    f->npcdata <= PCDATA_INLTREEINDEX)
		return -1;
	if (func__word(p, f, (uint64_t)f->npcdata + FUNCDATA_INLTREE, tree) <
		    0 ||
	    *tree == FUNCDATA_NONE)
		return -1;
	if (func__word(p, f, PCDATA_INLTREEINDEX, &pcdata) < 0)
		return -1;
	return pcvalue(p, f, pcdata, pc);
}

int inl__at(const struct pcln *p, uint32_t tree, int32_t ix, struct inl *c)
{
	uint64_t sz = p->layout->inl_size;
	uint64_t at = (uint64_t)tree + (uint64_t)ix * sz;
	const uint8_t *r;

	if (ix < 0 || at + sz > p->gofunc.len)
		return -1;
	r = p->gofunc.p + at;
	if (sz == 20) { /* go1.18-1.19: parent, funcID, _, file, line, func_,
			   parentPc */
		c->funcid = r[2];
		c->name_off = (int32_t)le32(r + 12);
		c->parent_pc = (int32_t)le32(r + 16);
		c->start_line = 0;
	} else { /* go1.20+: funcID, _[3], nameOff, parentPc, startLine */
		c->funcid = r[0];
		c->name_off = (int32_t)le32(r + 4);
		c->parent_pc = (int32_t)le32(r + 8);
		c->start_line = (int32_t)le32(r + 12);
	}
	return 0;
}
