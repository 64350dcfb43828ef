/* pbuf.h - a minimal protocol buffer encoder, just what profile.proto
 * needs: varints, length-delimited strings, packed repeated integers and
 * nested messages. Like runtime/pprof's protobuf.go, a nested message is
 * written in place and its length prefix inserted when it ends, so no
 * sizes are computed ahead. Allocation failure is sticky: every call after
 * it is a no-op and pbuf.failed tells the caller once at the end. */
#ifndef GH_PBUF_H
#define GH_PBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pbuf {
	uint8_t *data;
	size_t len, cap;
	bool failed; /* out of memory: data is incomplete */
};

void pbuf__free(struct pbuf *b);

/* Field tag with varint wire type, then x. */
void pbuf__uint64(struct pbuf *b, int tag, uint64_t x);
/* As pbuf__uint64, omitted when x is 0 (proto3 default). */
void pbuf__uint64_opt(struct pbuf *b, int tag, uint64_t x);
void pbuf__int64_opt(struct pbuf *b, int tag, int64_t x);
/* Packed repeated ids: 1 + each 0-based index in idx. */
void pbuf__packed_ids(struct pbuf *b, int tag, const uint32_t *idx, size_t n);
/* Packed repeated int64 (two's complement varints, as Go writes them). */
void pbuf__packed_int64(struct pbuf *b, int tag, const int64_t *x, size_t n);
void pbuf__string(struct pbuf *b, int tag, const char *s);
/* Raw bytes, no tag (the compressed output uses a pbuf as its buffer). */
void pbuf__bytes(struct pbuf *b, const void *data, size_t n);

/* Nested message: start returns the offset to give to end. */
size_t pbuf__start(struct pbuf *b);
void pbuf__end(struct pbuf *b, int tag, size_t start);

#endif /* GH_PBUF_H */
