/* goheap_record.h - the records and map values shared by bpf/ and user/.
 *
 * The BPF walk copies what the Go runtime keeps for each bucket of one of
 * its profile lists (runtime/mprof.go: bucket header, stack, and the
 * record: a heap bucket's memRecord, a block or mutex bucket's
 * blockRecord) into a ring buffer without interpreting it; userspace does
 * all the Go-version-specific work. Which list, and how large its records
 * are, is the walk's configuration (gh_target_cfg: mbuckets, typ,
 * rec_bytes): one walk reads all three.
 * Fixed-size types only: this header is compiled for the BPF target too.
 */
#ifndef GOHEAP_RECORD_H
#define GOHEAP_RECORD_H

#ifdef __BPF__
/* vmlinux.h supplies __u32/__u64 for the BPF object. */
#else
#include <linux/types.h>
#endif

/* Bucket header: next, allnext, typ, hash, size, nstk (6 words). */
#define GH_BUCKET_HDR_WORDS   6
#define GH_BUCKET_HDR_BYTES   (GH_BUCKET_HDR_WORDS * 8)
#define GH_BUCKET_ALLNEXT_OFF 8
/* Deepest stack any supported version stores: profstackdepth max 1024, plus
 * the two leading runtime frames go1.26+ keep. */
#define GH_MAX_STACK 1026
/* Largest memRecord (active + future[3], 4 words each, go1.18-1.26). */
#define GH_MAX_REC_BYTES 128
/* Bucket body = stack words followed by the record (a blockRecord is 16
 * bytes). */
#define GH_MAX_BODY_BYTES (GH_MAX_STACK * 8 + GH_MAX_REC_BYTES)
/* The largest block of memory the BPF walk copies at once, and so the most
 * bucket bytes one GH_EV_BUCKETS record holds. */
#define GH_BLOCK_BYTES (32 << 10)

/* Scalar runtime variables read alongside the walk. */
enum gh_var {
	GH_VAR_RATE = 0,  /* runtime.MemProfileRate (int) */
	GH_VAR_CYCLE = 1, /* runtime.mProfCycle (uint32) / mProf.cycle (1.18) */
	GH_VAR_DISABLE = 2, /* runtime.disableMemoryProfiling (bool) */
	GH_VAR_USEFMA = 3,  /* math.useFMA (bool): which exp the target runs */
	GH_NVARS = 4,
};

/* The same four slots when the walk reads the block or mutex list
 * (gh_target_cfg.typ 2 or 3): what converting and scaling its records
 * needs, read with them. */
enum gh_bm_var {
	GH_VAR_BM_RATE = 0,  /* runtime.blockprofilerate / mutexprofilerate
				(uint64) */
	GH_VAR_BM_TICKS = 1, /* runtime.ticks.val: ticks per second, 0 until
				the runtime first computes it */
	GH_VAR_BM_START_TICKS = 2, /* ticks.startTicks (1.22+) */
	GH_VAR_BM_START_TIME = 3,  /* ticks.startTime (1.22+) */
};

/* Per-target configuration, BPF map "targets", key = TGID (__u32). */
struct gh_target_cfg {
	/* runtime address of the list's head: runtime.mbuckets (heap),
	 * bbuckets (block) or xbuckets (mutex) */
	__u64 mbuckets;
	__u64 vars[GH_NVARS]; /* runtime addresses, 0 = not present */
	__u64 resume; /* 0: start at *mbuckets; else bucket to resume at */
	/* First bucket of the list userspace already holds the stacks of (a
	 * previous snapshot's head), 0 = none. Go only prepends to allnext and
	 * never moves or frees a bucket, so from there on every bucket is
	 * known: the walk sends GH_EV_KNOWN (no stack) for them. */
	__u64 known;
	__u64 deadline_ns; /* stop (RESUME) past this ktime; 0 = none */
	/* perf: CPU time the walk may take in the target's threads, all
	 * events together; 0 = no bound. */
	__u64 cpu_budget_ns;
	/* Bytes of buckets one pass may send (RESUME once past); 0 = no
	 * bound. */
	__u64 max_bytes;
	/* A heap list's GC cycle variable (vars[GH_VAR_CYCLE]), read after
	 * each block the walk copies (GH_EV_GC_CYCLE); 0 = not read. */
	__u64 gc_cycle;
	__u32 nstk_max;	   /* largest nstk this Go version can store */
	__u32 rec_bytes;   /* the record: memRecord 128 or 64, blockRecord 16 */
	__u32 max_buckets; /* buckets one iterator pass may emit */
	__u32 flags;	   /* GH_CFG_* */
	/* Passes that reached this target, counted by the iterator, so that
	 * userspace tells a target the pass skipped (the ring buffer had no
	 * room for it yet) from one that is gone. */
	__u32 visits;
	/* The list's bucketType: 1 memProfile (0 is taken for it), 2
	 * blockProfile, 3 mutexProfile; a bucket of another ends the walk
	 * (GH_WALK_BAD_TYPE). */
	__u32 typ;
};

