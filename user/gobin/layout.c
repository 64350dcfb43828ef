/* layout.c - the per-release facts goheap-bpf depends on, one row per
 * supported Go minor release, each checked against that release's
 * GOROOT/src (file names below), and the parser that picks a row from a
 * runtime version string.
 *
 * runtime/mprof.go: memRecordCycle is {allocs, frees, alloc_bytes,
 *   free_bytes} up to 1.26 and {allocs, frees} from 1.27. Heap stacks hold
 *   at most maxStack = 32 PCs up to 1.22 and maxProfStackDepth = 1024 from
 *   1.23. From 1.26 mProf_Malloc asks callers() for profstackdepth+2 PCs,
 *   but bucket.stk() throws "bad profile stack count" for nstk > 1024 and
 *   stkbucket() calls it on every new bucket, so a live bucket never holds
 *   more than 1024. The cycle counter is mProf.cycle (1.18) or
 *   mProfCycle, whose value is cycle<<1 | flushed (1.19+).
 * runtime/symtab.go, runtime/symtabinl.go, cmd/link/internal/ld/pcln.go:
 *   pcHeader magic 0xfffffff0 (1.18-1.19) / 0xfffffff1 (1.20+), _func is
 *   40 bytes (1.18-1.19) or 44 with startLine (1.20+), inlinedCall is 20
 *   bytes (1.18-1.19) or 16 (1.20+); pcHeader.textStart is an unused
 *   word from 1.26. FuncIDs are the iota positions in runtime/symtab.go
 *   (up to 1.20) and internal/abi/symtab.go (1.21+): corostart was added
 *   in 1.22, runFinalizers/runCleanups replaced runfinq in 1.25.
 * runtime/pprof: hideRuntime also drops "internal/runtime/" from 1.24
 *   (protomem.go); Function names are runtime_FrameSymbolName from 1.21
 *   and pcDeck.tryAdd compares those raw names from 1.22 (proto.go);
 *   1.27's writeHeapProto scales by ObjectSize and always labels "bytes".
 *   writeHeapInternal's debug=1 text (pprof.go) sorts its records with
 *   sort.Slice by descending in-use bytes up to 1.22 and slices.SortFunc
 *   by ascending from 1.23 (sort.Slice is a quicksort in 1.18 and a
 *   pdqsort from 1.19, which slices.SortFunc runs too; from 1.24 the
 *   xorshift its breakPatterns draws from shifts by 13, 7, 17, not 13,
 *   17, 5), bumps the header's
 * alloc bytes past equal in-use bytes from 1.20, and its printStackRecord hides
 * leading "internal/runtime/" frames too from 1.24. runtime/symtab.go,
 * runtime/traceback.go: Frames.Next gives the symbol's name up to 1.20 and
 * funcNameForPrint's from 1.21, which also prints the second list of
 * "T[...].m[...]" as "[...]" from 1.27.
 */
#include <string.h>

#include "base/err.h"
#include "gobin/layout.h"

#define GH_MINOR_FIRST 18
#define GH_MINOR_LAST  27

/* Columns that change together are spelled out per row so that each row
 * can be read against one release's sources. */
