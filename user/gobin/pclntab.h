/* pclntab.h - the pclntab's decoded records and the table lookups that
 * pcln.c (opening, findfunc, pcvalue, the inline tree) shares with
 * pclnframes.c (the runtime's lookups built on them: frames, inline
 * expansion, funcdata and pcdata). Internal to gobin/: pcln.h is the
 * interface. */
#ifndef GH_GOBIN_PCLNTAB_H
#define GH_GOBIN_PCLNTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct layout;

#define PCHDR_SIZE	    72 /* magic, pads, minLC, ptrSize, 8 words */
#define PCDATA_INLTREEINDEX 2  /* abi.PCDATA_InlTreeIndex */
#define FUNCDATA_INLTREE    3  /* abi.FUNCDATA_InlTree */
#define FUNCID_NORMAL	    0  /* abi.FuncIDNormal */
#define FUNCDATA_NONE	    0xffffffffu
#define CUTAB_NONE	    0xffffffffu
/* Steps of one inline chain's expansion: at most one frame each, in the
 * last PC's place and the 64 after it that out has (pcln.h). Wrappers
 * it hides are steps too, so a chain that leads back into itself (a
 * parent PC inside the same inlined call) ends. */
#define MAX_EXPAND 65

/* A byte range inside the pclntab. */
struct span {
	const uint8_t *p;
	size_t len;
};

struct pcln {
	const struct layout *layout;
	uint8_t minlc;
	uint32_t nfunc;
	uint64_t text_start;
	uint32_t text_end_off; /* ftab[nfunc].entryoff: end of text */
	struct span funcname, cutab, filetab, pctab, functab, gofunc;
};

/* A function's _func record, decoded. */
struct func {
	const uint8_t *rec; /* the record (pcdata/funcdata follow it) */
	size_t avail;	    /* bytes from rec to the end of functab */
	uint64_t entry;
	int32_t name_off;
	uint32_t pcsp, pcfile, pcln, npcdata, cu_off;
	int32_t start_line;
	uint8_t funcid, flag, nfuncdata;
};

/* One inlinedCall record, decoded for either layout. */
struct inl {
	int32_t name_off, parent_pc, start_line;
	uint8_t funcid;
};

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

const char *table_str(const struct span *t, int64_t off);
const char *func_name(const struct pcln *p, int32_t off, bool physical);
int findfunc(const struct pcln *p, uint64_t pc, struct func *f);
int func__word(const struct pcln *p, const struct func *f, uint64_t idx,
	       uint32_t *v);
int32_t pcvalue(const struct pcln *p, const struct func *f, uint32_t off,
		uint64_t target);
int32_t inl_index(const struct pcln *p, const struct func *f, uint64_t pc,
		  uint32_t *tree);
int inl__at(const struct pcln *p, uint32_t tree, int32_t ix, struct inl *c);

#endif
