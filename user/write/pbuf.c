/* pbuf.c - the protocol buffer encoder of pbuf.h. Only the varint (0) and
 * length-delimited (2) wire types are used, as in runtime/pprof. */
#include <stdlib.h>
#include <string.h>

#include "write/pbuf.h"

enum { WIRE_VARINT = 0, WIRE_BYTES = 2, VARINT_MAX = 10 };

void pbuf__free(struct pbuf *b)
{
	free(b->data);
	*b = (struct pbuf){0};
}

/* Make room for n more bytes; false (and sticky failure) when out of
 * memory or when the size would overflow. */
static bool reserve(struct pbuf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->failed)
		return false;
	if (b->cap - b->len >= n)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2)
			goto fail;
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p)
		goto fail;
	b->data = p;
	b->cap = cap;
	return true;
fail:
	b->failed = true;
	return false;
}

static size_t encode_varint(uint8_t *out, uint64_t x)
{
	size_t n = 0;

	while (x >= 0x80) {
		out[n++] = (uint8_t)(x | 0x80);
		x >>= 7;
	}
	out[n++] = (uint8_t)x;
	return n;
}

static void varint(struct pbuf *b, uint64_t x)
{
	if (reserve(b, VARINT_MAX))
		b->len += encode_varint(b->data + b->len, x);
}

static void key(struct pbuf *b, int tag, int wire)
{
	varint(b, (uint64_t)tag << 3 | (uint64_t)wire);
}

void pbuf__uint64(struct pbuf *b, int tag, uint64_t x)
{
	key(b, tag, WIRE_VARINT);
	varint(b, x);
}

void pbuf__uint64_opt(struct pbuf *b, int tag, uint64_t x)
{
	if (x)
		pbuf__uint64(b, tag, x);
}

void pbuf__int64_opt(struct pbuf *b, int tag, int64_t x)
{
	if (x)
		pbuf__uint64(b, tag, (uint64_t)x);
}

/* One reservation for the whole list: a sample's stack is encoded for
 * every bucket of a profile that may hold a million. */
void pbuf__packed_ids(struct pbuf *b, int tag, const uint32_t *idx, size_t n)
{
	size_t start = pbuf__start(b);
	size_t i;

	if (n > SIZE_MAX / VARINT_MAX || !reserve(b, n * VARINT_MAX))
		return;
	for (i = 0; i < n; i++)
		b->len += encode_varint(b->data + b->len, (uint64_t)idx[i] + 1);
	pbuf__end(b, tag, start);
}

void pbuf__packed_int64(struct pbuf *b, int tag, const int64_t *x, size_t n)
{
	size_t start = pbuf__start(b);
	size_t i;

	for (i = 0; i < n; i++)
		varint(b, (uint64_t)x[i]);
	pbuf__end(b, tag, start);
}

void pbuf__bytes(struct pbuf *b, const void *data, size_t n)
{
	if (n && reserve(b, n)) {
		memcpy(b->data + b->len, data, n);
		b->len += n;
	}
}

void pbuf__string(struct pbuf *b, int tag, const char *s)
{
	size_t n = strlen(s);

	key(b, tag, WIRE_BYTES);
	varint(b, n);
	pbuf__bytes(b, s, n);
}

size_t pbuf__start(struct pbuf *b)
{
	return b->len;
}

/* Insert the key and length of the bytes written since start in front of
 * them. */
void pbuf__end(struct pbuf *b, int tag, size_t start)
{
	uint8_t hdr[2 * VARINT_MAX];
	size_t body, n;

	if (b->failed)
		return;
	body = b->len - start;
	n = encode_varint(hdr, (uint64_t)tag << 3 | WIRE_BYTES);
	n += encode_varint(hdr + n, body);
	if (!reserve(b, n))
		return;
	memmove(b->data + start + n, b->data + start, body);
	memcpy(b->data + start, hdr, n);
	b->len += n;
}

size_t pbuf__varint_size(uint64_t x)
{
	size_t n = 1;

	while (x >= 0x80) {
		x >>= 7;
		n++;
	}
	return n;
}

size_t pbuf__field_size(int tag, size_t body)
{
	return pbuf__varint_size((uint64_t)tag << 3 | WIRE_BYTES) +
	       pbuf__varint_size(body) + body;
}

size_t pbuf__uint64_size(int tag, uint64_t x)
{
	return pbuf__varint_size((uint64_t)tag << 3 | WIRE_VARINT) +
	       pbuf__varint_size(x);
}

size_t pbuf__ids_size(const uint32_t *idx, size_t n)
{
	size_t sz = 0;

	for (size_t i = 0; i < n; i++)
		sz += pbuf__varint_size((uint64_t)idx[i] + 1);
	return sz;
}

size_t pbuf__int64s_size(const int64_t *x, size_t n)
{
	size_t sz = 0;

	for (size_t i = 0; i < n; i++)
		sz += pbuf__varint_size((uint64_t)x[i]);
	return sz;
}

uint8_t *pbuf__room(struct pbuf *b, size_t n)
{
	return reserve(b, n) ? b->data + b->len : NULL;
}

void pbuf__commit(struct pbuf *b, const uint8_t *end)
{
	b->len = (size_t)(end - b->data);
}

uint8_t *pbuf__put_varint(uint8_t *o, uint64_t x)
{
	return o + encode_varint(o, x);
}

uint8_t *pbuf__put_uint64(uint8_t *o, int tag, uint64_t x)
{
	o = pbuf__put_varint(o, (uint64_t)tag << 3 | WIRE_VARINT);
	return pbuf__put_varint(o, x);
}

uint8_t *pbuf__put_head(uint8_t *o, int tag, size_t body)
{
	o = pbuf__put_varint(o, (uint64_t)tag << 3 | WIRE_BYTES);
	return pbuf__put_varint(o, body);
}

uint8_t *pbuf__put_ids(uint8_t *o, const uint32_t *idx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		o += encode_varint(o, (uint64_t)idx[i] + 1);
	return o;
}

uint8_t *pbuf__put_int64s(uint8_t *o, const int64_t *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		o += encode_varint(o, (uint64_t)x[i]);
	return o;
}
