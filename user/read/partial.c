/* partial.c - the reasons of partial.h. */
#include "read/partial.h"

void partial_stopped(struct snapshot *s, const char *why)
{
	snapshot__set_partial(s, "%s after %zu buckets", why, s->nbuckets);
}

void partial_exited(struct snapshot *s)
{
	snapshot__set_partial(s,
			      "process exited during the read, after %zu "
			      "buckets",
			      s->nbuckets);
}

void partial_bucket_budget(struct snapshot *s, uint64_t max_buckets)
{
	snapshot__set_partial(s, "bucket budget of %llu exhausted",
			      (unsigned long long)max_buckets);
}

void partial_byte_budget(struct snapshot *s, uint64_t max_bytes)
{
	snapshot__set_partial(s,
			      "read budget of %llu bytes used after %zu "
			      "buckets",
			      (unsigned long long)max_bytes, s->nbuckets);
}

void partial_misaligned(struct snapshot *s, uint64_t at)
{
	snapshot__set_partial(s, "bucket address 0x%llx is not 8-byte aligned",
			      (unsigned long long)at);
}

void partial_not_heap(struct snapshot *s, uint64_t at, uint32_t typ)
{
	snapshot__set_partial(s, "bucket at 0x%llx is not a %s-profile bucket",
			      (unsigned long long)at,
			      typ == 2	 ? "block"
			      : typ == 3 ? "mutex"
					 : "heap");
}

void partial_cyclic(struct snapshot *s, uint64_t at)
{
	snapshot__set_partial(s, "allnext list is cyclic at 0x%llx",
			      (unsigned long long)at);
}

void partial_fault(struct snapshot *s, uint64_t at, const char *why)
{
	snapshot__set_partial(s, "reading the bucket at 0x%llx failed (%s)",
			      (unsigned long long)at, why);
}
