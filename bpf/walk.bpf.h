/* walk.bpf.h - the allnext walk both BPF programs share (iter.bpf.c, a
 * sleepable task iterator; perf.bpf.c, a perf-event program running in the
 * target's own context). They differ only in how they read the target's
 * memory: each defines walk_read() and drives walk_step() with bpf_loop().
 *
 * Reads are the cost, not bytes (one copy per bucket is ~6x slower than
 * this), so the walk copies a page-aligned block of up to 32 KiB around the
 * current bucket into this CPU's buffer and follows allnext inside it for as
 * long as the next bucket lies in the block. Go allocates buckets with
 * persistentalloc, packed one after another, and prepends each new one to
 * allnext, so the list mostly runs downwards through memory: the block is
 * placed with the current bucket near its top when the list runs down, at
 * its bottom when it runs up. A block that crosses the end of a mapping (or,
 * for perf, a page that is not resident) cannot be copied: it is halved,
 * down to the bucket's own page.
 *
 * Records are the other cost (a reservation, a header and a callback per
 * record, in and out of the kernel), so buckets leave in runs: while each
 * next bucket of the list ends where the previous one starts, as packed
 * buckets do, the run grows downwards in the buffer, and it is sent with
 * one bpf_ringbuf_output when the list leaves it (or the block is
 * replaced, or the walk stops): its event header is written into the 16
 * bytes in front of it (the buffer's pre[] when the run starts the block)
 * and those bytes are put back afterwards.
 *
 * A block copied, a heap walk reads the GC cycle variable, and tells
 * userspace when it moved on (send_gc_cycle), before any bucket of that
 * block: each bucket's counters are then taken at the cycle read after
 * its bytes, so a read that a GC boundary splits counts no allocation the
 * runtime has not published yet.
 *
 * Where the many paths of a step meet (sizing a bucket, growing or sending
 * the run, counting the bucket and moving on) the code is a global
 * function: the verifier checks it once, against its arguments' types,
 * not again on every path that reaches it with other values. That took
 * the iter program from 40,506 processed instructions to 13,242; the
 * whole step but its reads of the target as one (walk_plan), to 2,398
 * (verified in 2 ms here, not 7; 2,587 with the GC cycle's read).
 */
#ifndef GH_WALK_BPF_H
#define GH_WALK_BPF_H

#include "goheap_record.h"
#include "ring.bpf.h"

/* bpf_loop's iteration limit (BPF_MAX_LOOPS); a longer walk is resumed. */
#define MAX_LOOPS  (1 << 23)
#define PAGE_BYTES 4096ULL
/* The largest block: a power of two, so masked offsets stay inside it. */
#define BLOCK_BYTES	 GH_BLOCK_BYTES
#define BUCKET_MAX_BYTES (GH_BUCKET_HDR_BYTES + GH_MAX_BODY_BYTES)
/* struct gh_ev_bucket's h and addr, written in front of the bucket. */
#define EV_PREFIX_BYTES 16
#define EINVAL		22
#define EFAULT		14

/* What a step needs to know of its walk: struct walk's scalars. */
struct walk_consts {
	__u64 known;	 /* cfg.known */
	__u64 deadline;	 /* stop (RESUME) after this ktime; 0: never */
	__u64 max_bytes; /* cfg.max_bytes */
	__u32 tgid;
	__u32 nstk_max;
	__u32 rec_bytes;
	__u32 typ; /* the list's bucketType */
	__u32 max_buckets;
	/* oom: when the ring buffer has no room for a new run, wait for the
	 * reader to make some (until the deadline) rather than stop: the
	 * victim's threads are gone soon, and nothing could resume. */
	__u32 wait_room;
	/* A heap list's GC cycle variable, read after each block copied
	 * (send_gc_cycle); 0: not read. */
	__u64 gc_cycle_addr;
};

/* One CPU's copy of a block of the target's memory. data[] has room for a
 * whole bucket past the block's last byte so that the verifier can bound
 * every access by (offset < BLOCK_BYTES) + (bucket <= BUCKET_MAX_BYTES). */
