/* goheap.h - the goheap-bpf library: read the heap profiles the Go runtime
 * keeps in running processes, from outside them, and render them as
 * runtime/pprof would.
 *
 * A collector (gh_collector) takes the profiles of the processes a request
 * names - one, a list, or every process that passes its filters - and
 * returns one result per Go runtime found: the profile, with every header
 * field filled, or the reason there is none. It loads its BPF programs once
 * and keeps what it learns of each binary and process for later requests.
 *
 * Conventions: functions that can fail return 0 on success and -1 on
 * failure with *err filled (err may be NULL): a status that doubles as the
 * goheap-bpf command's exit status, and a one-line message naming the
 * cause and the fix. Objects are freed by their *__free function, which
 * accepts NULL. The library never prints, exits, raises signals, installs
 * signal handlers or writes to the target processes.
 *
 * Threads: a collector is used by one thread at a time (one collector per
 * thread for parallel work; collectors share nothing), except for
 * gh_collector__cancel, which any thread or a signal handler may call.
 * Results and profiles are immutable once returned: any thread may read
 * them or write them (gh_profile__write) concurrently. Sinks (gh_sink) are
 * called on the collector's builder threads: the calls for one profile
 * come one at a time, in sample order; those of different profiles may
 * come at once. Each callback's comment says which thread calls it and
 * what it may do.
 *
 * Growing without breaking (after libbpf's model):
 * - Options structs (every *_opts, gh_request, gh_select, gh_bounds)
 *   start with size_t sz, the size of the struct as the caller's header
 *   declares it; declare them with GH_OPTS, which sets it and zeroes the
 *   rest. The library reads only the fields sz covers (later ones take
 *   their defaults), and refuses (USAGE) a struct larger than its own
 *   whose extra bytes are not all zero: a newer header's option that this
 *   library cannot honour. New fields are only ever added at the end.
 * - Structs the library fills (gh_profile and what it points to,
 *   gh_result, gh_results, gh_growth, gh_oom, gh_watch_event, gh_memstat,
 *   gh_err) or a caller's callback fills (gh_sink) keep the layout of the
 *   release that introduced them for the whole soname: no field moves,
 *   changes type or goes away, and none is added to them; what a later
 *   release adds to a profile comes through functions (gh_profile_x stays
 *   the library's). tests/abi checks their layout against 0.2.0's.
 * - The soname is libgoheap.so.0 for every 0.x release. A minor release
 *   adds symbols in a version node of its own (user/goheap.map:
 *   GOHEAP_0 holds 0.2.0's, GOHEAP_0.3.0 0.3.0's, GOHEAP_0.4.0 0.4.0's,
 * GOHEAP_0.5.0 0.5.0's) never changes an existing symbol's behaviour or layout:
 * a function whose arguments change gets the new version as its default, the
 * old entry point stays under its old version with its old behaviour (marked
 * GH_DEPRECATED where it is still declared). A change that cannot keep an old
 * program working bumps the soname: the Makefile takes its number from
 *   GOHEAP_VERSION's first one, so such a change makes the release 1.0.
 */
#ifndef GOHEAP_H
#define GOHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GOHEAP_VERSION_MAJOR 0
#define GOHEAP_VERSION_MINOR 6
#define GOHEAP_VERSION_PATCH 0
#define GOHEAP_VERSION	     "0.6.0"

/* What the library exports: every function of this header (the library is
 * built with -fvisibility=hidden). */
#ifndef GH_API
#define GH_API __attribute__((visibility("default")))
#endif

/* Kept for programs built against an older release only: a warning in new
 * code, naming what to use instead. */
#define GH_DEPRECATED(msg) __attribute__((deprecated(msg)))

/* Field name, spelt old in an earlier release: the same bytes under both
 * names, the old one deprecated. Times are _ns (nanoseconds) or _ms
 * (milliseconds) throughout. */
