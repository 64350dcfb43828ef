/* partial.h - why a walk of the bucket list stopped short, worded once:
 * the BPF walks (stream.c decodes what they report) and procmem give a
 * person the same reason for the same stop. Each marks s partial. */
#ifndef GH_READ_PARTIAL_H
#define GH_READ_PARTIAL_H

#include <stdint.h>

#include "read/snapshot.h"

/* why: read_ctl__stop's ("cancelled", "the deadline passed"). */
void partial_stopped(struct snapshot *s, const char *why);
void partial_exited(struct snapshot *s);
void partial_bucket_budget(struct snapshot *s, uint64_t max_buckets);
void partial_byte_budget(struct snapshot *s, uint64_t max_bytes);
void partial_misaligned(struct snapshot *s, uint64_t at);
void partial_not_heap(struct snapshot *s, uint64_t at, uint32_t typ);
void partial_cyclic(struct snapshot *s, uint64_t at);
/* Reading the bucket at at failed for why (strerror's words). */
void partial_fault(struct snapshot *s, uint64_t at, const char *why);

#endif
