/* pbdec.h - protobuf's wire format read back, for the pprof reader: a
 * message's fields one by one, each varint and length checked against the
 * end of the message that holds it. */
#ifndef GH_PPROFIN_PBDEC_H
#define GH_PPROFIN_PBDEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LEN = 2, WIRE_FIXED32 = 5 };

/* A message's bytes, read front to back. */
struct pb_msg {
	const uint8_t *p, *end;
};

/* One field: a varint or fixed value in num, a length-delimited one in
 * sub. */
struct pb_field {
	uint32_t no;
	int wire;
	uint64_t num;
	struct pb_msg sub;
};

/* The next field of m: 1, 0 at m's end, -1 when malformed. */
int pb_msg__next(struct pb_msg *m, struct pb_field *f);

/* Append a repeated integer field's values (one varint, or a packed run)
 * to v[*n..cap); v NULL: count them. -1 when malformed or past cap. */
int pb_field__ints(const struct pb_field *f, uint64_t *v, size_t cap,
		   size_t *n);

/* Whether m's bytes are the string want. */
bool pb_msg__is(const struct pb_msg *m, const char *want);

/* Append m's bytes to the string in buf (size bytes), at most 32 of
 * them, each byte that is not printable ASCII as '?': a message naming
 * them stays one line. */
void pb_msg__append(char *buf, size_t size, const struct pb_msg *m);

#endif