struct gh_block {
	__u8 pre[EV_PREFIX_BYTES];
	/* Twice the block, so that a run's record, at an offset below
	 * BLOCK_BYTES and no longer than BLOCK_BYTES, stays inside too. */
	__u8 data[2 * BLOCK_BYTES];
	/* The GH_EV_KNOWN being assembled: known.n buckets, the first of
	 * them at known_first, in known.data[0, known_len). */
	struct gh_ev_known known;
	__u64 known_first;
	__u32 known_len;
	/* The walk's cursor and the block's range (it holds the target's
	 * [base, end)) live here, not in struct walk on the stack: values read
	 * back from map memory are unknown to the verifier, while cursors and
	 * ranges it tracked, new at every step, would keep it from seeing the
	 * walk's loop converge. */
	__u64 cur; /* bucket to read next, 0 = end of list */
	__u64 base, end;
	/* The bucket the block was last loaded for; | 1 when copied alone. */
	__u64 loaded_for;
	/* The run not sent yet: data[run_off, run_off + run_len), run_n
	 * buckets, the first of them (in list order) at run_first. */
	__u64 run_first;
	__u32 run_off, run_len, run_n;
	/* The walk's progress, here for the same reason. */
	__u32 n;      /* buckets emitted */
	__u64 bytes;  /* bytes of buckets emitted */
	__u32 status; /* enum gh_walk_status, once stopped */
	__s64 err;    /* helper error for FAULT */
	__u8 stopped;
	__u8 in_known; /* cur is at or past cfg.known */
	__u8 down;     /* the list last stepped to a lower address */
	/* Brent's cycle check: the list is cyclic when the walk comes back
	 * to cyc_saved, a bucket it saved after cyc_power steps (the power
	 * of two doubling each time), so a cycle stops the walk within
	 * about twice the list's real length, not at the bucket budget. */
	__u64 cyc_saved;
	__u32 cyc_power, cyc_steps;
	/* The walk's constants (struct walk's), for walk_plan, a global
	 * function, which is given no pointer but this block's. */
	struct walk_consts k;
	/* walk_plan's PLAN_LOAD_EXACT: how many bytes to copy at cur. */
	__u32 load_len;
	/* The GC cycle value the reader holds: BEGIN's, then the last
	 * GH_EV_GC_CYCLE's (gc_known: it holds one). */
	__u32 gc_known;
	__u64 gc_sent;
};

_Static_assert(BUCKET_MAX_BYTES <= BLOCK_BYTES,
	       "a bucket copied on its own fits where a block does");

_Static_assert(sizeof(struct gh_ev_bucket) ==
		       EV_PREFIX_BYTES + GH_BUCKET_HDR_BYTES,
	       "a bucket event is the prefix followed by the raw bucket");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* userspace sets the real size */
} events SEC(".maps");

/* Indexed by CPU (userspace sets max_entries to the possible CPUs): a
 * per-CPU array's value may not exceed 32 KiB. Both programs run with
 * migration disabled and one instance per CPU at a time. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gh_block);
} blocks SEC(".maps");

/* Set by userspace (through the skeleton's mapped .bss) to stop every walk
 * at its next step, as RESUME: the request was cancelled. */
volatile __u32 walk_cancelled;

/* What the bpf_loop callback is given: the walk's constants and this CPU's
 * block, which holds everything that changes. */
struct walk {
	struct task_struct *task; /* iter: whose memory is read */
	struct gh_block *b;
	struct walk_consts k; /* b->k while the loop runs (walk_arm) */
};

/* Copy len bytes of the target's memory at addr into dst; 0 or -errno. */
static long walk_read(const struct walk *w, void *dst, __u32 len, __u64 addr);

static void walk_init(struct walk *w, const struct gh_target_cfg *cfg,
		      __u32 tgid)
{
	w->k.tgid = tgid;
	w->k.nstk_max =
		cfg->nstk_max < GH_MAX_STACK ? cfg->nstk_max : GH_MAX_STACK;
	w->k.rec_bytes = cfg->rec_bytes < GH_MAX_REC_BYTES ? cfg->rec_bytes
							   : GH_MAX_REC_BYTES;
	w->k.typ = cfg->typ ? cfg->typ : GH_TYP_MEM;
	w->k.max_buckets = cfg->max_buckets;
	w->k.max_bytes = cfg->max_bytes;
	w->k.known = cfg->known;
	w->k.gc_cycle_addr = cfg->gc_cycle;
}

