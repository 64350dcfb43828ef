/* pbdec.c - see pbdec.h. */
#include <string.h>

#include "pprofin/pbdec.h"

static int varint(struct pb_msg *r, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
		uint8_t b = *r->p++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1; /* cut short, or longer than 10 bytes */
}

static int fixed(struct pb_msg *r, size_t n, uint64_t *v)
{
	if ((size_t)(r->end - r->p) < n)
		return -1;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return 0;
}

int pb_msg__next(struct pb_msg *r, struct pb_field *f)
{
	uint64_t tag, len;

	if (r->p == r->end)
		return 0;
	if (varint(r, &tag) || tag >> 32 || !(tag >> 3))
		return -1;
	f->no = (uint32_t)(tag >> 3);
	f->wire = (int)(tag & 7);
	switch (f->wire) {
	case WIRE_VARINT:
		return varint(r, &f->num) ? -1 : 1;
	case WIRE_FIXED64:
		return fixed(r, 8, &f->num) ? -1 : 1;
	case WIRE_FIXED32:
		return fixed(r, 4, &f->num) ? -1 : 1;
	case WIRE_LEN:
		if (varint(r, &len) || len > (uint64_t)(r->end - r->p))
			return -1;
		f->sub = (struct pb_msg){r->p, r->p + len};
		r->p += len;
		return 1;
	}
	return -1; /* groups, and wire types that do not exist */
}

static int put(uint64_t *v, size_t cap, size_t *n, uint64_t x)
{
	if (*n == cap)
		return -1;
	if (v)
		v[*n] = x;
	(*n)++;
	return 0;
}

int pb_field__ints(const struct pb_field *f, uint64_t *v, size_t cap, size_t *n)
{
	struct pb_msg r = f->sub;
	uint64_t x;

	if (f->wire == WIRE_VARINT)
		return put(v, cap, n, f->num);
	if (f->wire != WIRE_LEN)
		return -1;
	while (r.p < r.end)
		if (varint(&r, &x) || put(v, cap, n, x))
			return -1;
	return 0;
}

bool pb_msg__is(const struct pb_msg *m, const char *want)
{
	size_t n = strlen(want);

	return (size_t)(m->end - m->p) == n && memcmp(m->p, want, n) == 0;
}

void pb_msg__append(char *buf, size_t size, const struct pb_msg *m)
{
	size_t n = strlen(buf);

	for (const uint8_t *c = m->p; c < m->end && c - m->p < 32; c++)
		if (n + 1 < size) {
			buf[n++] = *c >= 0x20 && *c < 0x7f ? (char)*c : '?';
			buf[n] = '\0';
		}
}
