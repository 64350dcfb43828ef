/* gobin.c - open a Go executable for profiling: its Go version from
 * .go.buildinfo, the layout row for that version, and a pclntab handle
 * over the file's own tables (pcHeader, go:func.* and the text start
 * located through the symbol table, or through the moduledata when the
 * binary is stripped). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "gobin/buildinfo.h"
#include "gobin/gobin.h"

/* runtime.moduledata fields (runtime/symtab.go), 64-bit offsets. */
#define MD_PCHEADER	  0
#define MD_FUNCNAME	  8
#define MD_PCLNTABLE	  104 /* pclntable slice: pointer, length */
#define MD_TEXT		  176
#define MD_ETEXT	  184
#define MD_SIZE_MIN	  352 /* covers gofunc in every supported release */
#define PCHDR_FUNCNAMEOFF 32  /* pcHeader.funcnameOffset */

/* The machine this program profiles processes of. */
#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#else
#define HOST_MACHINE EM_NONE
#endif

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
static int bytes_at(const struct elffile *e, uint64_t addr,
		    const uint8_t **data, size_t *size)
{
	struct elffile_sect s;
	size_t i;

	for (i = 0; i < sizeof(data_sections) / sizeof(data_sections[0]); i++) {
		if (elffile__section(e, data_sections[i], &s) < 0 || !s.data ||
		    addr < s.addr || addr - s.addr >= s.size)
			continue;
		*data = s.data + (addr - s.addr);
		*size = s.size - (size_t)(addr - s.addr);
		return 0;
	}
	return -1;
}

static int read_version(struct gobin *b, const char *path, struct gh_err *err)
{
	struct elffile_sect s;
	char *sp;

	if (elffile__section(b->elf, ".go.buildinfo", &s) < 0 || !s.data)
		return err_set(err, GH_E_NOTGO,
			       "%s has no .go.buildinfo section: it is not "
			       "a Go program (or was built by gccgo); give "
			       "the PID of a program built by the go "
			       "command",
			       path);
	if (buildinfo_version(s.data, s.size, b->version, sizeof(b->version),
			      err) < 0)
		return -1;
	b->layout = layout__for(b->version, err);
	if (!b->layout)
		return -1;
	/* Keep "go1.N.P": GOEXPERIMENT and other suffixes follow a space. */
	sp = strchr(b->version, ' ');
	if (sp)
		*sp = '\0';
	return 0;
}

/* Offline: the architectures whose Go binaries this code reads. */
static int check_machine(const struct gobin *b, const char *path,
			 struct gh_err *err)
{
	uint16_t m = elffile__machine(b->elf);
	const char *name = machine_name(m);

	if (m == EM_X86_64 || m == EM_AARCH64)
		return 0;
	if (name)
		return err_set(err, GH_E_UNSUPPORTED,
			       "%s is built for %s: only x86-64 (amd64) and "
			       "arm64 Go binaries are supported",
			       path, name);
	return err_set(err, GH_E_UNSUPPORTED,
		       "%s is built for ELF machine %u: only x86-64 "
		       "(amd64) and arm64 Go binaries are supported",
		       path, m);
}

/* Profiling: the process must be of the host's architecture. */
static int check_host(const struct gobin *b, const char *path,
		      struct gh_err *err)
{
	uint16_t m = elffile__machine(b->elf);