/* The reader takes BEGIN's GC cycle value (vars, var_err) as the one the
 * first buckets were read in (when the walk reads the cycle at all).
 * Without a branch: one would double the paths the verifier follows. */
static void gc_cycle_begin(__u64 *sent, __u32 *known,
			   const __u64 vars[GH_NVARS], __u32 var_err)
{
	*sent = vars[GH_VAR_CYCLE];
	*known = ((var_err >> GH_VAR_CYCLE) & 1) ^ 1;
}

static long stop(struct gh_block *b, __u32 status, long err)
{
	b->status = status;
	b->err = err;
	b->stopped = 1;
	return 1; /* ends bpf_loop */
}

/* Read each scalar variable as 8 raw bytes; userspace knows their widths. */
static void read_vars(const struct walk *w, const struct gh_target_cfg *cfg,
		      __u64 vars[GH_NVARS], __u32 *var_err)
{
	*var_err = 0;
	for (int i = 0; i < GH_NVARS; i++) {
		vars[i] = 0;
		if (!cfg->vars[i])
			continue;
		if (walk_read(w, &vars[i], sizeof(vars[i]), cfg->vars[i]))
			*var_err |= 1U << i;
	}
}

/* Would a record of n bytes fit, the walk's END still after it? */
static bool ring_has_room(__u64 n)
{
	return ring_room(&events, n, sizeof(struct gh_ev_end));
}

static struct gh_block *this_cpu_block(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&blocks, &cpu);
}

/* Are the n bytes at addr in the block? */
static bool block_has(const struct gh_block *b, __u64 addr, __u64 n)
{
	return addr >= b->base && addr <= b->end && n <= b->end - addr;
}

/* Start a walk at head, n buckets already emitted, on this CPU's block
 * (emptied); NULL if it has none. */
static struct gh_block *walk_start(struct walk *w, __u64 head, __u32 n,
				   bool in_known, bool down)
{
	struct gh_block *b = this_cpu_block();

	if (b) {
		b->cur = head;
		b->base = b->end = b->loaded_for = 0;
		b->run_len = b->run_n = 0;
		b->known.n = b->known_len = 0;
		b->n = n;
		b->bytes = 0;
		b->status = GH_WALK_DONE;
		b->err = 0;
		b->stopped = 0;
		b->in_known = in_known;
		b->down = down;
		b->cyc_saved = head;
		b->cyc_power = 1;
		b->cyc_steps = 0;
		b->gc_known = 0;
	}
	w->b = b;
	return b;
}

/* One step of Brent's check, at the bucket the walk goes to next: true
 * when the list has come back to the saved bucket. */
static bool cycles_back(struct gh_block *b)
{
	if (b->cur && b->cur == b->cyc_saved)
		return true;
	if (++b->cyc_steps >= b->cyc_power) {
		b->cyc_saved = b->cur;
		b->cyc_power = b->cyc_power < (1u << 31) ? b->cyc_power * 2
							 : b->cyc_power;
		b->cyc_steps = 0;
	}
	return false;
}

static long block_load(struct walk *w, struct gh_block *b, __u64 start,
		       __u32 len)
{
	long err;

	if (len > BLOCK_BYTES)
		return -EINVAL;
	err = walk_read(w, b->data, len, start);
	b->base = start;
	b->end = err ? start : start + len;
	return err;
}

/* Load a block holding the start of the bucket at cur: 32 KiB, 16 KiB,
 * then the page pair and the page around cur when larger ones fail. */
