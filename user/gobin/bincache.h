/* bincache.h - Go binaries parsed once per file, shared by every process
 * that runs or maps it: a hundred replicas of a service cost one parse of
 * its ELF, buildinfo, pclntab and stripped-variable recovery, and one
 * symbol cache. A file is known by its identity (device, inode,
 * modification time, size), not its name: the same path may hold another
 * binary later, and one binary may be reached by many paths. Files that
 * are not Go runtimes (libc, a shell) get a negative entry, so that a
 * sweep judges each once.
 *
 * Used by one thread (the collector's); a binary handed out may be used
 * by several (its symcache locks itself). */
#ifndef GH_GOBIN_BINCACHE_H
#define GH_GOBIN_BINCACHE_H

#include "gobin/gobin.h"
#include "gobin/symcache.h"

/* One parsed binary. Read-only but for sc. */
struct binary {
	struct gobin *gobin;
	struct symcache sc; /* what runtime/pprof asks of each PC */
	unsigned refs;	    /* bincache's own counting */
	bool cached;	    /* still in the cache */
};

struct bincache;

/* A cache of at most max_binaries parsed binaries (and a bounded number
 * of negative entries); NULL when out of memory. */
struct bincache *bincache__new(size_t max_binaries);
void bincache__free(struct bincache *c);

/* The Go runtime in the file at path (messages call it name): a reference
 * to release with binary__put, or -1 with err as gobin__open fails (NOTGO
 * for files without a Go runtime, UNSUPPORTED for Go shared libraries of
 * -linkshared programs and unsupported releases), from the cache when the
 * file was seen before. */
int bincache__get(struct bincache *c, const char *path, const char *name,
		  struct binary **out, struct gh_err *err);
void binary__put(struct binary *b);

/* Files parsed so far (not found in the cache). */
size_t bincache__parses(const struct bincache *c);
/* Lookups answered from the cache so far: a Go runtime, or a file known
 * to hold none. */
size_t bincache__hits(const struct bincache *c);

#endif
