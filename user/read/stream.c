/* stream.c - see stream.h. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/bigmem.h"
#include "base/err.h"
#include "proc/proc.h"
#include "read/partial.h"
#include "read/stream.h"

void known__clear(struct known *k)
{
	bigmem_free(k->b, k->cap_b * sizeof(*k->b));
	bigmem_free(k->words, k->cap_words * sizeof(*k->words));
	memset(k, 0, sizeof(*k));
}

/* The process and binary behind req (PID, start time, executable) into
 * id, its buckets left as they are. */
static int identity(const struct read_req *req, struct known *id)
{
	struct gh_err e;
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", req->pid);
	if (proc_start_time(req->pid, &id->start_ticks, &e) || stat(path, &st))
		return -1;
	id->pid = req->pid;
	id->exe_dev = st.st_dev;
	id->exe_ino = st.st_ino;
	id->mbuckets = req->mbuckets;
	id->nstk_max = req->nstk_max;
	id->rec_bytes = req->rec_bytes;
	return 0;
}

uint64_t known__prepare(struct known *k, const struct read_req *req)
{
	struct known id = {0};

	if (k->n && !identity(req, &id) && id.pid == k->pid &&
	    id.start_ticks == k->start_ticks && id.exe_dev == k->exe_dev &&
	    id.exe_ino == k->exe_ino && id.mbuckets == k->mbuckets &&
	    id.nstk_max == k->nstk_max && id.rec_bytes == k->rec_bytes)
		return k->b[k->n - 1].addr;
	known__clear(k);
	return 0;
}

/* Append the buckets of nx (allnext order) to k, newest last; false when
 * out of memory. */
static bool append_reversed(struct known *k, const struct known *nx)
{
	size_t i;

	if (k->nwords + nx->nwords > UINT32_MAX ||
	    bigmem_reserve((void **)&k->b, &k->cap_b, k->n + nx->n,
			   sizeof(*k->b)) ||
	    bigmem_reserve((void **)&k->words, &k->cap_words,
			   k->nwords + nx->nwords, sizeof(*k->words)))
		return false;
	if (nx->nwords)
		memcpy(k->words + k->nwords, nx->words, nx->nwords * 8);
	for (i = nx->n; i--;) {
		k->b[k->n] = nx->b[i];
		k->b[k->n++].stk_off += (uint32_t)k->nwords;
	}
	k->nwords += nx->nwords;
	return true;
}

/* Reverse k->b in place: allnext order to oldest first. */
static void reverse(struct known *k)
{
	struct known_bucket t;

	for (size_t i = 0, j = k->n; i + 1 < j; i++, j--) {
		t = k->b[i];
		k->b[i] = k->b[j - 1];
		k->b[j - 1] = t;
	}
}

void known__update(struct known *k, struct stream *p)
{
	/* The identity goes with the new buckets, whichever keeps them. */
	if (p->nomem || identity(p->req, &p->next))
		return;
	if (p->known == k) {
		/* Every known bucket met again (the verdict checked it). */
		if (!append_reversed(k, &p->next))
			known__clear(k);
		return;
	}
	if (!p->next.n)
		return;
	known__clear(k);
	*k = p->next;
	reverse(k);
	memset(&p->next, 0, sizeof(p->next));
}

void stream__init(struct stream *p, const struct read_req *req,
		  struct snapshot *s, const struct known *known)
{
	memset(p, 0, sizeof(*p));
	p->req = req;
	p->s = s;
	p->known = known;
}

void stream__fini(struct stream *p)
{
	known__clear(&p->next);
}

/* Keep a bucket that came with its stack for the next read of this
 * process. */
static int remember(struct stream *p, const struct gh_ev_bucket *ev,
		    const void *stk)
{
	struct known *k = &p->next;
	uint32_t nstk = (uint32_t)ev->hdr[5];

	if (k->nwords + nstk > UINT32_MAX ||
	    bigmem_reserve((void **)&k->b, &k->cap_b, k->n + 1,
			   sizeof(*k->b)) ||
	    bigmem_reserve((void **)&k->words, &k->cap_words, k->nwords + nstk,
			   sizeof(*k->words)))
		return -1;
	k->b[k->n++] = (struct known_bucket){
		.addr = ev->addr,
		.hash = ev->hdr[3],
		.size = ev->hdr[4],
		.nstk = nstk,
		.stk_off = (uint32_t)k->nwords,
	};
	if (nstk)
		memcpy(k->words + k->nwords, stk, (size_t)nstk * 8);
	k->nwords += nstk;
	return 0;
}