static long load_around(struct walk *w, struct gh_block *b, __u64 cur)
{
	__u64 page = cur & ~(PAGE_BYTES - 1);
	__u64 top = page + 2 * PAGE_BYTES; /* a bucket may cross one page */
	long err;

	err = block_load(w, b, b->down ? top - BLOCK_BYTES : page, BLOCK_BYTES);
	if (err)
		err = block_load(w, b, b->down ? top - BLOCK_BYTES / 2 : page,
				 BLOCK_BYTES / 2);
	if (err)
		err = block_load(w, b, page, 2 * PAGE_BYTES);
	if (err)
		err = block_load(w, b, page, PAGE_BYTES);
	return err;
}

/* The bucket's size from its header at block offset off, or 0 with the walk
 * stopped when the header is not a bucket of the list's type (typ), or has
 * more than nstk_max stack words. Global, like send_run. */
__noinline __u32 bucket_bytes(struct gh_block *b, __u32 off, __u32 typ,
			      __u32 nstk_max, __u32 rec_bytes)
{
	const __u64 *hdr;
	__u64 nstk;

	if (!b)
		return 0;
	hdr = (const __u64 *)&b->data[off & (BLOCK_BYTES - 1)];
	nstk = hdr[5];
	if (hdr[2] != typ) {
		stop(b, GH_WALK_BAD_TYPE, 0);
		return 0;
	}
	if (nstk > nstk_max) {
		stop(b, GH_WALK_BAD_NSTK, 0);
		return 0;
	}
	return GH_BUCKET_HDR_BYTES + nstk * 8 + rec_bytes;
}

/* Send b's run (run_n > 0) as one GH_EV_BUCKETS record; 0 or -errno. A
 * global function: the verifier checks it once, not at every call. */
__noinline int send_run(struct gh_block *b, __u32 tgid)
{
	struct gh_ev_hdr h = {.kind = GH_EV_BUCKETS, .tgid = tgid};
	__u32 off, len;
	__u64 save0, save1;
	__u8 *p;
	int err;

	if (!b)
		return -EINVAL;
	off = b->run_off & (BLOCK_BYTES - 1);
	len = b->run_len;
	if (len > BLOCK_BYTES)
		return -EINVAL;
	p = (__u8 *)b + off; /* EV_PREFIX_BYTES before data[off] */
	save0 = *(__u64 *)p;
	save1 = *(__u64 *)(p + 8);
	*(struct gh_ev_hdr *)p = h;
	*(__u64 *)(p + 8) = b->base + off;
	err = bpf_ringbuf_output(&events, p, EV_PREFIX_BYTES + len,
				 BPF_RB_NO_WAKEUP);
	*(__u64 *)p = save0;
	*(__u64 *)(p + 8) = save1;
	return err;
}

/* Send the run, if there is one. It always fits the ring buffer (see
 * add_to_run), so this cannot fail short of a bug; if it does, the walk
 * goes back to the run's first bucket and resumes there next pass.
 * Always 0; global, like send_run. */
__noinline int flush_run(struct gh_block *b, __u32 tgid)
{
	if (!b || !b->run_n)
		return 0;
	if (send_run(b, tgid)) {
		b->cur = b->run_first;
		b->n -= b->run_n;
		stop(b, GH_WALK_RESUME, 0);
	}
	b->run_len = b->run_n = 0;
	return 0;
}

/* Does the bucket at cur end where the run starts, in this block, so that
 * it simply extends the run downwards? A bucket that looks wrong does not:
 * the walk will stop at it once the run has left. */
__noinline int continues_run(struct gh_block *b, __u64 cur, __u32 nstk_max,
			     __u32 rec_bytes)
{
	const __u64 *hdr;
	__u64 size;

	if (!b || !b->run_n || b->in_known ||
	    !block_has(b, cur, GH_BUCKET_HDR_BYTES))
		return 0;
	hdr = (const __u64 *)&b->data[(cur - b->base) & (BLOCK_BYTES - 1)];
	if (hdr[5] > nstk_max)
		return 0;
	size = GH_BUCKET_HDR_BYTES + hdr[5] * 8 + rec_bytes;
	return cur + size == b->base + b->run_off;
}

