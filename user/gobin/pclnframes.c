/* pclnframes.c - the runtime's own lookups over a Go binary's pclntab
 * (pcln.h): a PC's function name and frame (runtime.FuncForPC,
 * CallersFrames), runtime/pprof's expansion of a stack's final inline
 * frame, a PC's logical frames, funcdata and pcdata, and the callers'
 * frames of a block or mutex stack. Built on pcln.c's table lookups
 * (pclntab.h), each following the runtime's symtab.go of the target's
 * release. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "gobin/pcln.h"
#include "gobin/pclntab.h"

/* ---- the runtime's lookups ---- */

const char *pcln__funcname_for_pc(struct pcln *p, uint64_t pc)
{
	struct func f;
	struct inl c;
	uint32_t tree;
	int32_t ix;

	if (findfunc(p, pc, &f) < 0)
		return NULL;
	ix = inl_index(p, &f, pc, &tree);
	if (ix >= 0 && inl__at(p, tree, ix, &c) == 0)
		return func_name(p, c.name_off, false);
	return func_name(p, f.name_off, true);
}

/* runtime.funcline1 (non-strict): file and line at pc. */
static void funcline(const struct pcln *p, const struct func *f, uint64_t pc,
		     const char **file, int64_t *line)
{
	int32_t fileno = pcvalue(p, f, f->pcfile, pc);
	int32_t ln = pcvalue(p, f, f->pcln, pc);
	uint64_t cu;
	uint32_t off;

	*file = "?";
	*line = 0;
	if (fileno == -1 || ln == -1 ||
	    (uint64_t)(int64_t)fileno >= p->filetab.len)
		return;
	*line = ln;
	cu = 4 * ((uint64_t)f->cu_off + (uint32_t)fileno);
	if (cu + 4 > p->cutab.len)
		return;
	off = le32(p->cutab.p + cu);
	if (off != CUTAB_NONE && table_str(&p->filetab, off))
		*file = table_str(&p->filetab, off);
}

int pcln__frame(struct pcln *p, uint64_t pc, struct goframe *fr)
{
	struct func f;
	struct inl c;
	uint32_t tree;
	int32_t ix;

	if (findfunc(p, pc, &f) < 0)
		return 0;
	/* A return PC: look at the call instruction before it. */
	if (pc > f.entry)
		pc--;
	fr->function = func_name(p, f.name_off, true);
	fr->start_line = f.start_line;
	fr->funcid = f.funcid;
	fr->inlined = false;
	ix = inl_index(p, &f, pc, &tree);
	if (ix >= 0 && inl__at(p, tree, ix, &c) == 0) {
		fr->function = func_name(p, c.name_off, false);
		fr->start_line = c.start_line;
		fr->funcid = c.funcid;
		fr->inlined = true;
	}
	fr->entry = f.entry;
	funcline(p, &f, pc, &fr->file, &fr->line);
	return 1;
}

/* traceback.go elideWrapperCalling: a wrapper is hidden unless what it
 * called was a panic. */
static bool elide_wrapper_calling(const struct layout *L, uint8_t callee)
{
	return callee != L->funcid_gopanic && callee != L->funcid_sigpanic &&
	       callee != L->funcid_panicwrap;
}

size_t pcln__expand_final_inline(struct pcln *p, const uint64_t *stk, size_t n,
				 uint64_t *out)
{
	const struct layout *L = p->layout;
	struct func f;
	struct inl c;
	uint64_t tracepc;
	uint32_t tree;
	uint8_t callee = FUNCID_NORMAL, id;
	int32_t ix;
	size_t k, step;

	memmove(out, stk, n * sizeof(*out));
	if (n == 0)
		return 0;
	tracepc = stk[n - 1] - 1;
	if (findfunc(p, tracepc, &f) < 0)
		return n;
	ix = inl_index(p, &f, tracepc, &tree);
	if (ix < 0)
		return n;
	/* Replace the last PC by its whole inline chain, innermost first,
	 * as return PCs (call PC + 1). */
	k = n - 1;
	for (step = 0; step < MAX_EXPAND; step++) {
		if (ix < 0) {
			/* The physical function. go1.21+ runs it through the
			 * wrapper check like the inlined frames; earlier
			 * releases always keep it. */
			if (L->minor < 21 || f.funcid != L->funcid_wrapper ||
			    !elide_wrapper_calling(L, callee))
				out[k++] = tracepc + 1;
			break;
		}
		if (inl__at(p, tree, ix, &c) < 0)
			break;
		id = c.funcid;
		if (id != L->funcid_wrapper ||
		    !elide_wrapper_calling(L, callee))
			out[k++] = tracepc + 1;
		callee = id;
		tracepc = f.entry + (uint64_t)(int64_t)c.parent_pc;
		ix = inl_index(p, &f, tracepc, &tree);
	}
	return k;
}