/* Add one bucket (its stack and memRecord) to the snapshot, and remember
 * it if it came with its stack (fresh: a known bucket is remembered
 * already). */
static void add(struct stream *p, const struct gh_ev_bucket *ev,
		const void *stk, const void *rec, bool fresh)
{
	uint32_t nstk = (uint32_t)ev->hdr[5];
	int rc;

	p->emitted++;
	if (p->cyclic || p->nomem || p->stale)
		return;
	if (fresh && p->req->known && remember(p, ev, stk)) {
		p->nomem = true;
		return;
	}
	/* A known stack stays in p->known until stream__end. */
	rc = (fresh ? snapshot__add : snapshot__add_kept)(
		p->s, ev->addr, ev->hdr[4], nstk, stk, rec, p->req->rec_bytes);
	if (rc == 1) {
		p->cyclic = true;
		partial_cyclic(p->s, ev->addr);
	} else if (rc < 0) {
		p->nomem = true;
	}
}

/* A run of buckets adjacent in memory (see struct gh_ev_bucket): find
 * where each starts, checking that each one's allnext leads to the one
 * below it, then add them in list order, from the top down. */
static void on_buckets(struct stream *p, const uint8_t *data, size_t size)
{
	const size_t prefix = offsetof(struct gh_ev_bucket, hdr);
	uint32_t off[GH_BLOCK_BYTES / GH_BUCKET_HDR_BYTES];
	const uint64_t rec = p->req->rec_bytes;
	struct gh_ev_bucket ev;
	uint64_t nstk, next;
	size_t pos = prefix, n = 0;

	if (size < sizeof(ev) || size - prefix > GH_BLOCK_BYTES)
		goto malformed;
	memcpy(&ev, data, prefix);
	for (; pos < size; n++) {
		if (n == sizeof(off) / sizeof(off[0]) ||
		    size - pos < GH_BUCKET_HDR_BYTES)
			goto malformed;
		memcpy(&next, data + pos + GH_BUCKET_ALLNEXT_OFF, 8);
		memcpy(&nstk, data + pos + 5 * 8, 8);
		if (n && next != ev.addr + off[n - 1] - prefix)
			goto malformed;
		if (nstk > GH_MAX_STACK ||
		    size - pos - GH_BUCKET_HDR_BYTES < nstk * 8 + rec)
			goto malformed;
		off[n] = (uint32_t)pos;
		pos += GH_BUCKET_HDR_BYTES + nstk * 8 + rec;
	}
	while (n--) {
		struct gh_ev_bucket b = {.h = ev.h};
		const uint8_t *stk = data + off[n] + GH_BUCKET_HDR_BYTES;

		b.addr = ev.addr + off[n] - prefix;
		memcpy(b.hdr, data + off[n], GH_BUCKET_HDR_BYTES);
		add(p, &b, stk, stk + b.hdr[5] * 8, true);
	}
	return;
malformed:
	p->malformed = true;
}

/* A bucket without its stack: it must be the next known one, with the same
 * header (the hash of its stack included); else the process is not the one
 * the stacks came from, and the read is redone without them. */
static void on_known_bucket(struct stream *p, const struct gh_known_bucket *e)
{
	struct gh_ev_bucket ev = {.addr = e->addr};
	const struct known_bucket *kb;

	if (!p->known || p->next_known >= p->known->n) {
		p->stale = true;
		return;
	}
	kb = &p->known->b[p->known->n - 1 - p->next_known++];
	if (e->addr != kb->addr || e->hdr[3] != kb->hash ||
	    e->hdr[4] != kb->size || e->hdr[5] != kb->nstk) {
		p->stale = true;
		return;
	}
	memcpy(ev.hdr, e->hdr, sizeof(ev.hdr));
	add(p, &ev, p->known->words + kb->stk_off, e->rec, false);
}