static const struct layout layouts[] = {
	{
		.minor = 18,
		.nstk_max = 32,
		.cycle_words = 4,
		.rec_bytes = 128,
		.cycle_sym = "runtime.mProf",
		.cycle_has_flag_bit = false,
		.pcln_magic = 0xfffffff0,
		.func_size = 40,
		.func_has_start_line = false,
		.inl_size = 20,
		.textstart_zero = false,
		.funcid_wrapper = 21,
		.funcid_gopanic = 9,
		.funcid_panicwrap = 14,
		.funcid_sigpanic = 18,
		.funcid_cgocallback = 4,
	},
	{
		.minor = 19,
		.nstk_max = 32,
		.cycle_words = 4,
		.rec_bytes = 128,
		.cycle_sym = "runtime.mProfCycle",
		.cycle_has_flag_bit = true,
		.pcln_magic = 0xfffffff0,
		.func_size = 40,
		.func_has_start_line = false,
		.inl_size = 20,
		.textstart_zero = false,
		.funcid_wrapper = 21,
		.funcid_gopanic = 9,
		.funcid_panicwrap = 14,
		.funcid_sigpanic = 18,
		.funcid_cgocallback = 4,
		.text_pdqsort = true,
	},
	{
		.minor = 20,
		.nstk_max = 32,
		.cycle_words = 4,
		.rec_bytes = 128,
		.cycle_sym = "runtime.mProfCycle",
		.cycle_has_flag_bit = true,
		.pcln_magic = 0xfffffff1,
		.func_size = 44,
		.func_has_start_line = true,
		.inl_size = 16,
		.textstart_zero = false,
		.funcid_wrapper = 21,
		.funcid_gopanic = 9,
		.funcid_panicwrap = 14,
		.funcid_sigpanic = 18,
		.funcid_cgocallback = 4,
		.text_alloc_bump = true,
		.text_pdqsort = true,
	},
	{
		.minor = 21,
		.nstk_max = 32,
		.cycle_words = 4,
		.rec_bytes = 128,
		.cycle_sym = "runtime.mProfCycle",
		.cycle_has_flag_bit = true,
		.pcln_magic = 0xfffffff1,
		.func_size = 44,
		.func_has_start_line = true,
		.inl_size = 16,
		.textstart_zero = false,
		.funcid_wrapper = 21,
		.funcid_gopanic = 9,
		.funcid_panicwrap = 14,
		.funcid_sigpanic = 18,
		.funcid_cgocallback = 4,
		.raw_func_names = true,
		.text_alloc_bump = true,
		.frame_names = FRAME_NAMES_SHAPES,
		.text_pdqsort = true,
	},
	{
		.minor = 22,
		.nstk_max = 32,
		.cycle_words = 4,
		.rec_bytes = 128,
		.cycle_sym = "runtime.mProfCycle",
		.cycle_has_flag_bit = true,
		.pcln_magic = 0xfffffff1,
		.func_size = 44,
		.func_has_start_line = true,
		.inl_size = 16,
		.textstart_zero = false,
		.funcid_wrapper = 22,
		.funcid_gopanic = 10,
		.funcid_panicwrap = 15,
		.funcid_sigpanic = 19,
		.funcid_cgocallback = 4,
		.raw_func_names = true,
		.merge_raw_names = true,
		.text_alloc_bump = true,
		.frame_names = FRAME_NAMES_SHAPES,
		.text_pdqsort = true,
	},
	{
		.minor = 23,
		.nstk_max = 1024,
		.cycle_words = 4,
		.rec_bytes = 128,
		.cycle_sym = "runtime.mProfCycle",
		.cycle_has_flag_bit = true,
		.pcln_magic = 0xfffffff1,
		.func_size = 44,
		.func_has_start_line = true,
		.inl_size = 16,
		.textstart_zero = false,
		.funcid_wrapper = 22,
		.funcid_gopanic = 10,
		.funcid_panicwrap = 15,
		.funcid_sigpanic = 19,
		.funcid_cgocallback = 4,
		.raw_func_names = true,
		.merge_raw_names = true,
		.text_ascending = true,
		.text_alloc_bump = true,
		.frame_names = FRAME_NAMES_SHAPES,
		.text_pdqsort = true,
	},
	{
		.minor = 24,
		.nstk_max = 1024,
		.cycle_words = 4,
		.rec_bytes = 128,
		.cycle_sym = "runtime.mProfCycle",
		.cycle_has_flag_bit = true,
		.pcln_magic = 0xfffffff1,
		.func_size = 44,
		.func_has_start_line = true,
		.inl_size = 16,
		.textstart_zero = false,
		.funcid_wrapper = 22,
		.funcid_gopanic = 10,
		.funcid_panicwrap = 15,
		.funcid_sigpanic = 19,
		.funcid_cgocallback = 4,
		.hide_internal_runtime = true,
		.raw_func_names = true,
		.merge_raw_names = true,
		.text_ascending = true,
		.text_alloc_bump = true,
		.frame_names = FRAME_NAMES_SHAPES,
		.text_pdqsort = true,
		.text_xorshift_7_17 = true,
	},
	{
		.minor = 25,
		.nstk_max = 1024,
		.cycle_words = 4,
		.rec_bytes = 128,
		.cycle_sym = "runtime.mProfCycle",
		.cycle_has_flag_bit = true,
		.pcln_magic = 0xfffffff1,
		.func_size = 44,
		.func_has_start_line = true,
		.inl_size = 16,
		.textstart_zero = false,
		.funcid_wrapper = 23,
		.funcid_gopanic = 10,
		.funcid_panicwrap = 15,
		.funcid_sigpanic = 20,
		.funcid_cgocallback = 4,
		.hide_internal_runtime = true,
		.raw_func_names = true,
		.merge_raw_names = true,
		.text_ascending = true,
		.text_alloc_bump = true,
		.frame_names = FRAME_NAMES_SHAPES,
		.text_pdqsort = true,
		.text_xorshift_7_17 = true,
	},
	{
		.minor = 26,
		.nstk_max = 1024,
		.cycle_words = 4,
		.rec_bytes = 128,
		.cycle_sym = "runtime.mProfCycle",
		.cycle_has_flag_bit = true,
		.pcln_magic = 0xfffffff1,
		.func_size = 44,
		.func_has_start_line = true,
		.inl_size = 16,
		.textstart_zero = true,
		.funcid_wrapper = 23,
		.funcid_gopanic = 10,
		.funcid_panicwrap = 15,
		.funcid_sigpanic = 20,
		.funcid_cgocallback = 4,
		.hide_internal_runtime = true,
		.raw_func_names = true,
		.merge_raw_names = true,
		.text_ascending = true,
		.text_alloc_bump = true,
		.frame_names = FRAME_NAMES_SHAPES,
		.text_pdqsort = true,
		.text_xorshift_7_17 = true,
	},
	{
		.minor = 27,
		.nstk_max = 1024,
		.cycle_words = 2,
		.rec_bytes = 64,
		.cycle_sym = "runtime.mProfCycle",
		.cycle_has_flag_bit = true,
		.pcln_magic = 0xfffffff1,
		.func_size = 44,
		.func_has_start_line = true,
		.inl_size = 16,
		.textstart_zero = true,
		.funcid_wrapper = 23,
		.funcid_gopanic = 10,
		.funcid_panicwrap = 15,
		.funcid_sigpanic = 20,
		.funcid_cgocallback = 4,
		.hide_internal_runtime = true,
		.raw_func_names = true,
		.merge_raw_names = true,
		.scale_by_size = true,
		.bytes_label_always = true,
		.text_ascending = true,
		.text_alloc_bump = true,
		.frame_names = FRAME_NAMES_TWO_LISTS,
		.text_pdqsort = true,
		.text_xorshift_7_17 = true,
	},
};