int pcln__func_at(struct pcln *p, uint64_t pc, struct gofunc *out)
{
	struct func f;

	if (findfunc(p, pc, &f) < 0)
		return 0;
	out->entry = f.entry;
	out->funcid = f.funcid;
	out->flag = f.flag;
	out->name = func_name(p, f.name_off, true);
	out->spdelta = pcvalue(p, &f, f.pcsp, pc);
	return 1;
}

size_t pcln__inline_frames(struct pcln *p, uint64_t pc, uint64_t *pcs,
			   uint8_t *funcids, size_t max)
{
	struct func f;
	struct inl c;
	uint32_t tree;
	int32_t ix;
	size_t n = 0;

	if (findfunc(p, pc, &f) < 0)
		return 0;
	ix = inl_index(p, &f, pc, &tree);
	/* Each inlined call, then the physical function; a chain that
	 * leads back into itself ends at max. */
	while (n < max && ix >= 0 && inl__at(p, tree, ix, &c) == 0) {
		pcs[n] = pc;
		funcids[n++] = c.funcid;
		pc = f.entry + (uint64_t)(int64_t)c.parent_pc;
		ix = inl_index(p, &f, pc, &tree);
	}
	if (n < max) {
		pcs[n] = pc;
		funcids[n++] = f.funcid;
	}
	return n;
}

const uint8_t *pcln__funcdata(struct pcln *p, uint64_t pc, uint32_t i,
			      size_t *avail)
{
	struct func f;
	uint32_t off;

	if (findfunc(p, pc, &f) < 0 || i >= f.nfuncdata ||
	    func__word(p, &f, (uint64_t)f.npcdata + i, &off) < 0 ||
	    off == FUNCDATA_NONE || off >= p->gofunc.len)
		return NULL;
	*avail = p->gofunc.len - off;
	return p->gofunc.p + off;
}

int32_t pcln__pcdata(struct pcln *p, uint64_t pc, uint32_t table)
{
	struct func f;
	uint32_t off;

	if (findfunc(p, pc, &f) < 0 || table >= f.npcdata ||
	    func__word(p, &f, table, &off) < 0)
		return -1;
	return pcvalue(p, &f, off, pc);
}

/* The funcID of the frame at tracepc of f: its inline-tree entry's, or
 * the physical function's when ix < 0; 0 with *ok false when the tree
 * cannot be read. */
static uint8_t frame_funcid(const struct pcln *p, const struct func *f,
			    uint32_t tree, int32_t ix, struct inl *c, bool *ok)
{
	*ok = true;
	if (ix < 0)
		return f->funcid;
	if (inl__at(p, tree, ix, c) < 0) {
		*ok = false;
		return 0;
	}
	return c->funcid;
}

/* Frames.Next of go1.23+ (runtime/symtab.go): for a PC inside inlined
 * code, the outer frame's virtual PC is inserted unless the stack holds
 * it next (wrappers skipped as tracebackPCs skips them); the stack's last
 * PC gets none. */
size_t pcln__callers_frames(struct pcln *p, const uint64_t *stk, size_t n,
			    uint64_t *out, size_t max)
{
	const struct layout *L = p->layout;
	uint64_t next = 0, pc, upc;
	size_t i = 0, k = 0, step;
	struct func f;
	struct inl c;
	uint32_t tree;
	int32_t ix, uix;
	uint8_t sf;
	bool ok;

	while (k < max && (next || i < n)) {
		if (next) {
			pc = next;
			next = 0;
		} else {
			pc = stk[i++];
		}
		if (findfunc(p, pc, &f) < 0)
			continue; /* no cgo symbolizer: no frame */
		if (pc > f.entry)
			pc--;
		ix = inl_index(p, &f, pc, &tree);
		sf = frame_funcid(p, &f, tree, ix, &c, &ok);
		upc = ix >= 0 && ok ? f.entry + (uint64_t)(int64_t)c.parent_pc
				    : 0;
		for (step = 0;
		     upc && i < n && stk[i] != upc + 1 && step < MAX_EXPAND;
		     step++) {
			uix = inl_index(p, &f, upc, &tree);
			if (frame_funcid(p, &f, tree, uix, &c, &ok) !=
				    L->funcid_wrapper ||
			    !ok || !elide_wrapper_calling(L, sf)) {
				next = upc + 1;
				break;
			}
			if (uix < 0)
				break; /* the physical frame was the last */
			upc = f.entry + (uint64_t)(int64_t)c.parent_pc;
		}
		out[k++] = pc + 1;
	}
	return k;
}
