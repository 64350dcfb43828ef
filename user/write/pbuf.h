/* pbuf.h - a minimal protocol buffer encoder, just what profile.proto
 * needs: varints, length-delimited strings, packed repeated integers and
 * nested messages. Like runtime/pprof's protobuf.go, a nested message is
 * written in place and its length prefix inserted when it ends, so no
 * sizes are computed ahead; the one message written per bucket has a
 * cursor API whose sizes are computed first. Allocation failure is sticky:
 * every call after it is a no-op and pbuf.failed tells the caller once at the
 * end. */
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

/* A message whose size is known before it is written (a heap profile's
 * sample, written a million times): sizes first, then one reservation and
 * plain stores through a cursor, no length moved into place afterwards.
 * The bytes are those of the nested calls above. */
size_t pbuf__varint_size(uint64_t x);
/* Key, length and body of a length-delimited field of body bytes. */
size_t pbuf__field_size(int tag, size_t body);
/* Key and value of a varint field (pbuf__uint64's bytes). */
size_t pbuf__uint64_size(int tag, uint64_t x);
size_t pbuf__ids_size(const uint32_t *idx, size_t n);
size_t pbuf__int64s_size(const int64_t *x, size_t n);
/* Room for n more bytes: the cursor to write them at, NULL when out of
 * memory (sticky, as above). */
uint8_t *pbuf__room(struct pbuf *b, size_t n);
/* The bytes up to cursor end are written. */
void pbuf__commit(struct pbuf *b, const uint8_t *end);
/* Each writes at o and returns the cursor past what it wrote. */
uint8_t *pbuf__put_varint(uint8_t *o, uint64_t x);
uint8_t *pbuf__put_uint64(uint8_t *o, int tag, uint64_t x);
uint8_t *pbuf__put_head(uint8_t *o, int tag, size_t body);
uint8_t *pbuf__put_ids(uint8_t *o, const uint32_t *idx, size_t n);
uint8_t *pbuf__put_int64s(uint8_t *o, const int64_t *x, size_t n);

#endif /* GH_PBUF_H */
