/* goheap.h - the goheap-bpf library: open a Go process, take a snapshot of
 * its heap-profile buckets, turn it into the profile runtime/pprof would
 * write, and render that profile.
 *
 * Conventions: functions that can fail return 0 on success and -1 on
 * failure with *err filled (a status that doubles as the CLI exit status and
 * a one-line message naming the cause and the fix). Objects are freed by
 * their *__free function, which accepts NULL. The library never prints,
 * exits or writes to the target process.
 */
#ifndef GOHEAP_H
#define GOHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Outcome classes; each is also the CLI's exit status (README lists them). */
enum gh_status {
	GH_OK = 0,
	GH_E_FAILED = 1,      /* unexpected failure (I/O, memory) */
	GH_E_USAGE = 2,	      /* bad flags */
	GH_E_NOPROC = 3,      /* no such process */
	GH_E_NOTGO = 4,	      /* not a Go program (no Go runtime found) */
	GH_E_UNSUPPORTED = 5, /* Go version, arch or build unsupported */
	GH_E_DISABLED = 6,    /* memory profiling disabled in the target */
	GH_E_NODATA = 7,      /* no heap profile data published yet */
	GH_E_PERM = 8,	      /* missing privileges */
	GH_E_KERNEL = 9,      /* kernel lacks BTF or task iterators */
	GH_E_GONE = 10,	      /* process exited or PID reused meanwhile */
	GH_E_PARTIAL = 11,    /* output written, snapshot partial */
	GH_E_OUTPUT = 12,     /* the output file could not be written */
};

#define GH_ERR_MSG_MAX 512
struct gh_err {
	enum gh_status code;
	char msg[GH_ERR_MSG_MAX];
};

/* ---- the profile, as runtime/pprof's heap profile holds it ---- */

/* Sample value indexes, in runtime/pprof's order. */
enum gh_value {
	GH_ALLOC_OBJECTS = 0,
	GH_ALLOC_SPACE = 1,
	GH_INUSE_OBJECTS = 2,
	GH_INUSE_SPACE = 3,
	GH_NVALUES = 4,
};

struct gh_mapping {
	uint64_t start, limit, offset;
	char *file;	/* path as the target sees it, " (deleted)" trimmed */
	char *build_id; /* hex GNU build ID, "" if none */
	bool has_functions; /* every location in it symbolized */
};

struct gh_function {
	char *name; /* raw symbol name (name == system_name) */
	char *filename;
	int64_t start_line; /* 0 when the Go version records none */
};

struct gh_line {
	uint32_t function; /* index into gh_profile.functions */
	int64_t line;
};

struct gh_location {
	uint64_t address; /* leaf frame's PC (return PC - 1 when past entry) */
	uint32_t mapping; /* 1-based index into mappings, 0 = none */
	uint32_t nlines;
	struct gh_line *lines; /* leaf first */
};

struct gh_sample {
	uint32_t nlocs;
	uint32_t *locs; /* indexes into gh_profile.locations, leaf first */
	int64_t value[GH_NVALUES];
	int64_t bytes_label; /* num label "bytes"; valid if has_bytes_label */
	bool has_bytes_label;
};

/* Snapshot outcome, as the JSON status field spells it. */
enum gh_snap_status {
	GH_SNAP_COMPLETE = 0,
	GH_SNAP_PARTIAL = 1,
	GH_SNAP_UNAVAILABLE = 2,
	GH_SNAP_FAILED = 3,
};

struct gh_profile {
	int pid;
	char go_version[64];
	int64_t period;	    /* MemProfileRate at read time */
	int64_t time_nanos; /* when the snapshot was taken */
	double duration_ms; /* snapshot wall time */
	enum gh_snap_status status;
	char status_reason[GH_ERR_MSG_MAX];
	char backend[16]; /* reader backend that took the snapshot */
	char backend_notes[GH_ERR_MSG_MAX]; /* why others were passed over */
	char runtime_file[GH_ERR_MSG_MAX];  /* file holding the Go runtime: the
					     executable or a library */
	char cgroup[GH_ERR_MSG_MAX]; /* the process's cgroup path, "" if none */
	size_t nbuckets;	     /* buckets read */
	size_t nbuckets_inuse;	     /* buckets with in-use objects */

	struct gh_sample *samples;
	size_t nsamples;
	/* Streamed profiles (gh_reader__profile with stream): the samples,
	 * already compressed; samples is then empty and the profile can only
	 * be written with gh_write_pprof. */
	struct gh_pprof_enc *encoded;
	struct gh_location *locations;
	size_t nlocations;
	struct gh_function *functions;
	size_t nfunctions;
	struct gh_mapping *mappings;
	size_t nmappings;
};

void gh_profile__free(struct gh_profile *p);

/* ---- taking a profile ---- */

