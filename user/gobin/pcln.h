/* pcln.h - symbolization from the Go binary's own pclntab (no DWARF):
 * function lookup, file/line, start line and inline frames, for the
 * formats of every supported Go release (layout.h). */
#ifndef GH_GOBIN_PCLN_H
#define GH_GOBIN_PCLN_H

#include <stddef.h>
#include <stdint.h>

#include "gobin/layout.h"
#include "goheap.h"

/* Where the tables are. All addresses are link-time (unbiased) ones. */
struct pcln_src {
	const uint8_t *pcln; /* bytes from pcHeader to the end of pclntab */
	size_t pcln_size;
	uint64_t text_start;   /* runtime.text; overrides pcHeader.textStart */
	const uint8_t *gofunc; /* bytes from go:func.* (moduledata.gofunc) on */
	size_t gofunc_size;
	const struct layout *layout;
};

struct pcln;

/* Validate the header (magic, minLC, ptrSize, offsets within bounds) and
 * index the function table. The source bytes must outlive the handle. */
int pcln__open(const struct pcln_src *src, struct pcln **out,
	       struct gh_err *err);
void pcln__free(struct pcln *p);

/* One frame as runtime.Frame would give it. Strings point into pclntab
 * (not NUL-terminated there, so copied into a per-handle string cache:
 * valid until pcln__free). */
struct goframe {
	const char *function; /* raw symbol name */
	const char *file;     /* "?" when unknown */
	int64_t line;
	int64_t start_line; /* 0 when the version records none */
	uint64_t entry; /* entry of the enclosing real function, 0 if none */
	uint8_t funcid; /* funcID of this (possibly inlined) function */
	bool inlined;	/* frame is inlined into another (Frame.Func == nil) */
};

/* The entry and end (the next function's entry) of the function whose
 * pclntab name is name; the largest body when several functions share the
 * name. 0, or -1 when no function has it. */
int pcln__func_by_name(struct pcln *p, const char *name, uint64_t *entry,
		       uint64_t *end);

/* runtime.FuncForPC(pc).Name() semantics: the innermost function at pc
 * (inline tree looked up at pc itself). NULL when pc is in no function. */
const char *pcln__funcname_for_pc(struct pcln *p, uint64_t pc);

/* runtime.CallersFrames([]uintptr{pc}).Next() for a return PC: looks up at
 * pc-1 when pc > entry, fills *f with the innermost frame there and returns
 * 1; returns 0 when pc is in no function. */
int pcln__frame(struct pcln *p, uint64_t pc, struct goframe *f);

/* What an unwinder needs of the function holding pc (runtime.findfunc
 * and funcspdelta): its entry, funcID and flag (abi.FuncFlag), its name,
 * and the frame's size at pc from its pcsp table (-1 when it has none or
 * the table does not cover pc). 1, or 0 when pc is in no function. */
struct gofunc {
	uint64_t entry;
	int32_t spdelta;
	uint8_t funcid, flag;
	const char *name;
};
#define GOFUNC_TOPFRAME 1 /* abi.FuncFlagTopFrame */
#define GOFUNC_SPWRITE	2 /* abi.FuncFlagSPWrite */
int pcln__func_at(struct pcln *p, uint64_t pc, struct gofunc *out);

/* The logical frames at pc (a PC to look up, not a return PC) of the
 * function holding it, innermost first, as the runtime's inline unwinder
 * gives them: each one's PC (the call's, in the caller) and funcID.
 * Returns how many were written (at most max), 0 when pc is in no
 * function. */
size_t pcln__inline_frames(struct pcln *p, uint64_t pc, uint64_t *pcs,
			   uint8_t *funcids, size_t max);

/* runtime.funcdata(f, i) of the function holding pc: its bytes in
 * go:func.* and how many of them the section holds from there; NULL
 * when it has none. And pcdatavalue(f, table, pc): -1 when none. */
const uint8_t *pcln__funcdata(struct pcln *p, uint64_t pc, uint32_t i,
			      size_t *avail);
int32_t pcln__pcdata(struct pcln *p, uint64_t pc, uint32_t table);

/* runtime_expandFinalInlineFrame: when the last PC of stk is inside
 * inlined code (looked up at pc-1), append the PCs of the remaining outer
 * frames of its inline chain, skipping wrapper functions. out must hold
 * n + 64 entries; returns the new length. */
size_t pcln__expand_final_inline(struct pcln *p, const uint64_t *stk, size_t n,
				 uint64_t *out);

/* runtime/pprof's expandInlinedFrames (go1.23+): runtime.CallersFrames
 * over return PCs stk[0..n), inserting the virtual PCs of inlined calls
 * the stack lacks, each frame as f.PC + 1 into out, at most max; PCs in
 * no function give none. Returns the count. */
size_t pcln__callers_frames(struct pcln *p, const uint64_t *stk, size_t n,
			    uint64_t *out, size_t max);

#endif
