/* symcache.h - per-PC symbolization cache: everything runtime/pprof asks
 * the runtime about one return PC (FuncForPC for hideRuntime, the single
 * CallersFrames frame for locations), computed once per distinct PC. */
#ifndef GH_SYMCACHE_H
#define GH_SYMCACHE_H

#include "base/u64map.h"
#include "gobin/pclntab.h"

/* runtime.Frame of a one-PC CallersFrames, plus FuncForPC facts. All PCs
 * are link-time addresses. */
struct pcframe {
	const char
		*function; /* raw symbol name; "" when pc is in no function */
	const char *file;  /* "" when pc is in no function */
	int64_t line, start_line;
	uint64_t entry;	   /* 0 when pc is in no function */
	uint64_t frame_pc; /* Frame.PC: pc-1 past the entry, else pc */
	bool func_nil;	   /* Frame.Func == nil (inlined, or no function) */
	bool failed;	   /* symbolization failed (pprof's lookupFailed) */
	bool goexit;	   /* runtime.goexit: pprof gives no frame */
	bool hide;	   /* FuncForPC(pc) is a runtime function */
};

struct symcache {
	struct pcln *pcln;
	bool hide_internal_runtime;
	struct u64map map; /* pc -> index into v */
	struct pcframe *v;
	size_t n, cap;
};

void symcache_init(struct symcache *c, struct pcln *pcln,
		   bool hide_internal_runtime);
void symcache_free(struct symcache *c);

/* The cached answer for return PC pc; NULL only when out of memory. The
 * pointer is valid until the next call. */
struct pcframe *symcache_get(struct symcache *c, uint64_t pc);

#endif
