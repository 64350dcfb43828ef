/* fuzz_elf.c - ELF files, their section and program headers, symbol
 * tables and notes (user/gobin/elffile.c): the input is a whole file, opened
 * by path as gobin__open opens a binary, then asked what gobin asks. */
#include "fuzz.h"

#include "gobin/elffile.h"

/* What gobin.c and stripped.c look up. */
static const char *const sections[] = {
	".go.buildinfo", ".gopclntab", ".data.rel.ro.gopclntab",
	".go.module",	 ".noptrdata", ".data",
	".bss",		 ".symtab",
};
static const char *const symbols[] = {
	"runtime.pclntab",
	"runtime.text",
	"go:func.*",
	"runtime.mbuckets",
};
static const char *const prefixes[] = {"runtime.", "go:", NULL};

/* Read a handed-out range at both ends, so that ASan sees it is mapped. */
static unsigned touch(const uint8_t *p, size_t n)
{
	return p && n ? p[0] + p[n - 1] : 0;
}

static void probe(const struct elffile *e)
{
	volatile unsigned sink = elffile__machine(e) + elffile__is_dyn(e);
	struct elffile_sect s;
	uint64_t vaddr, off, size;
	uint8_t buf[64];
	char hex[128], tiny[3];
	size_t i;

	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (elffile__section(e, sections[i], &s) < 0)
			continue;
		sink += touch(s.data, s.size);
		/* The section's own bytes, as seen through PT_LOAD. */
		sink += elffile__read_vaddr(e, s.addr, buf, sizeof(buf));
	}
	for (i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++)
		if (elffile__symbol(e, symbols[i], &vaddr, &size) == 0)
			sink += elffile__read_vaddr(e, vaddr, buf, 1);
	if (elffile__first_load(e, &vaddr, &off) == 0)
		sink += elffile__read_vaddr(e, vaddr, buf, sizeof(buf));
	elffile__build_id(e, hex, sizeof(hex));
	elffile__build_id(e, tiny, sizeof(tiny));
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct memfile f;
	struct elffile *e;
	struct gh_err err;

	if (!f.path[0])
		memfile_init(&f, "elf");
	memfile_set(&f, data, size);
	if (elffile__open(f.path, "fuzz", &e, &err) == 0) {
		if (elffile__index_symbols(e, prefixes, &err) == 0)
			probe(e);
		elffile__close(e);
	}
	return 0;
}