/* A GH_EV_KNOWN: n buckets without their stacks, in list order, each
 * GH_KNOWN_HEAD_BYTES + rec_bytes long. */
static void on_known(struct stream *p, const uint8_t *data, size_t size)
{
	const size_t head = offsetof(struct gh_ev_known, data);
	const size_t stride = GH_KNOWN_HEAD_BYTES + p->req->rec_bytes;
	struct gh_known_bucket e = {0};
	uint32_t n;

	if (size < head || stride > sizeof(e)) {
		p->malformed = true;
		return;
	}
	memcpy(&n, data + offsetof(struct gh_ev_known, n), sizeof(n));
	if (!n || n > GH_KNOWN_BATCH || size != head + n * stride) {
		p->malformed = true;
		return;
	}
	for (uint32_t i = 0; i < n && !p->stale; i++) {
		memcpy(&e, data + head + i * stride, stride);
		on_known_bucket(p, &e);
	}
}

/* The cycle the next buckets were read in: BEGIN's value (raw, unless
 * reading it failed: var_err), then each GH_EV_GC_CYCLE's. */
static void set_cycle(struct stream *p, uint64_t raw, uint32_t var_err)
{
	if (read_req__cycle_addr(p->req) && !(var_err & 1u << GH_VAR_CYCLE))
		snapshot__set_cycle(p->s, true, raw);
}

void stream__event(struct stream *p, const void *data, size_t size)
{
	struct gh_ev_begin b;
	struct gh_ev_gc_cycle c;
	struct gh_ev_hdr h;

	if (!p || size < sizeof(h))
		return;
	p->bytes += size;
	memcpy(&h, data, sizeof(h));
	if (h.tgid != (uint32_t)p->req->pid)
		return;
	switch (h.kind) {
	case GH_EV_BEGIN:
		if (size != sizeof(b)) {
			p->malformed = true;
			break;
		}
		memcpy(&b, data, sizeof(b));
		p->begun = true;
		if (!p->have_vars) {
			memcpy(p->s->vars, b.vars, sizeof(b.vars));
			p->s->var_err = b.var_err;
			p->have_vars = true;
		}
		set_cycle(p, b.vars[GH_VAR_CYCLE], b.var_err);
		break;
	case GH_EV_GC_CYCLE:
		if (size != sizeof(c)) {
			p->malformed = true;
			break;
		}
		memcpy(&c, data, sizeof(c));
		set_cycle(p, c.raw, 0);
		break;
	case GH_EV_BUCKETS:
		on_buckets(p, data, size);
		break;
	case GH_EV_KNOWN:
		on_known(p, data, size);
		break;
	case GH_EV_END:
		if (size != sizeof(p->end)) {
			p->malformed = true;
			break;
		}
		memcpy(&p->end, data, sizeof(p->end));
		p->s->target_cpu_ns = p->end.cpu_ns;
		memcpy(p->s->vars_end, p->end.vars, sizeof(p->end.vars));
		p->s->var_err_end = p->end.var_err;
		p->ended = true;
		break;
	default:
		p->malformed = true;
	}
}

/* The message of a BPF helper's error (-errno). The record carries any
 * 64-bit value: one that is no errno is not negated (INT64_MIN cannot
 * be) nor passed on. */
static const char *helper_error(int64_t err)
{
	return err < 0 && err > -4096 ? strerror((int)-err) : "unknown error";
}