/* runtime.bucketType of heap-profile buckets (runtime/mprof.go memProfile):
 * the list a configuration with typ 0 reads. */
#define GH_TYP_MEM 1

/* gh_target_cfg.flags: resume lies past cfg.known (send GH_EV_KNOWN). */
#define GH_CFG_IN_KNOWN 1u

/* The perf backend's map "targets" value (key = TGID): the configuration
 * plus the walk's progress, which survives from one perf event to the
 * next. Userspace writes it zeroed but for cfg; the BPF program owns the
 * rest. */
struct gh_perf_target {
	struct gh_target_cfg cfg;
	__u64 cur;	 /* bucket to read next */
	__u32 n;	 /* buckets emitted so far */
	__u32 busy;	 /* 1 while a program instance walks (cmpxchg) */
	__u32 state;	 /* enum gh_perf_state */
	__u32 in_known;	 /* the walk has reached cfg.known */
	__u32 down;	 /* the list last ran towards lower addresses */
	__u32 cyc_power; /* the walk's cycle check (gh_block), between */
	__u32 cyc_steps; /* events */
	__u64 cyc_saved;
	__u64 cpu_ns;	/* CPU time the walk took in the target so far */
	__u64 bytes;	/* bytes of buckets sent so far */
	__u64 gc_cycle; /* the value the reader holds (GH_EV_GC_CYCLE) */
	__u32 gc_known;
	__u32 pad;
};

enum gh_perf_state {
	GH_PERF_IDLE = 0,    /* no event has fired in the target yet */
	GH_PERF_WALKING = 1, /* BEGIN sent, walk under way */
	GH_PERF_ENDED = 2,   /* END sent: nothing more to do */
};

/* The OOM watcher's map "victims" value (key = TGID): a watched process,
 * its walk (as the perf backend's, cfg written by userspace) and whether
 * the kernel chose it as an OOM victim. */
struct gh_oom_target {
	struct gh_perf_target walk;
	/* The process's start (its leader's start_boottime, ns) lies in
	 * [born_ns, born_end_ns): /proc/PID/stat's start time, in clock
	 * ticks, as userspace saw it. A process that took the PID of a
	 * watched one that died is not that one. */
	__u64 born_ns, born_end_ns;
	__u32 victim; /* 1 once oom:mark_victim named it (claimed by cmpxchg:
			 one GH_EV_OOM per victim) */
	/* SIGKILLs delivered to its threads before the OOM killer marked it
	 * (signal->oom_mm): those deliveries cannot tell an OOM kill from
	 * another, and do not walk. */
	__u32 early_kills;
};

enum gh_ev_kind {
	GH_EV_BEGIN = 1,   /* struct gh_ev_begin: pass started, vars read */
	GH_EV_BUCKETS = 2, /* buckets adjacent in memory (gh_ev_bucket) */
	GH_EV_END = 3,	   /* struct gh_ev_end: pass ended, why */
	GH_EV_KNOWN = 4,   /* struct gh_ev_known: bucket whose stack is known */
	GH_EV_OOM = 5,	   /* struct gh_ev_oom: a watched process OOM-killed */
	GH_EV_GC_CYCLE = 6, /* struct gh_ev_gc_cycle: the GC cycle moved on */
};

