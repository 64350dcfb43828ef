/* fuzz_stream.c - the ring-buffer records of the BPF walkers
 * (bpf/goheap_record.h) as user/read/stream.c decodes them into a
 * snapshot, driven as the iterator backend drives it (user/read/iter.c):
 * a pass's records, its verdict, another pass or the end of the read,
 * and reads one after another that keep the stacks they have seen.
 *
 * Input: u8 flags (bit 0: 64-byte memRecords, else 128; bit 1: keep
 * stacks between reads; bit 2: nstk_max 1024, else 32); u16 bucket budget
 * (0: none); then records, each a u16 length and its bytes, where length
 * 0 ends the pass instead. A record whose tgid is 0 is given this
 * process's PID, the process being read: the kept stacks are checked
 * against /proc/PID of the process read. Each record gets a buffer of its
 * exact size, so that ASan sees a read past it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#include "read/stream.h"

struct reader {
	struct read_req req;
	struct known known;
	struct snapshot *s;
	struct stream st;
	bool reading;
};

static void begin(struct reader *r)
{
	snapshot__free(r->s);
	r->s = snapshot__new();
	if (!r->s)
		abort();
	stream__begin(&r->st, &r->req, r->s);
	r->reading = true;
}

/* A pass is over: judge it, and go on as iter.c's judge and job_end do. */
static void pass_over(struct reader *r)
{
	struct gh_err err;
	int rc = stream__verdict(&r->st, &err);

	if (rc > 0) {
		r->st.begun = r->st.ended = false;
		return;
	}
	if (stream__end(&r->st, rc) > 0) {
		stream__begin(&r->st, &r->req, r->s);
		return;
	}
	r->reading = false;
}

static void record(struct reader *r, const uint8_t *p, size_t n)
{
	uint8_t *rec = malloc(n ? n : 1);
	struct gh_ev_hdr h;

	if (!rec)
		abort();
	memcpy(rec, p, n);
	if (n >= sizeof(h)) {
		memcpy(&h, rec, sizeof(h));
		if (!h.tgid)
			h.tgid = (uint32_t)r->req.pid;
		memcpy(rec, &h, sizeof(h));
	}
	stream__event(&r->st, rec, n);
	free(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct reader r;
	struct input in = {data, size};
	uint8_t flags = in_u8(&in);
	const uint8_t *p;
	size_t n;

	r.req = (struct read_req){
		.pid = getpid(),
		.mbuckets = 0x1000,
		.nstk_max = flags & 4 ? 1024 : 32,
		.rec_bytes = flags & 1 ? 64 : 128,
		.max_buckets = in_u16(&in),
		.known = flags & 2 ? &r.known : NULL,
	};
	if (!r.req.max_buckets)
		r.req.max_buckets = UINT64_MAX;
	while (in.n) {
		p = in_bytes(&in, in_u16(&in), &n);
		if (!r.reading)
			begin(&r);
		if (n)
			record(&r, p, n);
		else
			pass_over(&r);
	}
	if (r.reading) {
		/* The walk stopped with more to read, as give_up ends it. */
		stream__stopped(&r.st, "input ended");
		stream__end(&r.st, 0);
		r.reading = false;
	}
	snapshot__free(r.s);
	r.s = NULL;
	known__clear(&r.known);
	return 0;
}
