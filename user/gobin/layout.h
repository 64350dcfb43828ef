/* layout.h - what changes between Go releases: memRecord shape, stack depth
 * limits, pclntab formats, and how runtime/pprof names and merges frames.
 * One table row per supported minor release (user/layout.c). */
#ifndef GH_LAYOUT_H
#define GH_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "goheap.h"

struct layout {
	int minor; /* Go 1.<minor> */
	/* runtime/mprof.go */
	uint32_t nstk_max;     /* deepest stack a heap bucket can hold */
	uint32_t cycle_words;  /* words per memRecordCycle: 4, or 2 from 1.27 */
	uint32_t rec_bytes;    /* sizeof(memRecord) = 4 * cycle_words * 8 */
	const char *cycle_sym; /* runtime.mProfCycle, or runtime.mProf (1.18) */
	bool cycle_has_flag_bit; /* 1.19+: cycle = v >> 1 */
	/* runtime/symtab.go, cmd/link pclntab */
	uint32_t pcln_magic;	  /* 0xfffffff0 (1.18-1.19) or 0xfffffff1 */
	uint32_t func_size;	  /* sizeof(_func) without pcdata: 40 or 44 */
	bool func_has_start_line; /* _func.startLine at 36 (1.20+) */
	uint32_t inl_size;	  /* sizeof(inlinedCall): 20 (<=1.19) or 16 */
	bool textstart_zero;	/* pcHeader.textStart 0: runtime.text (1.26+) */
	uint8_t funcid_wrapper; /* abi.FuncID_wrapper */
	/* elideWrapperCalling: a wrapper calling one of these is kept */
	uint8_t funcid_gopanic, funcid_panicwrap, funcid_sigpanic;
	/* abi.FuncID_cgocallback: the unwinder goes on through it (it writes
	 * SP, but keeps both stacks unwindable) */
	uint8_t funcid_cgocallback;
	/* runtime/pprof */
	bool hide_internal_runtime; /* hideRuntime also drops
				       "internal/runtime/" (1.24+) */
	bool raw_func_names;  /* Function.name is the raw symbol name (1.21+) */
	bool merge_raw_names; /* pcDeck compares raw names (1.22+) */
	bool scale_by_size;   /* scaleHeapSample(count, b.size, rate) (1.27+) */
	bool bytes_label_always; /* "bytes" label = b.size on every sample
				    (1.27+) */
	/* runtime/pprof's legacy text (writeHeapInternal, debug=1) */
	bool text_ascending;	 /* records by in-use bytes ascending
				    (slices.SortFunc, 1.23+), else descending
				    (sort.Slice) */
	bool text_pdqsort;	 /* sorted by pdqsort (1.19+), else by 1.18's
				    quicksort */
	bool text_xorshift_7_17; /* pdqsort's breakPatterns: xorshift by
				    13, 7, 17 (1.24+), else 13, 17, 5 */
	bool text_alloc_bump;	 /* the header's alloc bytes + 1 when they equal
				    the in-use bytes (1.20+) */
	/* runtime.Frame.Function of a generic function (funcNameForPrint) */
	enum frame_names {
		FRAME_NAMES_RAW = 0, /* the symbol's name (<= 1.20) */
		FRAME_NAMES_SHAPES,  /* its type list as "[...]" (1.21-1.26) */
		FRAME_NAMES_TWO_LISTS, /* and a generic type's method's two
					  lists, each (1.27+) */
	} frame_names;
};

/* Parse a runtime version string ("go1.27.4", "go1.22.0 X:nocoverage") and
 * return its layout row. UNSUPPORTED, naming the version, when none fits:
 * an unknown layout is refused, never guessed. */
const struct layout *layout__for(const char *version, struct gh_err *err);

#endif