/* Why a pass ended (gh_ev_end.status). */
enum gh_walk_status {
	GH_WALK_DONE = 0, /* reached allnext == NULL */
	GH_WALK_RESUME =
		1, /* ring buffer full or pass budget used: resume at .resume */
	GH_WALK_FAULT = 2, /* a read of .resume failed (.err = helper error) */
	GH_WALK_BAD_NSTK = 3,	/* bucket at .resume has nstk > nstk_max */
	GH_WALK_BAD_TYPE = 4,	/* bucket at .resume is not of cfg.typ */
	GH_WALK_HEAD_FAULT = 5, /* reading the list head failed */
	GH_WALK_BAD_ALIGN = 6,	/* bucket address .resume is not 8-aligned */
	GH_WALK_CYCLE = 7,	/* the list came back to .resume: cyclic */
	GH_WALK_CPU = 8, /* perf: the CPU budget in the target is spent */
};

struct gh_ev_hdr {
	__u32 kind; /* enum gh_ev_kind */
	__u32 tgid;
};

struct gh_ev_begin {
	struct gh_ev_hdr h;
	__u64 head;	      /* *mbuckets (or cfg.resume when resuming) */
	__u64 vars[GH_NVARS]; /* raw 8-byte little-endian values */
	__u32 var_err;	      /* bit i set: reading vars[i] failed */
	__u32 pad;
};

/* A GH_EV_BUCKETS record: h, the address of its lowest bucket, then the raw
 * bytes of one or more buckets back to back in memory, each made of its
 * header, nstk * 8 bytes of stack and rec_bytes of memRecord. In list order
 * they run downwards: each bucket's allnext is the address of the one just
 * below it, the lowest one's leads on. For one bucket, this struct is its
 * whole record but for stack and memRecord. */
struct gh_ev_bucket {
	struct gh_ev_hdr h;
	__u64 addr;			/* bucket address */
	__u64 hdr[GH_BUCKET_HDR_WORDS]; /* raw header words */
	/* then nstk * 8 bytes of stack and rec_bytes of memRecord */
};

/* A bucket past gh_target_cfg.known: header and memRecord, no stack; in
 * a GH_EV_KNOWN, cut after rec_bytes of rec. */
struct gh_known_bucket {
	__u64 addr;
	__u64 hdr[GH_BUCKET_HDR_WORDS];
	__u64 rec[GH_MAX_REC_BYTES / 8];
};
#define GH_KNOWN_HEAD_BYTES (8 + GH_BUCKET_HDR_BYTES)

/* Buckets past gh_target_cfg.known, in list order: n of them (1 to
 * GH_KNOWN_BATCH), each GH_KNOWN_HEAD_BYTES + rec_bytes long, the record
 * cut after the n-th. One record a bucket was the cost of a repeated read
 * (a ring-buffer reservation, with its lock and interrupts off, for each
 * of 200k buckets). */
#define GH_KNOWN_BATCH 64
struct gh_ev_known {
	struct gh_ev_hdr h;
	__u32 n;
	__u32 pad;
	__u8 data[GH_KNOWN_BATCH * sizeof(struct gh_known_bucket)];
};

struct gh_ev_end {
	struct gh_ev_hdr h;
	__u32 status;	/* enum gh_walk_status */
	__u32 nbuckets; /* buckets emitted by this pass */
	__u64 resume;	/* bucket where the next pass starts, or the bad one */
	__s64 err;	/* helper error for FAULT */
	__u64 vars[GH_NVARS]; /* values re-read at the end of the pass */
	__u32 var_err;
	__u32 pad;
	__u64 cpu_ns; /* perf: CPU time the walk took in the target */
};

/* A heap walk reads the GC cycle variable (vars[GH_VAR_CYCLE]) after each
 * block it copies. When the value differs from the last the reader was
 * told (BEGIN's, then this record's), this record comes before any bucket
 * of that block: the buckets after it were read in that cycle, and their
 * counters are taken as published then (see counts.c). */
struct gh_ev_gc_cycle {
	struct gh_ev_hdr h;
	__u64 raw; /* the variable's 8 raw bytes */
};

/* Sent from oom:mark_victim when a watched process is chosen, before its
 * walk's records. */
struct gh_ev_oom {
	struct gh_ev_hdr h;
	__u64 memcg_usage; /* pages charged to the victim's memory cgroup */
	__u64 memcg_limit; /* its limit in pages (huge: none) */
	__u64 total_vm;	   /* the victim's mm: pages mapped */
	__s32 oom_score_adj;
	__u32 uid;
	char comm[16]; /* the task the OOM killer chose */
};