int stream__verdict(struct stream *p, struct gh_err *err)
{
	const struct read_req *req = p->req;
	struct snapshot *s = p->s;
	unsigned long long at = p->end.resume;

	if (!p->begun && !p->have_vars)
		return err_set(err, GH_E_GONE,
			       "process %d exited before its heap profile "
			       "could be read; take it again while it runs",
			       req->pid);
	if (!p->begun) {
		partial_exited(s);
		return 0;
	}
	if (p->malformed || !p->ended)
		return err_set(err, GH_E_FAILED,
			       "the BPF walker sent a malformed record "
			       "stream (BPF object and reader out of sync)");
	if (p->nomem)
		return err_set(err, GH_E_FAILED,
			       "out of memory after %zu buckets", s->nbuckets);
	if (p->cyclic || p->stale)
		return 0;
	switch (p->end.status) {
	case GH_WALK_DONE:
		/* A walk that met the known head must have met all of them. */
		if (p->known && p->next_known != p->known->n)
			p->stale = true;
		return 0;
	case GH_WALK_RESUME:
		if (p->emitted >= req->max_buckets) {
			partial_bucket_budget(s, req->max_buckets);
			return 0;
		}
		if (req->max_bytes && p->bytes >= req->max_bytes) {
			partial_byte_budget(s, req->max_bytes);
			return 0;
		}
		if (!p->end.nbuckets) {
			snapshot__set_partial(
				s,
				"the bucket at 0x%llx does not fit the "
				"BPF ring buffer",
				at);
			return 0;
		}
		return 1;
	case GH_WALK_FAULT:
		partial_fault(s, at, helper_error(p->end.err));
		return 0;
	case GH_WALK_BAD_NSTK:
		read_req__too_deep(req, s, at);
		return 0;
	case GH_WALK_BAD_TYPE:
		partial_not_heap(s, at, req->typ);
		return 0;
	case GH_WALK_CPU:
		snapshot__set_partial(
			s,
			"the perf walk spent its CPU budget of %llu ms in the "
			"target after %zu buckets",
			(unsigned long long)(req->cpu_budget_ns / 1000000),
			s->nbuckets);
		return 0;
	case GH_WALK_CYCLE:
		/* The kernel's check stopped at the bucket it came back to
		 * (the decoder sees the first repeat itself when the walk
		 * sent one before stopping). */
		partial_cyclic(s, at);
		return 0;
	case GH_WALK_BAD_ALIGN:
		partial_misaligned(s, at);
		return 0;
	case GH_WALK_HEAD_FAULT:
		return err_set(err, GH_E_FAILED,
			       "reading runtime.mbuckets at 0x%llx in "
			       "process %d failed (%s)",
			       at, req->pid, helper_error(p->end.err));
	default:
		return err_set(err, GH_E_FAILED,
			       "the BPF walker reported unknown status %u",
			       p->end.status);
	}
}

void stream__begin(struct stream *p, const struct read_req *req,
		   struct snapshot *s)
{
	uint64_t head = req->known ? known__prepare(req->known, req) : 0;

	stream__init(p, req, s, head ? req->known : NULL);
	p->known_head = head;
}

int stream__end(struct stream *p, int rc)
{
	const struct read_req *req = p->req;
	struct snapshot *s = p->s;

	s->read_bytes += p->bytes;
	/* The sink may still read known stacks (snapshot__add_kept). */
	if (p->known)
		snapshot__wait(s);
	if (!rc && p->stale && p->known_head) {
		/* Known stacks that are not this process's: forget them. */
		known__clear(req->known);
		stream__fini(p);
		snapshot__clear(s);
		return 1;
	}
	if (req->known && !rc && !p->stale && !s->partial)
		known__update(req->known, p);
	stream__fini(p);
	return rc;
}

void stream__stopped(struct stream *p, const char *why)
{
	partial_stopped(p->s, why);
}

int stream__read(const struct read_req *req, struct snapshot *s,
		 stream_walk walk, void *ctx, struct gh_err *err)
{
	struct stream *p = malloc(sizeof(*p));
	bool again;
	int rc;

	if (!p)
		return err_set(err, GH_E_FAILED, "out of memory");
	for (;;) {
		stream__begin(p, req, s);
		again = false;
		rc = walk(ctx, p, p->known_head, &again, err);
		if (!rc && again && !(p->stale && p->known_head)) {
			/* The backend wants the list walked afresh. */
			stream__fini(p);
			snapshot__clear(s);
			continue;
		}
		rc = stream__end(p, rc);
		if (rc <= 0)
			break;
	}
	free(p);
	return rc;
}
