/* gobin.c - open a Go executable for profiling: its Go version from
 * .go.buildinfo, the layout row for that version, and a pclntab handle
 * over the file's own tables (pcHeader, go:func.* and the text start
 * located through the symbol table). */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"
#include "gobin.h"

/* Sections the linker puts pclntab and go:func.* in, across releases and
 * build modes (exe, PIE). */
static const char *const data_sections[] = {
	".gopclntab", ".data.rel.ro.gopclntab",
	".go.func",   ".data.rel.ro.go.func",
	".rodata",    ".data.rel.ro",
};

/* Name an ELF machine for the UNSUPPORTED message. */
static const char *machine_name(uint16_t m)
{
	switch (m) {
	case EM_AARCH64:
		return "arm64 (EM_AARCH64)";
	case EM_386:
		return "386 (EM_386)";
	case EM_ARM:
		return "arm (EM_ARM)";
	case EM_PPC64:
		return "ppc64 (EM_PPC64)";
	case EM_S390:
		return "s390x (EM_S390)";
	case EM_RISCV:
		return "riscv64 (EM_RISCV)";
	case EM_LOONGARCH:
		return "loong64 (EM_LOONGARCH)";
	case EM_MIPS:
		return "mips (EM_MIPS)";
	default:
		return NULL;
	}
}

/* The bytes from link-time address addr to the end of whichever data
 * section holds it; -1 when no such section has file bytes there. */
static int bytes_at(const struct gh_elf *e, uint64_t addr, const uint8_t **data,
		    size_t *size)
{
	struct gh_elf_sect s;
	size_t i;

	for (i = 0; i < sizeof(data_sections) / sizeof(data_sections[0]); i++) {
		if (gh_elf_section(e, data_sections[i], &s) < 0 || !s.data ||
		    addr < s.addr || addr - s.addr >= s.size)
			continue;
		*data = s.data + (addr - s.addr);
		*size = s.size - (size_t)(addr - s.addr);
		return 0;
	}
	return -1;
}

static int read_version(struct gh_gobin *b, const char *path,
			struct gh_err *err)
{
	struct gh_elf_sect s;
	char *sp;

	if (gh_elf_section(b->elf, ".go.buildinfo", &s) < 0 || !s.data)
		return gh_err_set(err, GH_E_NOTGO,
				  "%s has no .go.buildinfo section: it is not "
				  "a Go program (or was built by gccgo); give "
				  "the PID of a program built by the go "
				  "command",
				  path);
	if (gh_buildinfo_version(s.data, s.size, b->version, sizeof(b->version),
				 err) < 0)
		return -1;
	b->layout = gh_layout_for(b->version, err);
	if (!b->layout)
		return -1;
	/* Keep "go1.N.P": GOEXPERIMENT and other suffixes follow a space. */
	sp = strchr(b->version, ' ');
	if (sp)
		*sp = '\0';
	return 0;
}

static int check_machine(const struct gh_gobin *b, const char *path,
			 struct gh_err *err)
{
	uint16_t m = gh_elf_machine(b->elf);
	const char *name = machine_name(m);

	if (m == EM_X86_64)
		return 0;
	if (name)
		return gh_err_set(err, GH_E_UNSUPPORTED,
				  "%s is built for %s: only x86-64 (amd64) Go "
				  "binaries are supported",
				  path, name);
	return gh_err_set(err, GH_E_UNSUPPORTED,
			  "%s is built for ELF machine %u: only x86-64 "
			  "(amd64) Go binaries are supported",
			  path, m);
}

/* pclntab, go:func.* and the text start, from the symbol table. */
static int open_pcln(struct gh_gobin *b, const char *path, struct gh_err *err)
{
	const struct gh_layout *L = b->layout;
	struct gh_pcln_src src = {.layout = L};
	const char *gofunc = L->minor >= 20 ? "go:func.*" : "go.func.*";
	uint64_t pchdr, gf, epcln;

	/* The pcHeader opens runtime.pclntab (runtime.pcheader names it in
	 * some external links). */
	if ((gh_elf_symbol(b->elf, "runtime.pclntab", &pchdr, NULL) < 0 &&
	     gh_elf_symbol(b->elf, "runtime.pcheader", &pchdr, NULL) < 0) ||
	    gh_elf_symbol(b->elf, gofunc, &gf, NULL) < 0 ||
	    gh_elf_symbol(b->elf, "runtime.text", &src.text_start, NULL) < 0)
		return gh_err_set(err, GH_E_UNSUPPORTED,
				  "%s has no symbol table (stripped with -s?): "
				  "stripped binaries are not supported yet; "
				  "profile an unstripped build",
				  path);
	if (bytes_at(b->elf, pchdr, &src.pcln, &src.pcln_size) < 0 ||
	    bytes_at(b->elf, gf, &src.gofunc, &src.gofunc_size) < 0)
		return gh_err_set(err, GH_E_NOTGO,
				  "%s: runtime.pclntab or %s is not in a "
				  "data section: the Go symbol tables are "
				  "missing",
				  path, gofunc);
	/* pclntab ends at runtime.epclntab when the section holds more. */
	if (gh_elf_symbol(b->elf, "runtime.epclntab", &epcln, NULL) == 0 &&
	    epcln > pchdr && epcln - pchdr < src.pcln_size)
		src.pcln_size = (size_t)(epcln - pchdr);
	return gh_pcln_open(&src, &b->pcln, err);
}

int gh_gobin_open(const char *path, struct gh_gobin **out, struct gh_err *err)
{
	struct gh_gobin *b = calloc(1, sizeof(*b));

	*out = NULL;
	if (!b)
		return gh_err_set(err, GH_E_FAILED, "out of memory");
	if (gh_elf_open(path, &b->elf, err) < 0 ||
	    read_version(b, path, err) < 0 || check_machine(b, path, err) < 0 ||
	    open_pcln(b, path, err) < 0) {
		gh_gobin_free(b);
		return -1;
	}
	gh_elf_build_id(b->elf, b->build_id, sizeof(b->build_id));
	*out = b;
	return 0;
}

void gh_gobin_free(struct gh_gobin *b)
{
	if (!b)
		return;
	gh_pcln_free(b->pcln);
	gh_elf_close(b->elf);
	free(b);
}

int gh_gobin_symbol(const struct gh_gobin *b, const char *name, uint64_t *addr)
{
	return gh_elf_symbol(b->elf, name, addr, NULL);
}
