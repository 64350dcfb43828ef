/* stream.h - the records both BPF backends send (GH_EV_*, goheap_record.h)
 * decoded into a snapshot, pass after pass of one read; and the stacks
 * known from the last complete snapshot of a process, so that a repeated
 * read needs the stacks of new buckets only. */
#ifndef GH_STREAM_H
#define GH_STREAM_H

#include "read/backend.h"

/* One bucket of a process's last complete snapshot. */
struct known_bucket {
	uint64_t addr, hash, size;
	uint32_t nstk, stk_off; /* stack: known.words + stk_off */
};

/* The buckets of one process's last complete snapshot, in reverse allnext
 * order (oldest first). Buckets never move and never change their stacks,
 * and Go only prepends to allnext, so a later walk of the same process that
 * reaches b[n - 1] meets exactly b[n - 1] down to b[0] from there on and
 * needs none of their stacks again; the buckets that walk met before them
 * are appended (newest last), the rest kept in place. While a read
 * gathers its new buckets (stream.next), they are in allnext order. */
struct known {
	int pid;
	uint64_t start_ticks, exe_dev, exe_ino; /* identity of process+binary */
	uint64_t mbuckets;
	uint32_t nstk_max, rec_bytes;
	struct known_bucket *b;
	size_t n, cap_b;
	uint64_t *words;
	size_t nwords, cap_words;
};

/* The decoder of one read's records (GH_EV_*) into a snapshot. */
struct stream {
	const struct read_req *req;
	struct snapshot *s;
	const struct known *known; /* NULL: every stack is sent */
	uint64_t known_head;	   /* its first bucket, 0 = none */
	size_t next_known;	   /* index of the next known bucket */
	/* What the next read may reuse: every bucket received with its
	 * stack (s may pass buckets on instead of keeping them). */
	struct known next;
	uint64_t bytes;	   /* record bytes received */
	bool have_vars;	   /* s->vars filled from the first BEGIN */
	bool begun, ended; /* this pass saw BEGIN / END for the target */
	struct gh_ev_end end;
	uint64_t emitted; /* buckets received over all passes */
	bool cyclic;	  /* stop: a bucket address repeated */
	bool nomem;	  /* stop: the snapshot could not grow */
	bool malformed;	  /* a record's size does not match its header */
	bool stale;	  /* the known buckets are not what the walk met */
};

/* Cache k's stacks for req's process: the known head for the walk (0 when
 * k holds nothing for this process and binary, which empties k). */
uint64_t known__prepare(struct known *k, const struct read_req *req);
/* After a complete, non-stale read: remember its buckets (the new ones
 * taken from p, the known ones kept where they are). */
void known__update(struct known *k, struct stream *p);
void known__clear(struct known *k);

void stream__init(struct stream *p, const struct read_req *req,
		  struct snapshot *s, const struct known *known);
void stream__fini(struct stream *p);
/* Decode one ring-buffer record (p may be NULL: records left over from an
 * earlier read are dropped). */
void stream__event(struct stream *p, const void *data, size_t size);
/* After END (or a pass that ended otherwise): 1 when another pass should
 * resume at p->end.resume, 0 when the read is over (s complete or partial),
 * -1 with err filled. */
int stream__verdict(struct stream *p, struct gh_err *err);

/* A read of req's process into s through p, for backends that drive the
 * walk themselves: begin; decode and judge passes (stream__event,
 * stream__verdict) until the walk is over; end. */
void stream__begin(struct stream *p, const struct read_req *req,
		   struct snapshot *s);
/* The walk is over with rc (0, or -1 with its error). 1: it must be done
 * again from the start (the kept stacks were not this process's: they are
 * forgotten, and s is cleared); else rc, once the stacks of a complete
 * read are kept for the next one (req->known). */
int stream__end(struct stream *p, int rc);

/* The walk was stopped (ctl) with more to read: s ends partial. */
void stream__stopped(struct stream *p, const char *why);

/* One walk of a read into p; set *again to have the whole list walked
 * afresh (with a cleared snapshot). */
typedef int (*stream_walk)(void *ctx, struct stream *p, uint64_t known,
			   bool *again, struct gh_err *err);

/* A whole read for backends that walk one process at a time: begin, walk
 * (again while it asks), end. */
int stream__read(const struct read_req *req, struct snapshot *s,
		 stream_walk walk, void *ctx, struct gh_err *err);

#endif
