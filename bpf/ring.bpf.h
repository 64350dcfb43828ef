/* ring.bpf.h - the one rule every program here keeps for the ring
 * buffer's room: a record is sent only when the pass's END record still
 * fits after it, so userspace always learns where a pass stopped.
 *
 * The iterator and perf programs are the ring buffer's only producer while
 * they walk (the iterator runs inside userspace's read(), perf instances
 * exclude each other), so the check cannot race with another reservation.
 * OOM victims (oom.bpf.c) may walk at once: there a record refused for
 * room stops the walk where its run began (flush_run), for the victim's
 * next thread to go on, and a lost END leaves the victim partial. The
 * kernel keeps the producer less than the ring's size ahead of the
 * consumer: a record that would fill the ring exactly is refused.
 */
#ifndef GH_RING_BPF_H
#define GH_RING_BPF_H

/* A record of n bytes as the ring buffer stores it: its 8-byte header,
 * rounded up to 8. */
#define RB_RECORD_BYTES(n) ((((__u64)(n)) + 8 + 7) & ~7ULL)

/* Would a record of n bytes fit in ring rb with end_bytes (the END
 * record's size) left after it? Inlined: rb must stay a map the verifier
 * knows. */
static __always_inline bool ring_room(void *rb, __u64 n, __u64 end_bytes)
{
	__u64 size = bpf_ringbuf_query(rb, BPF_RB_RING_SIZE);
	__u64 used = bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA);

	return used + RB_RECORD_BYTES(n) + RB_RECORD_BYTES(end_bytes) < size;
}

#endif
