/* fuzz_gobin.c - whole Go binaries through gobin__open (user/gobin/gobin.c
 * and all it calls: ELF, .go.buildinfo, layout, the symbol table or the
 * moduledata of a stripped binary, pclntab, stripped-binary recovery): a
 * real binary of the unit tests' fixtures, changed as the input says.
 *
 * Input: one byte choosing the binary - release 1.(18 + bits 0-4), kind
 * bits 6-7 (exe, pie, arm64, exe) - then edits, each a u32 W: when its
 * top bit is set, the file is cut to (W & 0x7fffffff) % size bytes; else
 * a u8 length and that many bytes are written at W % size. A binary whose
 * .symtab section is renamed (an edit of .shstrtab) is opened as a
 * stripped one, which is how the seeds reach that path. */
#include <string.h>

#include "fuzz.h"

#include "gobin/gobin.h"

/* The binary the input's first byte names. */
static struct patched *binary(uint8_t sel, enum fixture_kind *kind)
{
	*kind = sel >> 6 == FX_KINDS ? FX_EXE : (enum fixture_kind)(sel >> 6);
	return fixture_binary(FX_MINOR_FIRST + sel % FX_MINORS, *kind);
}

static void edit(struct patched *b, struct input *in)
{
	const uint8_t *p;
	uint32_t w;
	size_t n;

	while (in->n) {
		w = in_u32(in);
		if (w >> 31) {
			patched_truncate(b, (w & 0x7fffffff) % b->size);
			continue;
		}
		p = in_bytes(in, in_u8(in), &n);
		patched_write(b, w % b->size, p, n);
	}
}

/* Use what was opened as a profile would: the runtime variables, and
 * frames at PCs across .text. */
static void probe(struct gobin *g)
{
	static const char *const vars[] = {
		"runtime.mbuckets", "runtime.MemProfileRate",
		"runtime.disableMemoryProfiling", "math.useFMA", "main.main"};
	volatile size_t sink = 0;
	struct elffile_sect text;
	struct goframe f;
	uint64_t addr;
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (gobin__symbol(g, vars[i], &addr) < 0)
			sink += strlen(gobin__why(g, vars[i]));
	if (elffile__section(g->elf, ".text", &text) < 0)
		return;
	for (i = 0; i < 16; i++)
		if (pcln__frame(g->pcln, text.addr + text.size / 16 * i, &f))
			sink += strlen(f.function) + strlen(f.file);
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	struct patched *b;
	struct gobin *g;
	struct gh_err err;
	enum fixture_kind kind;
	int rc;

	b = binary(in_u8(&in), &kind);
	if (!b)
		return 0;
	edit(b, &in);
	rc = kind == FX_ARM64 ? gobin__open_offline(b->f.path, NULL, &g, &err)
			      : gobin__open(b->f.path, NULL, &g, &err);
	if (rc == 0) {
		probe(g);
		gobin__free(g);
	}
	patched_restore(b);
	return 0;
}