/* ---- the goroutine walk (giter.bpf.c) ----
 *
 * It copies, without interpreting them, the bytes the goroutine reader
 * needs: runtime.allglen and allgptr, then for each g of allgs its struct
 * (gh_gcfg.g_size bytes) before and after its stack's used part
 * ([sched.sp or syscallsp, stack.hi)). Userspace checks and unwinds
 * them (user/goroutine/). */

/* Bytes of a g the walk copies at most (runtime.g is 456 in 1.26). */
#define GH_G_MAX_BYTES 512
/* Address ranges a GH_GCFG_RANGES pass copies at most. */
#define GH_GRANGES_MAX 4096

enum gh_gcfg_mode {
	GH_GCFG_ALLGS = 0,  /* walk allgs from .start */
	GH_GCFG_RANGES = 1, /* copy "granges"[0, .nranges) in order */
};

/* The goroutine walk's configuration, map "targets", key = TGID. */
struct gh_gcfg {
	__u64 allglen, allgptr; /* runtime addresses */
	__u64 var;		/* one more word read at BEGIN (0: none) */
	__u64 deadline_ns;	/* stop (GH_GWALK_DEADLINE) past it */
	__u64 max_bytes;	/* bytes the pass may send (0: no bound) */
	__u64 max_stack;	/* stack bytes per g at most (larger: none) */
	__u32 start;		/* allgs index to start at */
	__u32 max_g;		/* allgs index to stop before */
	__u32 mode;		/* enum gh_gcfg_mode */
	__u32 nranges;
	/* runtime.g: its size and where the walk finds the stack */
	__u32 g_size, off_sp, off_syscallsp, off_stack_lo, off_stack_hi;
	/* The stack is copied when the status (uint32 at off_status, the
	 * status_clear bits cleared) is a bit of stack_status, or of
	 * syscall_status with syscallsp set. */
	__u32 off_status, status_clear, stack_status, syscall_status;
	__u32 visits; /* passes that reached this target */
	__u32 pad;
};

/* One range of a GH_GCFG_RANGES pass: len bytes at addr as GH_GEV_MEM
 * (len at most GH_BLOCK_BYTES), or (g set) a g as GH_GEV_G, after. */
struct gh_grange {
	__u64 addr;
	__u32 len;
	__u32 g;
};

enum gh_gev_kind {
	GH_GEV_BEGIN = 16, /* struct gh_gev_begin */
	GH_GEV_G = 17,	   /* struct gh_gev_g and g_size bytes */
	GH_GEV_MEM = 18,   /* struct gh_gev_mem and len bytes */
	GH_GEV_END = 19,   /* struct gh_gev_end */
};

/* Why a goroutine pass ended. */
enum gh_gwalk_status {
	GH_GWALK_DONE = 0,     /* every g up to max_g (or allglen) sent */
	GH_GWALK_RESUME = 1,   /* the ring buffer was full: go on at .next */
	GH_GWALK_FAULT = 2,    /* allglen, allgptr or allgs[.next] unreadable */
	GH_GWALK_BYTES = 3,    /* max_bytes sent: stopped at .next */
	GH_GWALK_DEADLINE = 4, /* the deadline passed: stopped at .next */
	GH_GWALK_CANCEL = 5,   /* userspace cancelled */
};

struct gh_gev_begin {
	struct gh_ev_hdr h;
	__u64 allglen, allgptr, var;
	__u32 var_err; /* bit 0 allglen, 1 allgptr, 2 var unreadable */
	__u32 pad;
};

/* A g's bytes: before its stack was copied (after = 0) or after it. A g
 * that could not be read is sent without bytes (err set). */
struct gh_gev_g {
	struct gh_ev_hdr h;
	__u64 addr;
	__u32 idx, after;
	__s32 err;
	__u32 len;
	/* then len bytes */
};

/* len bytes of the target's memory at addr. */
struct gh_gev_mem {
	struct gh_ev_hdr h;
	__u64 addr;
	__u32 len, pad;
	/* then len bytes */
};

struct gh_gev_end {
	struct gh_ev_hdr h;
	__u32 status; /* enum gh_gwalk_status */
	__u32 next;   /* allgs index (or range) the pass stopped at */
	__u64 bytes;  /* bytes sent */
	__s64 err;
};

#endif /* GOHEAP_RECORD_H */