/* Read a run of decimal digits at *s (at most 9, so no overflow); -1 when
 * there is none. */
static long read_number(const char **s)
{
	const char *p = *s;
	long v = 0;

	while (*p >= '0' && *p <= '9' && p - *s < 9)
		v = v * 10 + (*p++ - '0');
	if (p == *s || (*p >= '0' && *p <= '9'))
		return -1;
	*s = p;
	return v;
}

/* The minor release of "go1.N", "go1.N.P", "go1.NrcK" or "go1.NbetaK",
 * each optionally followed by " anything" (GOEXPERIMENT, X:...); -1 for
 * anything else (devel builds, garbage). */
static long parse_minor(const char *v)
{
	long minor;

	if (strncmp(v, "go1.", 4) != 0)
		return -1;
	v += 4;
	minor = read_number(&v);
	if (minor < 0)
		return -1;
	if (*v == '.') {
		v++;
		if (read_number(&v) < 0)
			return -1;
	} else if (strncmp(v, "rc", 2) == 0 || strncmp(v, "beta", 4) == 0) {
		v += *v == 'r' ? 2 : 4;
		if (read_number(&v) < 0)
			return -1;
	}
	if (*v != '\0' && *v != ' ')
		return -1;
	return minor;
}

const struct layout *layout__for(const char *version, struct gh_err *err)
{
	long minor = parse_minor(version);
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].minor == minor)
			return &layouts[i];
	if (minor < 0)
		err_set(err, GH_E_UNSUPPORTED,
			"unrecognised Go version \"%.64s\": goheap-bpf "
			"supports released go1.%d ... go1.%d",
			version, GH_MINOR_FIRST, GH_MINOR_LAST);
	else
		err_set(err, GH_E_UNSUPPORTED,
			"Go version %.64s is not supported: goheap-bpf "
			"supports go1.%d ... go1.%d; rebuild the target with "
			"one of those",
			version, GH_MINOR_FIRST, GH_MINOR_LAST);
	return NULL;
}