	if (m == HOST_MACHINE)
		return 0;
	return err_set(err, GH_E_UNSUPPORTED,
		       "%s is built for %s, not this host's architecture: "
		       "goheap-bpf profiles processes of its own "
		       "architecture; run the %s build of goheap-bpf",
		       path,
		       machine_name(m) ? machine_name(m) : "another machine",
		       m == EM_AARCH64 ? "arm64" : "matching");
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Offset of moduledata.gofunc (runtime/symtab.go of each release). */
static size_t gofunc_offset(int minor)
{
	if (minor <= 19)
		return 304;
	return minor <= 26 ? 320 : 344;
}

/* The moduledata of a stripped binary: the .go.module section (1.26+),
 * else the one place in .noptrdata holding the pair (pcHeader address,
 * address of its funcnametab), which is how firstmoduledata starts. The
 * Go linker writes link-time addresses there even for PIE (the dynamic
 * relocations only add the load bias). */
static int find_moduledata(const struct elffile *e, uint64_t pchdr,
			   const uint8_t *hdr, const uint8_t **md)
{
	uint64_t want = pchdr + le64(hdr + PCHDR_FUNCNAMEOFF);
	struct elffile_sect s;
	size_t off, hits = 0;

	if (elffile__section(e, ".go.module", &s) == 0) {
		if (!s.data || s.size < MD_SIZE_MIN ||
		    le64(s.data + MD_PCHEADER) != pchdr)
			return -1;
		*md = s.data;
		return 0;
	}
	if (elffile__section(e, ".noptrdata", &s) < 0 || !s.data ||
	    s.size < MD_SIZE_MIN)
		return -1;
	for (off = 0; off + MD_SIZE_MIN <= s.size; off += 8) {
		if (le64(s.data + off + MD_PCHEADER) != pchdr ||
		    le64(s.data + off + MD_FUNCNAME) != want)
			continue;
		*md = s.data + off;
		hits++;
	}
	return hits == 1 ? 0 : -1;
}

/* pclntab, go:func.* and the text start of a stripped binary. */
static int stripped_pcln(struct gobin *b, const char *path,
			 struct pcln_src *src, struct gh_err *err)
{
	struct elffile_sect s;
	const uint8_t *md;
	uint64_t gf, tab, tablen, etext;

	if (elffile__section(b->elf, ".gopclntab", &s) < 0 &&
	    elffile__section(b->elf, ".data.rel.ro.gopclntab", &s) < 0)
		return err_set(err, GH_E_NOTGO,
			       "%s has neither a symbol table nor a "
			       ".gopclntab section: the Go symbol tables "
			       "are missing",
			       path);
	if (!s.data || s.size < 72 ||
	    find_moduledata(b->elf, s.addr, s.data, &md) < 0)
		return err_set(err, GH_E_UNSUPPORTED,
			       "%s is stripped and its runtime moduledata "
			       "cannot be located: profile a build without "
			       "-ldflags=-s",
			       path);
	src->pcln = s.data;
	src->pcln_size = s.size;
	src->text_start = le64(md + MD_TEXT);
	etext = le64(md + MD_ETEXT);
	gf = le64(md + gofunc_offset(b->layout->minor));
	tab = le64(md + MD_PCLNTABLE);
	tablen = le64(md + MD_PCLNTABLE + 8);
	/* pclntab ends with the pclntable slice, when that is in range. */
	if (tab > s.addr && tab - s.addr <= s.size &&
	    tablen <= s.size - (tab - s.addr))
		src->pcln_size = (size_t)(tab - s.addr + tablen);
	if (etext < src->text_start ||
	    bytes_at(b->elf, gf, &src->gofunc, &src->gofunc_size) < 0)
		return err_set(err, GH_E_UNSUPPORTED,
			       "%s is stripped and its moduledata does not "
			       "point at go:func.* and the text: profile a "
			       "build without -ldflags=-s",
			       path);
	return 0;
}

/* pclntab, go:func.* and the text start, from the symbol table. */
static int symtab_pcln(struct gobin *b, const char *path, struct pcln_src *src,
		       struct gh_err *err)
{
	const char *gofunc = b->layout->minor >= 20 ? "go:func.*" : "go.func.*";
	uint64_t pchdr, gf, epcln;