/* Make the bucket at block offset off (size bytes) the run, or the new
 * bottom of it. A new run starts only with room for the largest run (a
 * block) and END left in the ring buffer, so a run never has to leave for
 * want of room. False when there is not that much room: the walk stopped,
 * or (wait_room) to try the same bucket again at the next step. */
__noinline int add_to_run(struct gh_block *b, __u32 off, __u32 size,
			  __u32 wait_room)
{
	if (!b)
		return 0;
	if (!b->run_n) {
		if (!ring_has_room(EV_PREFIX_BYTES + BLOCK_BYTES)) {
			if (!wait_room)
				stop(b, GH_WALK_RESUME, 0);
			return 0;
		}
		b->run_first = b->cur;
		b->run_len = 0;
	}
	b->run_off = off;
	b->run_len += size;
	b->run_n++;
	return 1;
}

/* Send the known buckets assembled, if any, as one GH_EV_KNOWN. Like a
 * run, it always fits (add_known), so this cannot fail short of a bug; if
 * it does, the walk goes back to the first of them and resumes there next
 * pass. Always 0; global, like send_run. */
__noinline int flush_known(struct gh_block *b, __u32 tgid)
{
	__u32 len;

	if (!b || !b->known.n)
		return 0;
	len = offsetof(struct gh_ev_known, data) + b->known_len;
	if (len > sizeof(b->known))
		len = sizeof(b->known);
	b->known.h.kind = GH_EV_KNOWN;
	b->known.h.tgid = tgid;
	if (bpf_ringbuf_output(&events, &b->known, len, BPF_RB_NO_WAKEUP)) {
		b->cur = b->known_first;
		b->n -= b->known.n;
		stop(b, GH_WALK_RESUME, 0);
	}
	b->known.n = 0;
	b->known_len = 0;
	return 0;
}

/* The block just copied was read in GC cycle raw (the variable as read after
 * it): when the reader holds another value, tell it, before any bucket of
 * the block (and after the known buckets assembled from earlier blocks).
 * Without room for the record, the walk stops there (RESUME); or (oom:
 * wait_room, nothing could resume) the block's buckets go with the value
 * the reader holds, and the next block tries again. Always 0; global,
 * like send_run. */
__noinline int send_gc_cycle(struct gh_block *b, __u64 raw)
{
	struct gh_ev_gc_cycle c = {.h = {.kind = GH_EV_GC_CYCLE}, .raw = raw};

	if (!b || (b->gc_known && b->gc_sent == raw))
		return 0;
	flush_known(b, b->k.tgid);
	if (b->stopped)
		return 0;
	if (!ring_has_room(sizeof(c))) {
		if (!b->k.wait_room)
			stop(b, GH_WALK_RESUME, 0);
		return 0;
	}
	c.h.tgid = b->k.tgid;
	if (bpf_ringbuf_output(&events, &c, sizeof(c), BPF_RB_NO_WAKEUP)) {
		stop(b, GH_WALK_RESUME, 0);
		return 0;
	}
	b->gc_sent = raw;
	b->gc_known = 1;
	return 0;
}

/* Add the bucket at block offset off (size bytes, at b->cur) to the
 * GH_EV_KNOWN being assembled: header and rec_bytes of memRecord only,
 * sent when GH_KNOWN_BATCH are there (or the walk stops). A new batch
 * starts only with room for a whole one and END in the ring buffer. 1
 * when added; 0 when there is not that much room: the walk stopped, or
 * (wait_room) to try the same bucket again at the next step. Global. */
