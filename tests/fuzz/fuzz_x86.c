/* fuzz_x86.c - the x86-64 decoder (user/gobin/x86insn.c): the input is
 * code, decoded instruction after instruction from its start as
 * stripped.c walks a function, stepping one byte over what it refuses.
 * A decoded length outside 1..15 or past the bytes given is a bug, and
 * aborts. */
#include <stdlib.h>

#include "fuzz.h"

#include "gobin/x86insn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct x86insn x;
	size_t off = 0;
	int len;

	while (off < size) {
		len = x86_decode(data + off, size - off, &x);
		if (len < 0) {
			off++;
			continue;
		}
		if (len == 0 || len > 15 || (size_t)len > size - off ||
		    len != x.len)
			abort();
		off += (size_t)len;
	}
	return 0;
}