	/* The pcHeader opens runtime.pclntab (runtime.pcheader names it in
	 * some external links). */
	if ((elffile__symbol(b->elf, "runtime.pclntab", &pchdr, NULL) < 0 &&
	     elffile__symbol(b->elf, "runtime.pcheader", &pchdr, NULL) < 0) ||
	    elffile__symbol(b->elf, gofunc, &gf, NULL) < 0 ||
	    elffile__symbol(b->elf, "runtime.text", &src->text_start, NULL) < 0)
		return err_set(err, GH_E_NOTGO,
			       "%s has a symbol table without "
			       "runtime.pclntab, %s or runtime.text: the Go "
			       "symbol tables are missing",
			       path, gofunc);
	if (bytes_at(b->elf, pchdr, &src->pcln, &src->pcln_size) < 0 ||
	    bytes_at(b->elf, gf, &src->gofunc, &src->gofunc_size) < 0)
		return err_set(err, GH_E_NOTGO,
			       "%s: runtime.pclntab or %s is not in a "
			       "data section: the Go symbol tables are "
			       "missing",
			       path, gofunc);
	/* pclntab ends at runtime.epclntab when the section holds more. */
	if (elffile__symbol(b->elf, "runtime.epclntab", &epcln, NULL) == 0 &&
	    epcln > pchdr && epcln - pchdr < src->pcln_size)
		src->pcln_size = (size_t)(epcln - pchdr);
	return 0;
}

/* The variables goheap-bpf reads, looked up in the symbol table once per
 * binary: every process of it asks for them (a linear scan each), and a
 * sweep opens hundreds. */
static void symtab_vars(struct gobin *b)
{
	for (int v = 0; v < GH_SVAR_N; v++)
		b->svars.found[v] =
			elffile__symbol(b->elf,
					svar_name((enum svar)v, b->layout),
					&b->svars.addr[v], NULL) == 0;
}

static int open_pcln(struct gobin *b, const char *path, struct gh_err *err)
{
	struct pcln_src src = {.layout = b->layout};
	struct elffile_sect symtab;

	b->stripped = elffile__section(b->elf, ".symtab", &symtab) < 0;
	if ((b->stripped ? stripped_pcln(b, path, &src, err)
			 : symtab_pcln(b, path, &src, err)) < 0 ||
	    pcln__open(&src, &b->pcln, err) < 0)
		return -1;
	if (b->stripped)
		stripped_resolve(b->elf, b->pcln, b->layout, &b->svars);
	else
		symtab_vars(b);
	return 0;
}

/* The symbols gobin__symbol is asked for: the runtime's variables,
 * math.useFMA, the pclntab's bounds and go:func.* (go.func.* before Go
 * 1.20). */
static const char *const indexed[] = {"runtime.", "math.useFMA", "go:", "go.",
				      NULL};

/* The Go runtimes of -linkshared programs live in Go shared libraries
 * (-buildmode=shared), whose layout goheap-bpf does not know. */
static int check_not_shared(const struct gobin *b, const char *name,
			    struct gh_err *err)
{
	struct elffile_sect s;

	if (elffile__section(b->elf, ".note.go.abihash", &s) < 0)
		return 0;
	return err_set(err, GH_E_UNSUPPORTED,
		       "%s is a Go shared library (-buildmode=shared), which "
		       "only programs built with -linkshared load: "
		       "-linkshared programs are not supported; profile a "
		       "build without -linkshared",
		       name);
}

int gobin__open_offline(const char *path, const char *name, struct gobin **out,
			struct gh_err *err)
{
	struct gobin *b = calloc(1, sizeof(*b));

	*out = NULL;
	if (!b)
		return err_set(err, GH_E_FAILED, "out of memory");
	if (!name)
		name = path;
	if (elffile__open(path, name, &b->elf, err) < 0 ||
	    check_not_shared(b, name, err) < 0 ||
	    elffile__index_symbols(b->elf, indexed, err) < 0 ||
	    read_version(b, name, err) < 0 || check_machine(b, name, err) < 0 ||
	    open_pcln(b, name, err) < 0) {
		gobin__free(b);
		return -1;
	}
	elffile__build_id(b->elf, b->build_id, sizeof(b->build_id));
	elffile__go_build_id(b->elf, b->go_build_id, sizeof(b->go_build_id));
	*out = b;
	return 0;
}

int gobin__open(const char *path, const char *name, struct gobin **out,
		struct gh_err *err)
{
	if (gobin__open_offline(path, name, out, err) < 0)
		return -1;
	if (check_host(*out, name ? name : path, err) < 0) {
		gobin__free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

void gobin__free(struct gobin *b)
{
	if (!b)
		return;
	pcln__free(b->pcln);
	elffile__close(b->elf);
	free(b);
}

/* The stripped.h variable called name, or -1. */
static int svar_index(const struct gobin *b, const char *name)
{
	int v;

	for (v = 0; v < GH_SVAR_N; v++)
		if (strcmp(svar_name((enum svar)v, b->layout), name) == 0)
			return v;
	return -1;
}

int gobin__symbol(const struct gobin *b, const char *name, uint64_t *addr)
{
	int v = svar_index(b, name);

	if (v < 0)
		return b->stripped ? -1
				   : elffile__symbol(b->elf, name, addr, NULL);
	if (!b->svars.found[v])
		return -1;
	*addr = b->svars.addr[v];
	return 0;
}

const char *gobin__why(const struct gobin *b, const char *name)
{
	int v;

	if (!b->stripped)
		return "the symbol table has no such symbol";
	v = svar_index(b, name);
	if (v < 0)
		return "the binary is stripped and only the runtime variables "
		       "goheap-bpf reads can be recovered from its code";
	return b->svars.found[v] ? "" : b->svars.why[v];
}