__noinline int add_known(struct gh_block *b, __u32 off, __u32 size,
			 __u32 rec_bytes, __u32 wait_room)
{
	const __u64 *hdr, *rec;
	__u32 at;
	__u64 *k;

	if (!b || rec_bytes > GH_MAX_REC_BYTES)
		return 0;
	if (!b->known.n) {
		if (!ring_has_room(sizeof(b->known))) {
			if (!wait_room)
				stop(b, GH_WALK_RESUME, 0);
			return 0;
		}
		b->known_first = b->cur;
	}
	/* Entries GH_KNOWN_HEAD_BYTES + rec_bytes apart, the whole of the
	 * largest one inside data[]. A running sum, not n times the length:
	 * 6.1's verifier keeps no bounds for a product of two variables and
	 * refused the walk for it. */
	at = b->known_len;
	if (at > sizeof(b->known.data) - sizeof(struct gh_known_bucket)) {
		stop(b, GH_WALK_RESUME,
		     0); /* cannot be: n < 64, rec_bytes <= 128 */
		return 0;
	}
	barrier_var(at); /* the bound checked stays on the register used */
	k = (__u64 *)&b->known.data[at];
	hdr = (const __u64 *)&b->data[off & (BLOCK_BYTES - 1)];
	/* The bucket lies inside the block: the mask changes nothing. */
	rec = (const __u64 *)&b
		      ->data[(off + size - rec_bytes) & (BLOCK_BYTES - 1)];
	k[0] = b->cur;
	for (int i = 0; i < GH_BUCKET_HDR_WORDS; i++)
		k[1 + i] = hdr[i];
	for (int i = 0; i < GH_MAX_REC_BYTES / 8 && i * 8 < rec_bytes; i++)
		k[1 + GH_BUCKET_HDR_WORDS + i] = rec[i];
	b->known.n++;
	b->known_len = at + GH_KNOWN_HEAD_BYTES + rec_bytes;
	return 1;
}

/* Count the bucket just emitted (size bytes at block offset off, address
 * cur) and move on to its allnext: 1 when the list came back on itself
 * (the walk stopped), else 0. Global, like send_run: the many paths of a
 * step that reach it are checked as one. */
__noinline int advance(struct gh_block *b, __u64 cur, __u32 off, __u32 size)
{
	if (!b)
		return 1;
	b->n++;
	b->bytes += size;
	/* allnext; the header sits at off in the block either way. */
	b->cur = *(const __u64 *)&b->data[(off & (BLOCK_BYTES - 1)) +
					  GH_BUCKET_ALLNEXT_OFF];
	b->down = b->cur < cur;
	if (cycles_back(b))
		return stop(b, GH_WALK_CYCLE, 0);
	return 0;
}

/* What walk_plan leaves to its caller, who can read the target. */
enum plan {
	PLAN_ON,	  /* the step is done; on to the next */
	PLAN_STOP,	  /* the walk stopped */
	PLAN_LOAD_AROUND, /* load a block around cur (load_around) */
	PLAN_LOAD_EXACT,  /* copy exactly the bucket at cur, load_len bytes */
};

/* One step of the walk on block b (its constants in b->k), all of it but
 * reading the target: emit the bucket at the cursor and advance, or say
 * what to load first (enum plan). Global, like send_run: the verifier
 * checks it once, with no pointer but b's to follow, not along every
 * path of the loop that calls it (the iter program: 7,562 processed
 * instructions before, 7.3 ms of verification here). */