#define GH_RENAMED(type, name, old)                                            \
	union {                                                                \
		type name;                                                     \
		type old GH_DEPRECATED("renamed " #name);                      \
	}

/* Declare options struct TYPE (struct TYPE) NAME with sz set, every byte
 * zero but the designated initializers given:
 *   GH_OPTS(gh_collector_opts, o, .keep_stacks = true);
 * (a GNU C statement expression, as libbpf's LIBBPF_OPTS). */
#define GH_OPTS(TYPE, NAME, ...)                                               \
	struct TYPE NAME = ({                                                  \
		memset(&NAME, 0, sizeof(struct TYPE));                         \
		(struct TYPE){.sz = sizeof(struct TYPE), __VA_ARGS__};         \
	})

/* The version of the library linked in (GOHEAP_VERSION is the header's). */
GH_API const char *gh_lib__version(void);

/* Outcome classes; each is also the command's exit status. */
enum gh_status {
	GH_OK = 0,
	GH_E_FAILED = 1,      /* unexpected failure (I/O, memory) */
	GH_E_USAGE = 2,	      /* a request that cannot be honoured as given */
	GH_E_NOPROC = 3,      /* no such process */
	GH_E_NOTGO = 4,	      /* not a Go program (no Go runtime found) */
	GH_E_UNSUPPORTED = 5, /* Go version, arch or build unsupported */
	GH_E_DISABLED = 6,    /* profiling disabled in the target (memory;
				 block, mutex: never turned on) */
	GH_E_NODATA = 7,      /* no heap profile data published yet */
	GH_E_PERM = 8,	      /* missing privileges */
	GH_E_KERNEL = 9,      /* kernel lacks BTF or task iterators */
	GH_E_GONE = 10,	      /* process exited or PID reused meanwhile */
	GH_E_PARTIAL = 11,    /* a profile, but a partial one */
	GH_E_OUTPUT = 12,     /* the output could not be written */
	GH_E_TIMEOUT = 13,    /* not read in time: the request's deadline
				 passed first, or (perf) the process did not
				 run within the backend's time-out */
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

/* runtime/pprof's name of a sample type ("alloc_objects", "alloc_space",
 * "inuse_objects", "inuse_space") and its unit ("count", "bytes"); NULL
 * for an unknown value. */
GH_API const char *gh_value__name(enum gh_value v);
GH_API const char *gh_value__unit(enum gh_value v);
/* The value a sample-type name names, or -1. */
GH_API int gh_value__parse(const char *name);

/* Which of the profiles a Go process keeps in its bucket table
 * (runtime/mprof.go) a request reads (gh_request.kind). */
enum gh_kind {
	GH_KIND_HEAP = 0, /* runtime.mbuckets: the heap (and allocs) profile,
			     values enum gh_value's */
	/* runtime.bbuckets: where goroutines blocked (channels, select,
	 * sync), once the program called runtime.SetBlockProfileRate */
	GH_KIND_BLOCK,
	/* runtime.xbuckets: where contended mutexes were released, once the
	 * program called runtime.SetMutexProfileFraction */
	GH_KIND_MUTEX,
	/* the goroutine profile: refused (USAGE) by gh_read, which reads
	 * buckets; gh_goroutines__write's debug=0 builds one, value[0] each
	 * sample's goroutines; a request reads it (0.6.0, gh_request.kind) */
	GH_KIND_GOROUTINE,
};

/* A block or mutex sample's values, as runtime/pprof writes them:
 * value[GH_CONTENTIONS] contentions/count, value[GH_DELAY]
 * delay/nanoseconds (the runtime's cycles converted with the target's own
 * ticks per second, and scaled as the target's release scales them);
 * value[2] and value[3] are 0. */
enum gh_contention_value {
	GH_CONTENTIONS = 0,
	GH_DELAY = 1,
};

/* "heap", "block", "mutex", "goroutine"; NULL for an unknown kind. */
GH_API const char *gh_kind__name(enum gh_kind k);
/* The kind a name names, or -1. */
GH_API int gh_kind__parse(const char *name);

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
	bool base; /* a diff's base sample, negated (gh_profile__diff): pprof
		      labels it "pprof::base"="true" */
};

/* Snapshot outcome, as the JSON status field spells it. */
enum gh_snap_status {
	GH_SNAP_COMPLETE = 0,
	GH_SNAP_PARTIAL = 1,
	GH_SNAP_UNAVAILABLE = 2, /* the target has no profile to give */
	GH_SNAP_FAILED = 3,	 /* the profile could not be read */
	/* Complete, but the counters come from more than one GC cycle
	 * (gc_cycles): the process collects faster than it can be read. Not a
	 * failure: each bucket's counters are the runtime's own, of one of
	 * those cycles. */
	GH_SNAP_MIXED = 4,
};

#define GH_PATH_MAX 4096

struct gh_profile_x; /* what the library keeps with a profile */

struct gh_profile {
	/* Who: the process, and which of its Go runtimes. */
	int pid;
	char comm[32];			/* /proc/PID/comm */
	char exe[GH_PATH_MAX];		/* its executable, as it names it */
	char runtime_file[GH_PATH_MAX]; /* file holding this Go runtime:
					   the executable or a library */
	size_t runtime, nruntimes;	/* runtime `runtime` (from 1) of the
					   process's nruntimes; 0 of 0 when none
					   could be opened */
	char cgroup[GH_PATH_MAX];	/* cgroup path (v1 memory controller,
					   else v2); "" if none */
	char container_id[80];		/* from the cgroup path: a container's
					   ID (or nspawn machine name); "" */
	char container_runtime[16];	/* "docker", "containerd", "cri-o",
					   "podman", "systemd-nspawn", "" */
	char pod_uid[40];		/* Kubernetes pod UID; "" */
	char go_version[64];
	char build_id[128]; /* the runtime file's GNU build ID (hex), else
			       the go command's build ID; "" */
	/* What the profile was taken for, when not for a request: an OOM
	 * kill's context (gh_oom_watch); pprof with .labels writes it as a
	 * comment. "" */
	char trigger[GH_ERR_MSG_MAX];

	/* How it was read. */
	enum gh_snap_status status;
	char status_reason[GH_ERR_MSG_MAX];
	char backend[16]; /* reader backend that took the snapshot */
	char backend_notes[GH_ERR_MSG_MAX]; /* why others were passed over */
	/* When the snapshot was taken (wall clock). */
	GH_RENAMED(int64_t, time_ns, time_nanos);
	/* What the profile spans: 0 for a snapshot; a delta's
	 * (gh_profile__delta) time between its two snapshots. pprof writes it
	 * when non-zero. */
	GH_RENAMED(int64_t, duration_ns, duration_nanos);
	double duration_ms;	/* snapshot wall time */
	uint64_t read_bytes;	/* bytes the backend received for it (less when
				   stacks were kept from an earlier read) */
	uint64_t target_cpu_ns; /* CPU the read took in the target's own
				   threads (perf); 0 for iter and procmem */
	size_t nbuckets;	/* buckets read */
	size_t nbuckets_inuse;	/* buckets with in-use objects */
	unsigned gc_cycles;	/* GC cycles the counters come from: 1, or
				   more (status mixed) */
	/* At a glance (a sweep's ranking, metrics), kept samples or not:
	 * each value summed over the samples (go tool pprof's "total"), and
	 * the allocation site holding the most in-use bytes: the function of
	 * the first frame outside the runtime ("runtime.",
	 * "internal/runtime/"), leaf first, inlined calls expanded, as json
	 * names its entries; of equal sites the first name in byte order; ""
	 * when nothing is in use. */
	int64_t total[GH_NVALUES];
	char top_site[256];
	int64_t top_site_bytes;

	/* What runtime/pprof would write. */
	int64_t period;		   /* MemProfileRate at read time */
	struct gh_sample *samples; /* empty unless the request kept them */
	size_t nsamples;
	struct gh_location *locations;
	size_t nlocations;
	struct gh_function *functions;
	size_t nfunctions;
	struct gh_mapping *mappings;
	size_t nmappings;

	struct gh_profile_x *x; /* the library's; NULL in a profile the
				   caller built */
};

GH_API void gh_profile__free(struct gh_profile *p);

/* The profile's kind: what the request asked for (gh_request.kind), or
 * GH_KIND_HEAP for a profile read back or built by the caller. A block or
 * mutex profile's period is 1 (runtime/pprof's), its samples' values
 * enum gh_contention_value's, and it has no in-use or allocation figures
 * (nbuckets_inuse, top_site: 0, ""; total[0] and total[1] its sums). */
GH_API enum gh_kind gh_profile__kind(const struct gh_profile *p);

/* What net/http/pprof serves for /debug/pprof/heap?seconds=N
 * (serveDeltaProfile), and for block, mutex and goroutine (two
 * gh_goroutines__read profiles): after's samples minus before's, computed
 * as it computes it (before scaled by -1, then internal/profile's Merge of
 * the two): samples are keyed by their stacks, "bytes" label and string
 * labels (a goroutine profile's, as a set: in any order) and summed,
 * and those that come to all zero are dropped, with whatever only they
 * referred to; locations of the two are matched by what they are
 * (mapping's file or build ID, address within it, functions and lines),
 * never by index, and numbered, like functions and mappings, in the order
 * Merge meets them. time_ns is after's, duration_ns after's minus
 * before's; period the larger (Merge's); total and top_site those of the
 * delta's own samples; the rest of the header (pid, labels, status, how
 * it was read) after's, but partial when before is. Both must hold their
 * samples (gh_request.keep_samples, or built by the caller) and be of one
 * Go runtime of one process (pid, runtime number and build ID) and of
 * one kind (gh_profile__kind, which the delta keeps): else
 * USAGE, naming what to change. *out is the caller's, with its samples:
 * gh_profile__write writes it in any format but legacy (which, like
 * net/http/pprof's ?seconds=N with ?debug=1, has no delta), and
 * gh_profile__free frees it. */
GH_API int gh_profile__delta(const struct gh_profile *before,
			     const struct gh_profile *after,
			     struct gh_profile **out, struct gh_err *err);
/* ---- profiles read back, and their difference ---- */

/* Read a heap profile in profile.proto, gzip-compressed or not, as
 * runtime/pprof (/debug/pprof/heap, /debug/pprof/allocs) and goheap-bpf's
 * pprof write it: the four heap sample types (in any order), period type
 * space/bytes, a "bytes" label per sample (and a diff's pprof::base).
 * Every byte is checked: a damaged or hostile file is refused, never read
 * out of bounds; at most 256 MiB (1 GiB uncompressed) and 16M entries of
 * each kind. *out is the caller's, with its samples (gh_profile__write
 * writes it in any format), total and top_site filled, and no process in
 * its header; not carried over: comments, the default sample type,
 * function system names other than their names, columns, mapping flags
 * but has_functions. A goroutine profile (/debug/pprof/goroutine's, or
 * gh_goroutines__write's debug=0: one sample type goroutine/count, period
 * type goroutine/count, string labels) is read too, as a profile of kind
 * GH_KIND_GOROUTINE (gh_profile__kind), value[0] each sample's
 * goroutines; its string labels are checked, not kept. UNSUPPORTED for
 * anything that is not such a profile (a CPU profile, damaged data), the
 * message naming what is wrong; read_file: USAGE when path cannot be
 * opened, FAILED when it cannot be read. */
GH_API int gh_profile__read(const void *data, size_t size,
			    struct gh_profile **out, struct gh_err *err);
GH_API int gh_profile__read_file(const char *path, struct gh_profile **out,
				 struct gh_err *err);

/* now minus old, as `go tool pprof -diff_base OLD NOW` computes it: old's
 * samples negated (Scale(-1)) and labelled pprof::base=true (gh_sample
 * .base), then both merged as profile.Merge merges them: samples keyed by
 * stack and labels and summed (all-zero ones dropped), locations matched
 * by mapping, address within it and lines, functions by name, file and
 * start line, mappings by size, offset and build ID (else file), never by
 * index. A report of the result (go tool pprof -top) shows each stack's
 * difference. time_ns and period as Merge combines them; total and
 * top_site the result's own. Both must hold their samples (read back, or
 * taken with keep_samples) and be of one kind (gh_profile__kind: heap, or
 * goroutine, whose diff is of that kind, its samples merged by stack
 * alone): else USAGE. *out is the caller's. */
GH_API int gh_profile__diff(const struct gh_profile *old,
			    const struct gh_profile *now,
			    struct gh_profile **out, struct gh_err *err);

/* One stack of a diff: the difference of its values (NEW minus OLD), and
 * what NEW holds. */
struct gh_growth_row {
	int64_t delta[GH_NVALUES];
	int64_t now[GH_NVALUES];
	uint32_t sample; /* the first of the diff's samples with this stack */
	char site[256];	 /* its site, as top_site names one */
	char file[256];	 /* the site's file and line; "" and 0 for a PC */
	int64_t line;
};

/* A diff's stacks (distinct location sequences) ranked by in-use growth:
 * delta[GH_INUSE_SPACE] largest first, then delta[GH_INUSE_OBJECTS], then
 * by site; stacks whose in-use bytes and objects did not change are left
 * out. Of a goroutine profiles' diff (kind GH_KIND_GOROUTINE): ranked by
 * the growth in goroutines, delta[0], largest first, then by site; those
 * whose count did not change left out. total is the diff's (the net
 * change). */
struct gh_growth {
	struct gh_growth_row *rows;
	size_t n;
	int64_t total[GH_NVALUES];
};

GH_API int gh_profile__growth(const struct gh_profile *diff,
			      struct gh_growth **out, struct gh_err *err);
/* The kind of the diff g ranks (gh_profile__kind): GH_KIND_HEAP or
 * GH_KIND_GOROUTINE. */
GH_API enum gh_kind gh_growth__kind(const struct gh_growth *g);
/* The first top_n rows (0: all) as a table: delta bytes, delta objects,
 * NEW's in-use bytes, site (file:line), in go tool pprof's units, under a
 * line with the net change; of goroutine profiles, delta goroutines and
 * NEW's. OUTPUT when f cannot be written. */
GH_API int gh_growth__write(const struct gh_growth *g, FILE *f, size_t top_n,
			    struct gh_err *err);
GH_API void gh_growth__free(struct gh_growth *g);

/* ---- rendering ---- */

enum gh_format {
	GH_FORMAT_TOP = 0,   /* a `go tool pprof -top` table */
	GH_FORMAT_PPROF = 1, /* gzip profile.proto, as runtime/pprof writes */
	GH_FORMAT_JSON = 2,  /* one document, Huatuo's Go heap schema */
	GH_FORMAT_JSONL = 3, /* that document on one line (JSON Lines) */
	/* The legacy text runtime/pprof writes for debug=1
	 * (net/http/pprof's /debug/pprof/heap?debug=1): its header, each
	 * bucket's published counters and raw stack, the frames
	 * runtime.CallersFrames gives for it, records sorted by in-use bytes
	 * as the target's release sorts them (by that sort's own steps, so
	 * that equal ones end where it puts them), aligned by text/tabwriter;
	 * in place of the runtime.MemStats section, which only the process
	 * can read, one comment line saying so. A block or mutex profile's
	 * (0.5.0): writeProfileInternal's debug=1 text ("--- contention:" or
	 * "--- mutex:", the target's cycles/second, the mutex sampling
	 * period, each record's cycles and count unscaled, its PCs and every
	 * frame but runtime.goexit). It needs what samples do not keep: only
	 * a profile built for it (gh_request.render) writes it. */
	GH_FORMAT_LEGACY = 4,
};

/* "top", "pprof", "json", "jsonl", "legacy"; NULL for an unknown
 * format. */
GH_API const char *gh_format__name(enum gh_format f);
/* The format a name names, or -1. */
GH_API int gh_format__parse(const char *name);

struct gh_write_opts {
	size_t sz; /* sizeof(struct gh_write_opts): GH_OPTS sets it */
	enum gh_format format;
	/* top, json: the value ranked by. pprof: GH_ALLOC_SPACE makes
	 * alloc_space the profile's default sample type, as runtime/pprof's
	 * allocs profile (net/http/pprof's /debug/pprof/allocs) has it; every
	 * other index writes none, as its heap profile (pprof then shows
	 * inuse_space, the last sample type). runtime/pprof never writes
	 * another, and GH_ALLOC_OBJECTS is the field's zero value. */
	enum gh_value index;
	size_t top_n; /* top: rows, json: entries; 0 = all */
	/* pprof: the process's labels (pid, comm, exe, runtime file, Go
	 * version, build ID, cgroup, container, pod) as the profile's
	 * comments, which `go tool pprof -comments` shows. */
	bool labels;
	/* pprof: more comments after the labels (a watch's trigger context),
	 * each a line; borrowed: they must live until the profile is built
	 * (gh_request.render) or the write returns (kept samples). */
	const char *const *comments;
	size_t ncomments;
};

/* Write p as o says (NULL: o's zero values, the top table of every row
 * ranked by alloc_objects). A profile whose request kept its samples (or
 * one the caller built) can be written in any format but legacy, any
 * number of times; one built for formats (gh_request.render) in those
 * formats, any number of times, with identical output each time; anything
 * else is refused (USAGE, naming what to ask for instead). A profile
 * without data (status unavailable or failed) can be written as JSON only:
 * the document says why. OUTPUT when f cannot be written. */
GH_API int gh_profile__write(const struct gh_profile *p, FILE *f,
			     const struct gh_write_opts *o, struct gh_err *err);

/* ---- taking profiles ---- */

/* How buckets are read. AUTO takes the first that works, in this order. */
enum gh_backend {
	GH_BACKEND_AUTO = 0,
	GH_BACKEND_ITER,    /* BPF sleepable task iterator (5.18+) */
	GH_BACKEND_PERF,    /* BPF on a perf event in the target's context */
	GH_BACKEND_PROCMEM, /* process_vm_readv from userspace, no BPF */
};

/* "auto", "iter", "perf", "procmem"; NULL for an unknown backend. */
GH_API const char *gh_backend__name(enum gh_backend b);
/* The backend a name names, or -1. */
GH_API int gh_backend__parse(const char *name);

/* A consumer of one profile's samples as they are built, in allnext order:
 * a front end's own aggregate (a summary row, metrics). p is the profile
 * being built: its locations, functions and mappings hold every index s
 * refers to, and its header is not filled yet. s is valid only during the
 * call. Non-zero stops the build (the result fails). reset (may be NULL):
 * the build starts over (a re-read); forget every sample so far.
 * Thread: the collector's builder threads (one profile's calls one at a
 * time, in sample order; different profiles' at once), during
 * gh_collector__collect: the callee keeps to ctx and must not call the
 * collector (gh_collector__cancel aside). */
struct gh_sink {
	int (*sample)(void *ctx, const struct gh_profile *p,
		      const struct gh_sample *s);
	void (*reset)(void *ctx);
	void *ctx;
};

struct gh_collector;

struct gh_collector_opts {
	size_t sz; /* GH_OPTS sets it */
	enum gh_backend backend;
	/* Profiles built at once on threads of their own; 0: one per CPU. */
	unsigned workers;
	/* Remember every bucket's stack after a complete read, so that the
	 * next read of that process copies only counters (buckets never move
	 * and never change their stacks); and, from a process's second heap
	 * profile on, each sample's locations, so that a profile builds
	 * only its new buckets' (location IDs then stay stable for the
	 * process's lifetime), and its pprof file's pieces, so that the
	 * next file copies the compressed samples that did not change. For
	 * repeated requests. */
	bool keep_stacks;
	/* Cache bounds; 0 picks the default (libgoheap(3)). */
	size_t max_binaries;   /* parsed binaries kept: 64 */
	size_t max_kept_bytes; /* kept stacks, locations and pprof pieces,
				  all processes: 256 MiB */
	/* Debug lines (libbpf's, the verifier's) for the caller to show;
	 * NULL: dropped. Thread: the one calling gh_collector__collect, while
	 * a request loads a backend's BPF programs (the first that needs
	 * it); the callee must not call the collector. */
	void (*debug)(void *arg, const char *line);
	void *debug_arg;
};

/* A collector. Nothing is loaded until a request needs it. Fails only
 * when out of memory or given impossible options (USAGE). */
GH_API int gh_collector__new(const struct gh_collector_opts *o,
			     struct gh_collector **out, struct gh_err *err);
GH_API void gh_collector__free(struct gh_collector *c);

/* Make the request under way end as soon as it can: what was not read
 * yet fails, what was being read ends partial ("cancelled"). Safe from any
 * thread and from a signal handler; it stays in force until the next
 * request starts. */
GH_API void gh_collector__cancel(struct gh_collector *c);

/* Which processes a request is about. */
struct gh_select {
	size_t sz; /* GH_OPTS sets it */
	/* These processes (thread-group leaders), in this order. When npids
	 * is 0: every process on the host that holds a Go runtime and passes
	 * the filters below; processes that are not Go, or are gone (zombies
	 * included), are left out of the results. */
	const int *pids;
	size_t npids;
	/* With npids: the PIDs are a filter, as a sweep takes them
	 * (goheap-bpf --all --pid): those of them that hold a Go runtime and
	 * pass the filters below, in PID order, each once; the others are
	 * left out of the results as from an enumeration (counted in
	 * gh_results.not_go; a process already gone, or a zombie, is not
	 * counted). */
	bool pids_filter;
	const char *comm;   /* extended regex the name must match; NULL any */
	const char *cgroup; /* cgroup path prefix, as /proc/PID/cgroup
			       writes it; NULL any */
	const char *container; /* container ID prefix (container_id); NULL
				  any */
	bool exclude_self;     /* leave out the calling process */
	/* Only the Go runtime this names in each process: its number ("2")
	 * or the file holding it (full path or file name); NULL: all. */
	const char *runtime;
};

struct gh_result;

/* Bounds on what reading one process may cost; a read that meets one ends
 * partial, saying which. 0 picks the default (libgoheap(3)). */
struct gh_bounds {
	size_t sz;		  /* GH_OPTS sets it */
	uint64_t max_buckets;	  /* buckets per process: 16M */
	uint32_t max_stack_depth; /* stack words a bucket may hold: the Go
				     version's own limit (a lower bound
				     cuts the walk at the first deeper) */
	uint64_t max_read_bytes;  /* bytes received per process: no bound */
	uint64_t max_target_ms;	  /* perf: CPU time its walk may take in
				     the target's own threads: 500 */
	/* 0.6.0, appended: goroutines read per process (gh_request.kind
	 * GH_KIND_GOROUTINE), as gh_goroutine_opts.max_goroutines: 1M */
	size_t max_goroutines;
};

struct gh_request {
	size_t sz; /* GH_OPTS sets it */
	/* Borrowed for the call; NULL: every Go process, no filter
	 * (select), the default bounds (bounds). */
	const struct gh_select *select;
	const struct gh_bounds *bounds;
	/* The formats each profile is built for, as its samples arrive, so
	 * that none of them needs every sample kept (memory grows with what
	 * the format keeps: pprof its compressed bytes, top its functions,
	 * json its entries). Each can then be written any number of times. */
	const struct gh_write_opts *render; /* an array, each element made
					       with GH_OPTS; the first's sz
					       is the array's stride */
	size_t nrender;
	/* Keep every sample in the profile as well (p->samples), so that any
	 * format can be written; memory grows with the number of buckets. */
	bool keep_samples;
	/* A sink of the caller's per profile, asked for once each profile's
	 * build starts; NULL: none. Non-zero from it fails that profile.
	 * Thread: the one calling gh_collector__collect, before the build
	 * (the sink's own calls come on builder threads: gh_sink). */
	int (*sink)(void *arg, const struct gh_profile *p, struct gh_sink *out);
	void *sink_arg;
	/* Read the bucket lists only, building nothing: each profile has its
	 * header (buckets, bytes received, timing, status) and no samples,
	 * locations or functions (for sizing and benchmarks). */
	bool count_only;
	/* Give up at this much wall time after the request starts: what is
	 * still being read ends partial ("deadline"); 0: no limit. */
	uint64_t timeout_ms;
	/* Called once every selected process is opened and before any is
	 * read, with the number of results to come (a front end's progress;
	 * tests kill or replace a process meanwhile). Thread: the one
	 * calling gh_collector__collect, inside it: the callee may do
	 * anything but use this collector again (gh_collector__cancel, which
	 * ends the request, aside). */
	void (*opened)(void *arg, size_t nresults);
	void *opened_arg;
	/* Hand each result over as soon as it is finished, in result order,
	 * instead of keeping it: r is valid only during the call, and so is
	 * its profile unless the callee takes it (sets r->profile to NULL;
	 * it is then the callee's, to free with gh_profile__free, from any
	 * thread: a writer thread of the caller's can then write it while
	 * the next processes are read). Processes are read 64 at a time
	 * (each window in one iterator pass), so memory follows that, and
	 * what the callee keeps, not the number of processes; gh_results
	 * then holds no results, only the costs. Thread: the one calling
	 * gh_collector__collect, inside it, while no read is under way: the
	 * callee may write the profile (gh_profile__write), hand it to
	 * another thread, or cancel the request (gh_collector__cancel), but
	 * not use this collector otherwise. */
	void (*result)(void *arg, struct gh_result *r);
	void *result_arg;
	/* Which profile to read (0.3.0): the heap (the zero value), or the
	 * block or mutex profile, each as the target's own runtime/pprof
	 * writes it (gh_profile__kind). When the program never turned that
	 * profile on (its rate 0 and its list empty) the result is DISABLED
	 * (status unavailable), its message naming
	 * runtime.SetBlockProfileRate or runtime.SetMutexProfileFraction,
	 * never an empty profile; a stripped binary, whose symbol table does
	 * not locate their lists, is UNSUPPORTED.
	 * The block and mutex profiles are built with every bucket at hand
	 * (runtime/pprof sorts them first), are not kept across reads
	 * (keep_stacks) and cannot be written as legacy text.
	 * GH_KIND_GOROUTINE (0.6.0; USAGE before): each process's goroutine
	 * profile, as gh_goroutines__read reads it (each Go runtime of a
	 * process a result of its own), one process after another, with
	 * the collector's backend (iter, procmem, or auto: iter, then
	 * procmem; the BPF program loaded once for every process), bounded
	 * by bounds->max_goroutines and timeout_ms (iter); its samples kept
	 * whatever keep_samples says, so render only needs to name formats
	 * (legacy: USAGE, as sink, count_only and a perf collector are). */
	enum gh_kind kind;
};

/* One Go runtime of one selected process, or one process that yielded
 * none. */
struct gh_result {
	int pid;
	/* GH_OK; GH_E_PARTIAL for a partial profile; else why there is no
	 * profile, the message naming the cause and the library-level fix. */
	struct gh_err err;
	/* Never NULL: without data, the header says who and why (status
	 * unavailable or failed): the document a JSON consumer gets. */
	struct gh_profile *profile;
};

struct gh_results {
	struct gh_result *v;
	size_t n;
	/* What the request cost the collector. */
	unsigned bpf_loads;	  /* BPF objects loaded for it (0: reused) */
	unsigned iter_passes;	  /* task-iterator passes run */
	unsigned binaries_parsed; /* binaries parsed (not in the cache) */
	unsigned binaries_cached; /* binary lookups the cache answered (a Go
				     runtime, or a file known to hold none):
				     with binaries_parsed, its hit rate */
	size_t examined;	  /* processes selected (an enumeration: that
				     passed the filters) */
	size_t not_go;		  /* of those, left out: no Go runtime */
	double open_ms;		  /* opening the processes and binaries */
	double read_ms;		  /* in the backends, set-up included (a
				     BPF load overlaps the opening) */
	double duration_ms;	  /* the whole request */
	/* What the collector holds once the request is over (a gauge): the
	 * bytes of the stacks and locations it keeps
	 * (gh_collector_opts.keep_stacks), at most max_kept_bytes. */
	size_t kept_bytes;
};

/* Take the profiles rq asks for (NULL: every Go process, as a request
 * with every field zero). One result per Go runtime of each
 * selected process, in selection order (a runtime's executable first,
 * then its libraries in address order); a process with none gives one
 * result that says why. Returns -1 only for a request that cannot start
 * (a bad filter: USAGE; out of memory). */
GH_API int gh_collector__collect(struct gh_collector *c,
				 const struct gh_request *rq,
				 struct gh_results **out, struct gh_err *err);
GH_API void gh_results__free(struct gh_results *r);

/* The status a run over these results ends with: the first failure's, in
 * result order; GH_E_PARTIAL when nothing failed but a profile is partial;
 * else GH_OK. */
GH_API enum gh_status gh_results__status(const struct gh_results *r);

/* ---- goroutines ---- */

/* What a goroutine read counted (gh_goroutine_opts.counts). */
struct gh_goroutine_counts {
	size_t listed;	     /* runtime.allgs's length (up to max_goroutines) */
	size_t samples;	     /* goroutines in the profile */
	size_t running;	     /* of them, running while read: no stack, the
				creation site in its place */
	size_t changed;	     /* moved on every try while read: left out */
	size_t broken;	     /* a frame or their labels failed a check: left
				out */
	size_t system, dead; /* left out as runtime/pprof leaves them */
};

/* What gh_goroutines__write writes (gh_goroutine_opts.view, 0.5.0). */
enum gh_goroutine_view {
	GH_GVIEW_PROFILE = 0, /* the profile at opts.debug */
	/* The leak view: the goroutines that wait (for a channel, a lock, a
	 * timer, I/O, a system call ...) grouped by stack and what they
	 * wait for, each group with its goroutines, the longest and median
	 * wait, its frames; the groups most goroutines first, then longest
	 * wait first; and every goroutine counted by state. A wait is the
	 * runtime's own g.waitsince, as debug=2's "N minutes": in every
	 * release 1.18 to 1.27 it is set by a GC cycle's stack scan (not
	 * when the goroutine parks) to the start of the previous cycle's
	 * mark termination, and cleared when the goroutine runs: a wait is
	 * known once two GC cycles ran while it waited, and is that
	 * approximate. Running goroutines have none. The runtime's own
	 * goroutineleak profile (1.26+) is made by a GC cycle inside the
	 * process, which is never
	 * run from outside: this view is what memory shows. */
	GH_GVIEW_LEAK,	    /* as text (goheap-bpf(8), LEAK VIEW) */
	GH_GVIEW_LEAK_JSON, /* as one JSON document (the same) */
};

struct gh_goroutine_opts {
	size_t sz;
	/* 0: /debug/pprof/goroutine's gzip pprof profile (printCountProfile:
	 * sample and period type goroutine/count, period 1, one sample per
	 * distinct stack and label set with its count, the labels as string
	 * labels); 1: ?debug=1's text (counts per stack); 2: ?debug=2's
	 * (every goroutine) */
	int debug;
	size_t max_goroutines; /* goroutines read at most (0: 1,000,000);
				  more: GH_E_PARTIAL */
	struct gh_goroutine_counts *counts; /* filled when not NULL */
	/* iter: the BPF task iterator copies each g and its stack (Linux
	 * 5.18+); procmem: process_vm_readv; auto (0): iter, then procmem
	 * where iter cannot run. perf: UNSUPPORTED. */
	enum gh_backend backend;
	enum gh_backend *used; /* the backend that read, when not NULL */
	/* iter's debug lines (libbpf's, the verifier's); NULL: dropped. */
	void (*bpf_log)(void *arg, const char *line);
	void *bpf_log_arg;
	/* 0.5.0, appended: what gh_goroutines__write writes (0: the
	 * profile at debug; the leak views leave debug unread) */
	enum gh_goroutine_view view;
	/* the leak views: only goroutines whose known wait is at least this
	 * long (0: every waiting one, known wait or not) */
	int64_t min_wait_ns;
	size_t top_n; /* the leak views: groups shown at most (0: all) */
	/* 0.6.0, appended: which Go runtime of the process is read: its
	 * number ("2") or the file holding it (full path or file name), as
	 * gh_select.runtime names one; NULL: the first (the executable's,
	 * else the first Go c-shared library's). One naming none or several:
	 * USAGE. */
	const char *runtime;
};

/* Process pid's goroutine profile (the Go runtime opts.runtime names: the
 * executable's, or a c-shared library's), read from outside
 * (opts.backend), written to f as that runtime's own runtime/pprof
 * writes it for that debug level (goheap-bpf(8), "--profile goroutine").
 * Goroutines parked or in a system call are unwound from their saved
 * registers; a running one has no stack to read. NOPROC, NOTGO,
 * UNSUPPORTED (the Go release, or a stripped binary), PERM, GONE,
 * PARTIAL (past max_goroutines, iter's byte bound or its deadline: the
 * profile was written), OUTPUT; with iter, KERNEL and PERM as for the heap. */
GH_API int gh_goroutines__write(int pid, const struct gh_goroutine_opts *o,
				FILE *f, struct gh_err *err);

/* Process pid's goroutine profile as gh_goroutines__write reads it at
 * debug=0 (o->debug must be 0), into *out: a profile of kind
 * GH_KIND_GOROUTINE, one sample per distinct stack and label set, value[0]
 * its goroutines, its samples kept, for gh_profile__write (any format) and
 * gh_profile__delta. Statuses as gh_goroutines__write's; *out is set (and
 * the caller's to free) on success and on PARTIAL, NULL otherwise. */
GH_API int gh_goroutines__read(int pid, const struct gh_goroutine_opts *o,
			       struct gh_profile **out, struct gh_err *err);

/* ---- the runtime's own counters ---- */

/* Which fields of gh_runtime_stats the release keeps (gh_runtime_stats.has):
 * a counter a release lacks is absent, not zero. */
enum gh_runtime_has {
	GH_RT_GOROUTINES = 1u << 0,   /* goroutines, sched_goroutines */
	GH_RT_GC_CYCLES = 1u << 1,    /* gc_cycles */
	GH_RT_HEAP_LIVE = 1u << 2,    /* heap_live (Go 1.21+) */
	GH_RT_HEAP_GOAL = 1u << 3,    /* heap_goal */
	GH_RT_GOMAXPROCS = 1u << 4,   /* gomaxprocs */
	GH_RT_GOGC = 1u << 5,	      /* gogc */
	GH_RT_MEMORY_LIMIT = 1u << 6, /* memory_limit (Go 1.19+) */
	GH_RT_GSTATES = 1u << 7,      /* goroutines_{running,runnable,
					 waiting,not_in_go} */
	GH_RT_GCREATED = 1u << 8,     /* goroutines_created (Go 1.26+) */
};

/* A Go runtime's counters as its runtime/metrics computes them, read from
 * its variables at one moment (between two reads of memstats.numgc that
 * agree). The caller sets sz to sizeof(struct gh_runtime_stats); the
 * library fills the fields that fit in sz. */
struct gh_runtime_stats {
	size_t sz;
	unsigned has;		   /* enum gh_runtime_has */
	uint64_t goroutines;	   /* runtime.NumGoroutine() */
	uint64_t sched_goroutines; /* /sched/goroutines:goroutines: the same
				      before 1.26, with the system goroutines
				      from 1.26 */
	uint64_t gc_cycles;	   /* /gc/cycles/total:gc-cycles (numgc) */
	uint64_t heap_live;	   /* /gc/heap/live:bytes (heapMarked) */
	uint64_t heap_goal;	   /* /gc/heap/goal:bytes (MemStats.NextGC) */
	uint64_t gomaxprocs;	   /* /sched/gomaxprocs:threads */
	int64_t gogc;		   /* GOGC (debug.SetGCPercent); -1: off */
	int64_t memory_limit;	   /* /gc/gomemlimit:bytes */
	unsigned reads;		   /* tries it took (numgc moved between) */
	/* Goroutines by state, as Go 1.26's runtime/metrics defines
	 * /sched/goroutines/{running,runnable,not-in-go,waiting}:goroutines
	 * (metrics.go's schedStatsAggregate), system goroutines included:
	 * the four add up to sched_goroutines from 1.26, and to
	 * gcount(true) (the goroutines with the system ones) before.
	 * From 1.26 they are computed from what the runtime computes them
	 * from, each P of allp up to the first dead one: running, the Ps
	 * running (_Prunning) whose M's current g is not in a system call;
	 * not_in_go, the Ps whose M's g is (_Gsyscall, or _Gdeadextra: an
	 * extra M's), and sched.nGsyscallNoP, those in one without a P;
	 * runnable, the Ps' run queues (runqtail - runqhead, and runnext)
	 * and the global one (sched.runq.size); waiting, what is left of
	 * gcount(true), 0 when less (1.27's rule; 1.26's wraps around).
	 * Before 1.26, whose runtime/metrics lacks them, the same
	 * definition over each g's status in runtime.allgs: running
	 * _Grunning, runnable _Grunnable, not_in_go _Gsyscall (a system or
	 * cgo call), waiting what is left of gcount(true) (_Gwaiting,
	 * _Gpreempted, _Gcopystack). Read without stopping the target,
	 * like the runtime's own read without stopping its run queues:
	 * each count is what it was at some moment of the read. Always
	 * read with the other counters (serve's /metrics shows them each
	 * sweep): from 1.26 a few words per P (all the counters of a
	 * process of a million goroutines in 5-15 ms); before, allgs and
	 * one word per goroutine, gathered 1024 to a system call (0.5 s of
	 * CPU, most in the kernel, at 990,000 goroutines on 1.25: 3 % of a
	 * CPU at serve's 15 s sweeps), left out (GH_RT_GSTATES clear) past
	 * 1,000,000 goroutines, where the goroutine profile stops too. */
	uint64_t goroutines_running;
	uint64_t goroutines_runnable;
	uint64_t goroutines_waiting;
	uint64_t goroutines_not_in_go;
	/* /sched/goroutines-created:goroutines (1.26+): goroutines created
	 * since the program started (sched.goroutinesCreated and each
	 * live P's own goroutinesCreated). */
	uint64_t goroutines_created;
};

/* Process pid's runtime counters (its first Go runtime: the executable's,
 * else its first Go c-shared library's; each runtime's come with its
 * profile, gh_profile__runtime_stats), read from outside with
 * process_vm_readv. NOPROC, NOTGO, UNSUPPORTED (the Go release, or a
 * stripped binary), PERM, GONE, PARTIAL (the counters moved on every try:
 * a GC cycle ended during each), USAGE (sz). */
GH_API int gh_runtime_stats__read(int pid, struct gh_runtime_stats *out,
				  struct gh_err *err);

/* The counters of p's runtime, read by the collector right after its
 * buckets (gh_collector__collect; a profile of a disabled or refused
 * heap profile has them too). Fills the fields out->sz covers. 0;
 * NODATA for a profile no collector read (a file read back, a delta),
 * else the read's own failure (UNSUPPORTED, PERM, GONE, PARTIAL, FAILED)
 * with its message; USAGE (sz). */
GH_API int gh_profile__runtime_stats(const struct gh_profile *p,
				     struct gh_runtime_stats *out,
				     struct gh_err *err);

/* ---- OOM kills ---- */

/* What the kernel said of an OOM kill (oom:mark_victim, the victim's
 * memory cgroup at that moment). */
struct gh_oom {
	int pid;
	char comm[32];		    /* the thread the OOM killer chose
				       (where oom:mark_victim gives only
				       its TID: the victim's first thread
				       to take the SIGKILL) */
	char cgroup[GH_PATH_MAX];   /* the process's cgroup path (as
				       gh_profile.cgroup) */
	uint64_t memcg_usage_bytes; /* charged to its memory cgroup */
	uint64_t memcg_limit_bytes; /* that cgroup's limit; 0: none */
	uint64_t total_vm_bytes;    /* the victim's address space */
	int oom_score_adj;
	uint32_t uid;
	/* Fatal SIGKILLs its threads took before the OOM killer marked the
	 * process a victim (the signal comes first): none of them could
	 * walk; a later thread did. */
	unsigned early_kills;
	/* When the watcher finished the victim's profile (milliseconds
	 * after the kill). */
	GH_RENAMED(int64_t, time_ns, time_nanos);
};

struct gh_oom_watch;

struct gh_oom_watch_opts {
	size_t sz; /* GH_OPTS sets it */
	/* Called from gh_oom_watch__poll for each watched process the kernel
	 * OOM-killed, once its walk is over: r as gh_request.result hands it
	 * over (valid during the call; take r->profile by setting it to
	 * NULL). The profile is what a snapshot of the process just before
	 * its death would be (kept samples: any format but legacy), backend
	 * "oom", its trigger naming the kill; partial when a page was not
	 * resident or the process exited before its walk ended (the message
	 * says which). Thread: the one calling gh_oom_watch__poll, inside
	 * it: the callee may read gh_oom_watch__count and __fd, not add,
	 * remove, poll or free. */
	void (*victim)(void *arg, const struct gh_oom *oom,
		       struct gh_result *r);
	void *arg;
	size_t max_processes; /* watched at once: 4096 */
	/* The ring buffer the victims' walks fill while the watcher drains
	 * it (a power of two, 64 KiB to 1 GiB): 32 MiB, about 100k buckets
	 * of 15 stack words. A walk waits for room up to 100 ms in each of
	 * the victim's threads; a list larger than the ring is complete
	 * only if gh_oom_watch__poll drains it meanwhile (libgoheap(3)). */
	uint32_t ring_bytes;
	/* Debug lines (libbpf's, the verifier's); NULL: dropped. Thread: the
	 * one calling gh_oom_watch__new, while it loads. */
	void (*debug)(void *arg, const char *line);
	void *debug_arg;
};

/* A watcher of OOM kills: loads its BPF programs (oom:mark_victim and
 * signal:signal_deliver; Linux 5.17+ with BTF) and watches nothing yet.
 * PERM without CAP_BPF + CAP_PERFMON (or root), KERNEL when the kernel
 * cannot run them. One thread at a time, as a collector. */
GH_API int gh_oom_watch__new(const struct gh_oom_watch_opts *o,
			     struct gh_oom_watch **out, struct gh_err *err);
GH_API void gh_oom_watch__free(struct gh_oom_watch *w);
/* Watch process pid's first Go runtime (its executable's, else its first
 * Go library's): its binary is parsed and kept, with its symbols, maps
 * and build IDs, so that its profile can be finished once it is dead.
 * The errors of gh_collector__collect's results (NOPROC, NOTGO,
 * UNSUPPORTED, ...), USAGE when it is watched already. */
GH_API int gh_oom_watch__add(struct gh_oom_watch *w, int pid,
			     struct gh_err *err);
/* Stop watching pid; USAGE when it is not watched. */
GH_API int gh_oom_watch__remove(struct gh_oom_watch *w, int pid,
				struct gh_err *err);
/* Processes watched now (one that exited without an OOM kill is dropped
 * by the next poll). */
GH_API size_t gh_oom_watch__count(const struct gh_oom_watch *w);
/* Wait up to timeout_ms for kills, and hand each victim whose walk is over
 * to o->victim. Call it often (every 100 ms or less) while processes are
 * watched: a victim's profile must be taken from the ring buffer while
 * others are being walked. The number of victims handed over. */
GH_API int gh_oom_watch__poll(struct gh_oom_watch *w, int timeout_ms,
			      struct gh_err *err);
/* A descriptor that polls readable (POLLIN) when a kill is recorded: a
 * front end with a loop of its own waits on it with its other ones and
 * then calls gh_oom_watch__poll (which still needs calling every 100 ms
 * or so, for exits). Owned by w. */
GH_API int gh_oom_watch__fd(const struct gh_oom_watch *w);

/* ---- a directory of profiles ---- */

/* A directory (made if missing, with 0777 minus the umask) holding one
 * gzip pprof file per profile added, named <comm>-<pid>.pb.gz, or
 * <comm>-<pid>-<N>.pb.gz for a process's N-th Go runtime (N >= 2); comm
 * with every byte but [A-Za-z0-9_-] (and '.' after the first) as '_',
 * "unknown" when empty. Each file carries the process's labels as pprof
 * comments; a profile to add must have been built for {GH_FORMAT_PPROF,
 * .labels = true} (gh_request.render) or have kept its samples. And
 * index.jsonl: one line per result added, in order, with the JSON
 * document's header fields (goheap-bpf(8), OUTPUT FORMATS) but output_truncated
 * and sample_index, and "file": the profile's file name, "" when there is none.
 * Every file is written by gh_output's rules; the index last, when committed,
 * so that it names only files that are there (the profile files are synced
 * together, syncfs, just before). A link named as the directory is followed
 * only when it is the caller's or root's, or leads to a directory its owner
 * owns. */
struct gh_profile_dir;
GH_API int gh_profile_dir__open(const char *dir, struct gh_profile_dir **out,
				struct gh_err *err);
/* Write r's profile (when it has data) and its index line. The index line
 * is written even when the profile file cannot be (its "file" is then "",
 * and the error is returned): the directory stays usable. */
GH_API int gh_profile_dir__add(struct gh_profile_dir *d,
			       const struct gh_result *r, struct gh_err *err);
/* The name p's file gets, into buf; -1 when it does not fit. */
GH_API int gh_profile_dir__name(const struct gh_profile *p, char *buf,
				size_t size);
/* Write index.jsonl into place and free d; OUTPUT when it cannot be. */
GH_API int gh_profile_dir__commit(struct gh_profile_dir *d, struct gh_err *err);
/* Free d; index.jsonl is left as it was (profile files written stay). */
GH_API void gh_profile_dir__abort(struct gh_profile_dir *d);

/* ---- watching: snapshots when memory goes wrong ---- */

/* What a process's memory is, now. */
struct gh_memstat {
	uint64_t rss, pss; /* bytes, from /proc/PID/smaps_rollup */
	/* Its memory cgroup: the directory of the v1 memory controller's
	 * (version 1) or of v2's where the memory controller is enabled
	 * (version 2); version 0 and "" when there is neither. */
	int cgroup_version;
	char cgroup_dir[GH_PATH_MAX];
	uint64_t cgroup_usage; /* bytes charged to it */
	uint64_t cgroup_limit; /* its limit; UINT64_MAX when none */
};

/* NOPROC when the process is gone, PERM without the right to read its
 * smaps_rollup (CAP_SYS_PTRACE). */
GH_API int gh_memstat__read(int pid, struct gh_memstat *m, struct gh_err *err);

/* What made a watch take a snapshot. */
enum gh_trigger {
	GH_TRIGGER_CGROUP = 0,	 /* cgroup usage reached a share of its limit */
	GH_TRIGGER_RSS = 1,	 /* RSS went above a size */
	GH_TRIGGER_PRESSURE = 2, /* a PSI trigger fired */
	GH_TRIGGER_GROWTH = 3,	 /* RSS grew a size within a window */
	GH_TRIGGER_EVERY = 4,	 /* a period passed */
	GH_TRIGGER_PEAK = 5,	 /* in-use bytes reached a new maximum */
	GH_TRIGGER_OOM = 6,	 /* the kernel OOM-killed the process */
	/* runtime.NumGoroutine() went above a count
	 * (gh_watch_opts.goroutines_above) */
	GH_TRIGGER_GOROUTINES = 7,
};

/* "cgroup-above", "rss-above", "pressure", "growth", "every", "at-peak"
 * (the command's flags), "oom", "goroutines-above"; NULL for an unknown
 * trigger. */
GH_API const char *gh_trigger__name(enum gh_trigger t);

/* A likely leak: a stack whose in-use bytes grew at each of the last
 * snapshots of a watched process (gh_watch_opts.leak_window). */
struct gh_leak {
	char site[256]; /* its site, as top_site names one */
	char file[256]; /* the site's file and line; "" and 0 for a PC */
	int64_t line;
	int64_t inuse_bytes;  /* in use at this snapshot */
	int64_t growth_bytes; /* more than at the first of the series */
	unsigned snapshots;   /* of the series: leak_window + 1 */
};

/* Likely leaks named per snapshot, at most. */
#define GH_WATCH_LEAKS 5

/* One snapshot a watch wrote, and why (the JSON document's "trigger"). */
struct gh_watch_event {
	int pid;
	char comm[32];
	size_t runtime;		 /* which Go runtime of the process (from 1) */
	enum gh_trigger trigger; /* the first that fired */
	unsigned fired;		 /* every trigger that fired: 1 << trigger */
	char reason[256];	 /* what crossed what, in words */
	/* When it fired (wall clock). */
	GH_RENAMED(int64_t, time_ns, time_nanos);
	uint64_t rss, pss;  /* the process's, then */
	int cgroup_version; /* its memory cgroup's, then (gh_memstat) */
	char cgroup_dir[GH_PATH_MAX];
	uint64_t cgroup_usage, cgroup_limit;
	/* memory pressure then: the v2 cgroup's memory.pressure, else
	 * /proc/pressure/memory, on one line; "" without PSI */
	char pressure[256];
	int64_t inuse_space;		      /* the snapshot's in-use bytes */
	enum gh_snap_status status;	      /* complete, mixed or partial */
	char pprof_file[320], json_file[320]; /* their names in the dir */
	/* GH_TRIGGER_OOM: the kill (rss and pss are then 0, the process
	 * being gone; the cgroup's usage and limit are the kernel's at the
	 * kill, cgroup_limit UINT64_MAX for none; time_ns the profile's
	 * end). Zeros for the other triggers. */
	struct gh_oom oom;
	/* The stacks whose in-use bytes grew at each step of the process's
	 * last leak_window + 1 snapshots, this one the last, most growth
	 * first; none until there are that many (and for OOM snapshots). */
	struct gh_leak leaks[GH_WATCH_LEAKS];
	size_t nleaks;
};

/* What to watch, what makes a snapshot, where they go. */
struct gh_watch_opts {
	size_t sz; /* GH_OPTS sets it */
	/* The processes: these PIDs, or (npids 0; NULL) every Go process
	 * that passes the filters, looked for again at each interval. Copied
	 * by gh_watch__new, as bounds is, but not the strings and PIDs they
	 * point to, which must live as long as the watch. */
	const struct gh_select *select;
	uint64_t interval_ms; /* polling and discovery period: 1000 */
	/* Triggers (0, NULL, false: off); at least one. */
	uint64_t rss_above;	   /* bytes */
	double cgroup_above;	   /* percent of the memory cgroup's limit */
	const char *pressure;	   /* "some|full:STALL/WINDOW" */
	uint64_t growth_bytes;	   /* RSS growth ... */
	uint64_t growth_window_ms; /* ... within this window */
	bool at_peak;	   /* one snapshot per process, at its maximum */
	uint64_t every_ms; /* a snapshot each period */
	/* OOM kills are captured (trigger GH_TRIGGER_OOM, a gh_oom_watch
	 * over the watched processes) unless this is set. When the kernel
	 * cannot run its BPF programs, the watch goes on without it and
	 * says so once through problem (pid 0) or, with no other trigger,
	 * fails with its status (PERM, KERNEL). The OOM trigger alone is
	 * enough. */
	bool no_oom;
	/* Per process, between snapshots; a condition that holds when it
	 * ends fires then. */
	uint64_t cooldown_ms;
	/* Snapshots kept per process (each a pprof and a JSON file; the
	 * at-peak one aside); 0: no bound. The oldest are removed. */
	size_t keep_files;
	uint64_t keep_bytes;
	/* Likely leaks: each snapshot of a process (trigger or interval
	 * read) is compared with its last leak_window ones; 0: 3, at most
	 * 16. Per Go runtime, the series keeps each snapshot's 1024 largest
	 * stacks (16 bytes each), dropped when the process goes. */
	size_t leak_window;
	const char *output_dir;
	const struct gh_bounds *bounds; /* of each read; NULL: defaults */
	uint64_t timeout_ms;		/* of each read: 10 s */
	/* Each snapshot written; a process that could not be read or
	 * written (err says why; pid 0: the watch as a whole), the watch
	 * going on. Either may be NULL. Thread: the one calling
	 * gh_watch__new (problems of the first scan) or gh_watch__step,
	 * inside it: the callee may call gh_watch__stop, __rescan and
	 * __targets, not step or free the watch, nor use its collector. */
	void (*written)(void *arg, const struct gh_watch_event *ev);
	void (*problem)(void *arg, int pid, const struct gh_err *err);
	void *arg;
	/* The OOM watch's ring buffer (gh_oom_watch_opts.ring_bytes: a
	 * power of two, 64 KiB to 1 GiB); 0: its default, 32 MiB. */
	uint32_t oom_ring_bytes;
	/* A trigger (GH_TRIGGER_GOROUTINES): runtime.NumGoroutine() of a
	 * watched process (gh_runtime_stats__read at each interval) above
	 * this count, edge-triggered as rss_above; 0: off. Its snapshot is the
	 * heap one, and beside it the process's goroutine profile
	 * (gh_goroutines__read, pprof): the heap pprof's name with
	 * ".goroutine.pb.gz" for ".pb.gz" (index.jsonl: "goroutine_pprof").
	 * A process whose count cannot be read (a stripped build) is said
	 * once through problem. */
	uint64_t goroutines_above;
};

struct gh_watch;

/* A watch over c (which it uses, one request at a time, and does not
 * free). USAGE for options that cannot work (no trigger, a bad pressure
 * spec or filter), KERNEL when a pressure trigger has no PSI to use, PERM
 * when the kernel refuses its window (not a multiple of 2 s without
 * CAP_SYS_RESOURCE), OUTPUT when the directory cannot be used, and the
 * status of a named process that cannot be watched (NOPROC, NOTGO). */
GH_API int gh_watch__new(struct gh_collector *c, const struct gh_watch_opts *o,
			 struct gh_watch **out, struct gh_err *err);
/* Wait for the next event or interval (or wake_fd readable, -1: none),
 * then take and write the snapshots that are due. 0: go on; 1: done
 * (stopped, or every named process exited); -1: a failure that ends the
 * watch (err). */
GH_API int gh_watch__step(struct gh_watch *w, int wake_fd, struct gh_err *err);
/* Look for the processes again at the next step (SIGHUP; the caller's
 * handler also makes wake_fd readable, to end the wait). Async-signal-
 * safe. */
GH_API void gh_watch__rescan(struct gh_watch *w);
/* End the watch: the read under way is cancelled, no snapshot is begun
 * after this, one being written is finished; the next step returns 1.
 * Async-signal-safe. */
GH_API void gh_watch__stop(struct gh_watch *w);
/* Processes watched now. */
GH_API size_t gh_watch__targets(const struct gh_watch *w);
/* Close the event sources and free w (index.jsonl is complete on disk
 * after each snapshot). */
GH_API void gh_watch__free(struct gh_watch *w);

#ifdef __cplusplus
}
#endif

#endif /* GOHEAP_H */
