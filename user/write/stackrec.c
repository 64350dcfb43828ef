/* stackrec.c - see stackrec.h: pprof.go's printStackRecord, line for
 * line. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "write/stackrec.h"

static void put_hex(struct pbuf *b, const char *fmt, uint64_t v)
{
	char s[32];
	int n = snprintf(s, sizeof(s), fmt, v);

	pbuf__bytes(b, s, n < 0 ? 0 : (size_t)n);
}

static void put_str(struct pbuf *b, const char *s)
{
	pbuf__bytes(b, s, strlen(s));
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

void stack_record_print(struct pbuf *b, const struct pframe *v, size_t n,
			bool hide_internal, bool all)
{
	static const struct pframe none = {.function = "", .file = ""};
	char line[32];
	bool show = all;

	for (size_t i = 0; i < (n ? n : 1); i++) {
		const struct pframe *f = n ? &v[i] : &none;
		const char *name = f->function;

		if (!*name) {
			show = true;
			put_hex(b, "#\t0x%" PRIx64 "\n", f->pc);
			continue;
		}
		if (!strcmp(name, "runtime.goexit") ||
		    (!show &&
		     (starts(name, "runtime.") ||
		      (hide_internal && starts(name, "internal/runtime/")))))
			continue;
		show = true;
		put_hex(b, "#\t0x%" PRIx64 "\t", f->pc);
		put_str(b, name);
		put_hex(b, "+0x%" PRIx64 "\t", f->pc - f->entry);
		put_str(b, f->file);
		snprintf(line, sizeof(line), ":%" PRId64 "\n", f->line);
		put_str(b, line);
	}
	if (!show) {
		stack_record_print(b, v, n, hide_internal, true);
		return;
	}
	put_str(b, "\n");
}
