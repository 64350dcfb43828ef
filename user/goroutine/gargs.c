/* gargs.c - runtime.printArgs from outside. The compiler describes each
 * function's arguments in FUNCDATA_ArgInfo (cmd/compile ssagen
 * emitArgInfo): a byte program of (offset, size) pairs into the argument
 * area, with markers for aggregates ({ }), "..." past the limits and
 * offsets too large ("_"), ended by 0xff; each value is printed in hex,
 * with "?" when FUNCDATA_ArgLiveInfo's bitmap at PCDATA_ArgLiveIndex says
 * its register-argument spill slot is not live at the PC (the same in
 * every supported release). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goroutine/gargs.h"

#define FUNCDATA_ARGINFO     5
#define FUNCDATA_ARGLIVEINFO 6
#define PCDATA_ARGLIVEINDEX  3
#define END_SEQ		     0xff
#define START_AGG	     0xfe
#define END_AGG		     0xfd
#define DOTDOTDOT	     0xfc
#define OFFSET_TOO_LARGE     0xfb
/* abi.TraceArgsMaxLen: (maxDepth*3+2)*limit + 1 */
#define ARGINFO_MAX (5 * 3 + 2) * 10 + 1
#define OUT_MAX	    4096

struct live {
	const uint8_t *info;
	size_t avail;
	int32_t idx;
	uint8_t start;
};

static bool is_live(const struct live *l, uint8_t off, uint8_t slot)
{
	size_t at;

	if (!l->info || l->idx <= 0 || off < l->start)
		return true;
	at = (size_t)l->idx + slot / 8;
	/* Past the bitmap the runtime would read beyond it: say live. */
	return at >= l->avail || (l->info[at] & (1u << (slot % 8)));
}

char *gargs_format(struct pcln *p, uint64_t pc, const uint8_t *args, size_t n)
{
	size_t avail = 0, pi = 0, len = 0;
	const uint8_t *ai = pcln__funcdata(p, pc, FUNCDATA_ARGINFO, &avail);
	struct live l = {0};
	char *out = malloc(OUT_MAX);
	bool start = true;
	uint8_t slot = 0;

	if (!out)
		return NULL;
	out[0] = 0;
	if (!ai)
		goto done;
	if (avail > ARGINFO_MAX)
		avail = ARGINFO_MAX;
	l.info = pcln__funcdata(p, pc, FUNCDATA_ARGLIVEINFO, &l.avail);
	l.idx = pcln__pcdata(p, pc, PCDATA_ARGLIVEINDEX);
	l.start = l.info && l.avail ? l.info[0] : 0xff;
#define PUT(...)                                                               \
	do {                                                                   \
		int k_ = snprintf(out + len, OUT_MAX - len, __VA_ARGS__);      \
		if (k_ > 0)                                                    \
			len = len + (size_t)k_ < OUT_MAX ? len + (size_t)k_    \
							 : OUT_MAX - 1;        \
	} while (0)
	while (pi < avail) {
		uint8_t o = ai[pi++], sz;
		uint64_t x = 0;

		if (o == END_SEQ)
			break;
		if (!start && o != END_AGG)
			PUT(", ");
		switch (o) {
		case START_AGG:
			PUT("{");
			start = true;
			continue;
		case END_AGG:
			PUT("}");
			break;
		case DOTDOTDOT:
			PUT("...");
			break;
		case OFFSET_TOO_LARGE:
			PUT("_");
			break;
		default:
			if (pi >= avail)
				goto done;
			sz = ai[pi++];
			if (sz > 8 || (size_t)o + sz > n) {
				PUT("_");
			} else {
				/* readUnaligned64, the irrelevant bits masked
				 * out (little-endian). */
				memcpy(&x, args + o, sz);
				PUT("%#llx", (unsigned long long)x);
				if (x == 0)
					PUT("x0");
				if (!is_live(&l, o, slot))
					PUT("?");
			}
			if (o >= l.start)
				slot++;
		}
		start = false;
	}
done:
#undef PUT
	/* Kept per frame of every goroutine: only what it holds. */
	{
		char *r = realloc(out, len + 1);

		return r ? r : out;
	}
}
