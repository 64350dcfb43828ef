/* symcache.h - per-PC symbolization cache: everything runtime/pprof asks
 * the runtime about one return PC (FuncForPC for hideRuntime, the single
 * CallersFrames frame for locations), computed once per distinct PC. */
#ifndef GH_SYMCACHE_H
#define GH_SYMCACHE_H

#include "base/hashmap.h"
#include "gobin/pclntab.h"

/* runtime.Frame of a one-PC CallersFrames, plus FuncForPC facts. All PCs
 * are link-time addresses. */
struct gh_pcframe {
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

struct gh_symcache {
	struct gh_pcln *pcln;
	bool hide_internal_runtime;
	struct gh_map map; /* pc -> index into v */
	struct gh_pcframe *v;
	size_t n, cap;
};

void gh_symcache_init(struct gh_symcache *c, struct gh_pcln *pcln,
		      bool hide_internal_runtime);
void gh_symcache_free(struct gh_symcache *c);

/* The cached answer for return PC pc; NULL only when out of memory. The
 * pointer is valid until the next call. */
struct gh_pcframe *gh_symcache_get(struct gh_symcache *c, uint64_t pc);

#endif