struct gh_target;    /* an opened process: identity, binary, addresses */
struct gh_reader;    /* a loaded BPF walker; reusable across targets */
struct gh_snapshot;  /* raw buckets read from one target */
struct gh_pprof_enc; /* a pprof being encoded */

/* Open process pid: identity, executable, Go version, runtime addresses,
 * symbol tables. Fails with NOPROC, NOTGO, UNSUPPORTED, DISABLED or PERM. */
int gh_target__open(int pid, struct gh_target **out, struct gh_err *err);
void gh_target__free(struct gh_target *t);
/* Every Go runtime in process pid: the executable's when it is a Go
 * program, then one per Go library (-buildmode=c-shared) it maps, in
 * address order; each is a target of its own (its own profile). *out is
 * an array of *n >= 1 targets. Fails like gh_target__open: NOTGO when
 * neither the executable nor a mapped library holds a Go runtime,
 * UNSUPPORTED for programs built with -linkshared. gh_target__open gives
 * the first of these. */
int gh_target__open_all(int pid, struct gh_target ***out, size_t *n,
			struct gh_err *err);
void gh_target__free_all(struct gh_target **v, size_t n);
/* The file holding t's Go runtime, as the process names it (its
 * executable or a library; " (deleted)" trimmed). */
const char *gh_target__file(const struct gh_target *t);
/* The process's cgroup path (v1 memory controller, else v2); "" if none. */
const char *gh_target__cgroup(const struct gh_target *t);
/* Fails with GONE if the process exited or its PID now names another. */
int gh_target__check_alive(const struct gh_target *t, struct gh_err *err);
const char *gh_target__go_version(const struct gh_target *t);

/* How buckets are read. AUTO takes the first that works, in this order. */
enum gh_backend {
	GH_BACKEND_AUTO = 0,
	GH_BACKEND_ITER,    /* BPF sleepable task iterator (5.18+) */
	GH_BACKEND_PERF,    /* BPF on a perf event in the target's context */
	GH_BACKEND_PROCMEM, /* process_vm_readv from userspace, no BPF */
};

/* Prepare a backend (AUTO: the first of iter, perf, procmem that opens).
 * Fails with PERM or KERNEL (the message lists each backend tried).
 * verbose routes libbpf's debug output to stderr. */
int gh_reader__open(struct gh_reader **out, enum gh_backend backend,
		    bool verbose, struct gh_err *err);
void gh_reader__free(struct gh_reader *r);
/* The backend in use ("iter", "perf", "procmem"), and why the ones before
 * it were passed over ("" when none was). */
const char *gh_reader__backend(const struct gh_reader *r);
/* For repeated snapshots of the same processes (a server, a watcher): keep
 * each bucket's stack after a read, so the next read of that process copies
 * only the counters of buckets it already has (buckets never move and
 * their stacks never change). Costs memory in proportion to the stacks;
 * off by default. */
void gh_reader__keep_stacks(struct gh_reader *r, bool keep);
const char *gh_reader__notes(const struct gh_reader *r);

/* Read every heap-profile bucket of t. A snapshot that could not read all
 * buckets is returned with its status PARTIAL and the reason. */
int gh_reader__snapshot(struct gh_reader *r, const struct gh_target *t,
			struct gh_snapshot **out, struct gh_err *err);
void gh_snapshot__free(struct gh_snapshot *s);

/* Build the profile runtime/pprof would write from snapshot s of t.
 * Fails with DISABLED (MemProfileRate 0) or NODATA. */
int gh_profile__build(const struct gh_target *t, const struct gh_snapshot *s,
		      struct gh_profile **out, struct gh_err *err);

/* Snapshot and build in one go, each bucket turned into its sample as it
 * arrives, so memory does not grow with the number of buckets' stacks.
 * stream: compress the samples at once (the profile is then only for
 * gh_write_pprof; nothing per bucket is kept). */
int gh_reader__profile(struct gh_reader *r, const struct gh_target *t,
		       bool stream, struct gh_profile **out,
		       struct gh_err *err);

/* ---- writers ---- */

/* gzip-compressed profile.proto, as runtime/pprof writes it. */
int gh_write_pprof(FILE *f, const struct gh_profile *p, struct gh_err *err);

/* One JSON document (Huatuo's Go provider schema, see README). top_n = 0:
 * every entry. Entries are sorted by bytes, then objects, descending. */
int gh_write_json(FILE *f, const struct gh_profile *p, enum gh_value index,
		  size_t top_n, struct gh_err *err);

/* A table like `go tool pprof -top`: flat, flat%, sum%, cum, cum%, name. */
int gh_write_top(FILE *f, const struct gh_profile *p, enum gh_value index,
		 size_t top_n, struct gh_err *err);

#endif /* GOHEAP_H */
