/* fuzz_pclntab.c - pclntab, its pc-value tables and the inline trees of
 * go:func.* (user/gobin/pcln.c): pcln__open over fuzzed tables with a
 * real layout row, then every lookup at PCs the input lists.
 *
 * Input: u8 release 1.(18 + b % 32), whose layout row is used (none: the
 * input is skipped); u64 text start (0: pcHeader's); u32 length and the
 * bytes from go:func.* on; u16 count and as many u32 PC offsets from the
 * text start; then, to the end, the pclntab from pcHeader on. Each table
 * ends where its buffer does (go:func.* is copied into one of its own),
 * so that ASan sees a read past it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "gobin/pcln.h"

#define MAX_NAMES                                                              \
	1 /* names looked up back: each is a pass over every function */

/* The next u32 length and that many bytes, in a buffer of their own. */
static uint8_t *table(struct input *in, size_t *size)
{
	const uint8_t *p = in_bytes(in, in_u32(in), size);
	uint8_t *copy = malloc(*size ? *size : 1);

	if (copy)
		memcpy(copy, p, *size);
	return copy;
}

static void lookups(struct pcln *p, uint64_t text, struct input pcs)
{
	uint64_t stk[2] = {0}, out[2 + 64], entry, end;
	volatile size_t sink = 0;
	struct goframe f;
	const char *name;
	size_t names = 0;

	while (pcs.n) {
		stk[0] = stk[1];
		stk[1] = text + in_u32(&pcs);
		if ((name = pcln__funcname_for_pc(p, stk[1]))) {
			sink += strlen(name);
			if (names++ < MAX_NAMES)
				sink += pcln__func_by_name(p, name, &entry,
							   &end);
		}
		if (pcln__frame(p, stk[1], &f))
			sink += strlen(f.function) + strlen(f.file);
		sink += pcln__expand_final_inline(p, stk, 2, out);
	}
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size}, pcs;
	char version[16];
	struct pcln_src src = {0};
	struct pcln *p;
	struct gh_err err;
	uint8_t *gofunc;

	snprintf(version, sizeof(version), "go1.%d",
		 FX_MINOR_FIRST + in_u8(&in) % FX_MINORS);
	src.layout = layout__for(version, &err);
	if (!src.layout)
		return 0;
	src.text_start = in_u64(&in);
	src.gofunc = gofunc = table(&in, &src.gofunc_size);
	pcs.p = in_bytes(&in, (size_t)in_u16(&in) * 4, &pcs.n);
	src.pcln = in.p;
	src.pcln_size = in.n;
	if (gofunc && pcln__open(&src, &p, &err) == 0) {
		/* Without a text start, pcln uses pcHeader.textStart. */
		if (!src.text_start)
			memcpy(&src.text_start, src.pcln + 24, 8);
		lookups(p, src.text_start, pcs);
		pcln__free(p);
	}
	free(gofunc);
	return 0;
}