__noinline int walk_plan(struct gh_block *b)
{
	__u32 off, size;
	__u64 cur;

	if (!b)
		return PLAN_STOP;
	cur = b->cur;
	if (!cur)
		return stop(b, GH_WALK_DONE, 0);
	if (b->n >= b->k.max_buckets ||
	    (b->k.max_bytes && b->bytes >= b->k.max_bytes))
		return stop(b, GH_WALK_RESUME, 0);
	/* The clock can be dear (a paravirtual one here: 37 ns a read, 7 ms
	 * of a 200k-bucket walk): it is read every 64 buckets. */
	if (b->k.deadline && !(b->n & 63) && bpf_ktime_get_ns() > b->k.deadline)
		return stop(b, GH_WALK_RESUME, 0);
	if (walk_cancelled)
		return stop(b, GH_WALK_RESUME, 0);
	if (cur & 7)
		return stop(b, GH_WALK_BAD_ALIGN, 0);
	if (cur == b->k.known)
		b->in_known = 1;
	/* Anything else than the run's next bucket sends the run first:
	 * records go out in list order, and the block may be replaced. */
	if (!continues_run(b, cur, b->k.nstk_max, b->k.rec_bytes)) {
		flush_run(b, b->k.tgid);
		if (b->stopped)
			return PLAN_STOP;
	}
	/* A step that loads a block ends there, and the next one, at the
	 * same bucket, reads it. */
	if (!block_has(b, cur, GH_BUCKET_HDR_BYTES)) {
		/* Loaded for it already: the header crosses into no page. */
		if (b->loaded_for == cur)
			return stop(b, GH_WALK_FAULT, -EFAULT);
		b->loaded_for = cur;
		return PLAN_LOAD_AROUND;
	}
	off = (cur - b->base) & (BLOCK_BYTES - 1);
	size = bucket_bytes(b, off, b->k.typ, b->k.nstk_max, b->k.rec_bytes);
	if (!size)
		return PLAN_STOP;
	if (!block_has(b, cur, size)) {
		/* Copied exactly already, and larger now than the copy. */
		if (b->loaded_for == (cur | 1))
			return stop(b, GH_WALK_BAD_NSTK, 0);
		/* The bucket runs past the block: copy exactly it, to be read
		 * (its header again: the copy is newer) at the next step. */
		b->loaded_for = cur | 1;
		b->load_len = size;
		return PLAN_LOAD_EXACT;
	}
	if (b->in_known
		    ? !add_known(b, off, size, b->k.rec_bytes, b->k.wait_room)
		    : !add_to_run(b, off, size, b->k.wait_room))
		return b->stopped ? PLAN_STOP : PLAN_ON;
	if (advance(b, cur, off, size))
		return PLAN_STOP;
	if (b->known.n >= GH_KNOWN_BATCH)
		flush_known(b, b->k.tgid);
	return b->stopped ? PLAN_STOP : PLAN_ON;
}

/* One step of the walk on block b: walk_plan's, and the load it asks for
 * (w: whose memory). 1 when the walk stopped. */
static long walk_step_on(struct walk *w, struct gh_block *b)
{
	__u64 raw;
	long err;
	int plan;

	if (!b)
		return 1;
	plan = walk_plan(b);
	if (plan == PLAN_LOAD_AROUND)
		err = load_around(w, b, b->cur);
	else if (plan == PLAN_LOAD_EXACT)
		err = block_load(w, b, b->cur, b->load_len);
	else
		return plan == PLAN_STOP ? 1 : 0; /* bpf_loop: 0 or 1 */
	if (err)
		return stop(b, GH_WALK_FAULT, err);
	/* Before any bucket of the block is sent. */
	if (b->k.gc_cycle_addr &&
	    !walk_read(w, &raw, sizeof(raw), b->k.gc_cycle_addr))
		send_gc_cycle(b, raw);
	return b->stopped ? 1 : 0;
}

/* walk_step_on as bpf_loop's callback. */
static long walk_step(__u32 i, struct walk *w)
{
	return walk_step_on(w, w->b);
}

/* The walk's constants where walk_plan finds them. */
static void walk_arm(const struct walk *w, struct gh_block *b)
{
	b->k = w->k;
}

/* Run the walk on b until it stops (or bpf_loop's limit: then RESUME), and
 * send what is left of the run. */
static void walk_run(struct walk *w, struct gh_block *b)
{
	walk_arm(w, b);
	if (!b->stopped) {
		bpf_loop(MAX_LOOPS, walk_step, w, 0);
		if (!b->stopped)
			stop(b, GH_WALK_RESUME, 0);
	}
	flush_run(b, w->k.tgid);
	flush_known(b, w->k.tgid);
}

/* Fill an END record for the walk's stop: b's, or FAULT without a block. */
static void fill_end(struct gh_ev_end *e, const struct walk *w,
		     const struct gh_block *b, __u64 head,
		     const struct gh_target_cfg *cfg)
{
	e->h.kind = GH_EV_END;
	e->h.tgid = w->k.tgid;
	e->status = b ? b->status : GH_WALK_FAULT;
	e->nbuckets = b ? b->n : 0;
	e->resume = b ? b->cur : head;
	e->err = b ? b->err : -EINVAL;
	read_vars(w, cfg, e->vars, &e->var_err);
}

#endif /* GH_WALK_BPF_H */
