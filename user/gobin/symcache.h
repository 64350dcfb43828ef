/* symcache.h - per-PC symbolization cache: everything runtime/pprof asks
 * the runtime about one return PC (FuncForPC for hideRuntime, the single
 * CallersFrames frame for locations), computed once per distinct PC. */
#ifndef GH_SYMCACHE_H
#define GH_SYMCACHE_H

#include <pthread.h>

#include "base/u64map.h"
#include "gobin/pcln.h"

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

/* Shared by every profile built from one binary, possibly on several
 * threads at once: lookups copy the answer out under the lock. */
struct symcache {
	pthread_mutex_t mu;
	struct pcln *pcln;
	bool hide_internal_runtime;
	struct u64map map; /* pc -> index into v */
	struct pcframe *v;
	size_t n, cap;
};

void symcache__init(struct symcache *c, struct pcln *pcln,
		    bool hide_internal_runtime);
void symcache__free(struct symcache *c);

/* The answer for return PC pc, computed once: 0 and *out, or -1 when out
 * of memory. Safe from several threads at once. */
int symcache__get(struct symcache *c, uint64_t pc, struct pcframe *out);

#endif
