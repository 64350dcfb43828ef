/* elffile.c - read-only access to an ELF file: the file is mapped privately
 * and parsed with libelf; section contents are handed out as pointers into
 * that mapping once their offsets and sizes are checked against the file
 * size, so nothing read later can run past the file. Symbols are looked up
 * through an index of the names the caller will ask for, built once: a Go
 * binary is asked for about 20 runtime names among 10k-100k symbols, and a
 * scan of the table for each was the largest part of opening one (1.3 ms
 * for benchgen's 9k symbols; the index takes 0.2 ms and 100 KB). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/grow.h"
#include "base/u64map.h"
#include "gobin/elffile.h"

/* A symbol of the index: its name points into the file's mapping. */
struct elfsym {
	const char *name;
	uint64_t value, size;
};

struct elffile {
	uint8_t *map;
	size_t size;
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t shstrndx;
	/* elffile__index_symbols: name key -> syms[], the first symbol of
	 * each name, .symtab's before .dynsym's. */
	struct u64map by_name;
	struct elfsym *syms;
	size_t nsyms, cap_syms;
};

/* Name the format of a file that is not ELF, from its first bytes. */
static const char *file_kind(const uint8_t *b, size_t n)
{
	if (n == 0)
		return "an empty file";
	if (n >= 2 && b[0] == '#' && b[1] == '!')
		return "a script (#!)";
	if (n >= 2 && b[0] == 'M' && b[1] == 'Z')
		return "a PE/COFF (Windows) executable";
	if (n >= 4 &&
	    ((b[0] == 0xcf && b[1] == 0xfa && b[2] == 0xed && b[3] == 0xfe) ||
	     (b[0] == 0xce && b[1] == 0xfa && b[2] == 0xed && b[3] == 0xfe) ||
	     (b[0] == 0xca && b[1] == 0xfe && b[2] == 0xba && b[3] == 0xbe)))
		return "a Mach-O (macOS) binary";
	if (n >= 4 && b[0] == 0x00 && b[1] == 'a' && b[2] == 's' && b[3] == 'm')
		return "a WebAssembly module";
	if (n >= 7 && memcmp(b, "!<arch>", 7) == 0)
		return "an ar archive";
	return "not an ELF file";
}

/* Refuse what goheap-bpf cannot read before libelf sees the file: other
 * formats (NOTGO) and 32-bit or big-endian ELF (UNSUPPORTED). */
static int check_ident(const char *path, const uint8_t *b, size_t n,
		       struct gh_err *err)
{
	if (n < EI_NIDENT || memcmp(b, ELFMAG, SELFMAG) != 0)
		return err_set(err, GH_E_NOTGO,
			       "%s is %s, not a Go program: give the PID of a "
			       "process running a Go executable",
			       path, file_kind(b, n));
	if (b[EI_CLASS] != ELFCLASS64)
		return err_set(err, GH_E_UNSUPPORTED,
			       "%s is a %s ELF file: only 64-bit "
			       "(ELFCLASS64) Go binaries are supported; "
			       "build the program for amd64 or arm64",
			       path,
			       b[EI_CLASS] == ELFCLASS32 ? "32-bit (ELFCLASS32)"
							 : "bad-class");
	if (b[EI_DATA] != ELFDATA2LSB)
		return err_set(err, GH_E_UNSUPPORTED,
			       "%s is a %s ELF file: only little-endian "
			       "(ELFDATA2LSB) Go binaries are supported; "
			       "build the program for amd64 or arm64",
			       path,
			       b[EI_DATA] == ELFDATA2MSB
				       ? "big-endian (ELFDATA2MSB)"
				       : "bad-byte-order");
	return 0;
}

static int map_file(const char *path, const char *name, struct elffile *e,
		    struct gh_err *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return err_set(err, GH_E_FAILED, "cannot open %s: %s", name,
			       strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, GH_E_NOTGO,
			       "%s is not a regular file, so not a Go "
			       "executable",
			       name);
	}
	e->size = (size_t)st.st_size;
	if (e->size > 0) {
		/* Private and writable: libelf may convert in place; the file
		 * itself is never written. */
		e->map = mmap(NULL, e->size, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE, fd, 0);
		if (e->map == MAP_FAILED) {
			e->map = NULL;
			close(fd);
			return err_set(err, GH_E_FAILED, "cannot map %s: %s",
				       name, strerror(errno));
		}
	}
	close(fd);
	return 0;
}

/* Whether [off, off+len) lies within the file. */
static bool in_file(const struct elffile *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

/* A file cut short (a failed copy, a truncated download) must say so, not
 * pass for a file without the sections that were cut off. */
static int check_sections(const char *path, const struct elffile *e,
			  struct gh_err *err)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!in_file(e, e->ehdr.e_shoff,
		     (uint64_t)e->ehdr.e_shnum * e->ehdr.e_shentsize))
		goto cut;
	while ((scn = elf_nextscn(e->elf, scn)))
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_NOBITS &&
		     !in_file(e, sh.sh_offset, sh.sh_size)))
			goto cut;
	return 0;
cut:
	return err_set(err, GH_E_NOTGO,
		       "%s is truncated: its sections run past its %zu "
		       "bytes; the binary was damaged after the build, "
		       "run an intact one",
		       path, e->size);
}

int elffile__open(const char *path, const char *name, struct elffile **out,
		  struct gh_err *err)
{
	struct elffile *e = calloc(1, sizeof(*e));

	*out = NULL;
	if (!e)
		return err_set(err, GH_E_FAILED, "out of memory");
	if (!name)
		name = path;
	if (map_file(path, name, e, err) < 0 ||
	    check_ident(name, e->map, e->size, err) < 0)
		goto fail;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		err_set(err, GH_E_FAILED, "libelf: %s", elf_errmsg(-1));
		goto fail;
	}
	e->elf = elf_memory((char *)e->map, e->size);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF ||
	    !gelf_getehdr(e->elf, &e->ehdr) ||
	    elf_getshdrstrndx(e->elf, &e->shstrndx) < 0) {
		err_set(err, GH_E_NOTGO, "%s is a malformed ELF file (%s)",
			name, elf_errmsg(-1));
		goto fail;
	}
	if (check_sections(name, e, err) < 0)
		goto fail;
	*out = e;
	return 0;
fail:
	elffile__close(e);
	return -1;
}

void elffile__close(struct elffile *e)
{
	if (!e)
		return;
	if (e->elf)
		elf_end(e->elf);
	if (e->map)
		munmap(e->map, e->size);
	u64map__free(&e->by_name);
	free(e->syms);
	free(e);
}

uint16_t elffile__machine(const struct elffile *e)
{
	return e->ehdr.e_machine;
}

bool elffile__is_dyn(const struct elffile *e)
{
	return e->ehdr.e_type == ET_DYN;
}

int elffile__section(const struct elffile *e, const char *name,
		     struct elffile_sect *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *n;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(e->elf, e->shstrndx, sh.sh_name);
		if (!n || strcmp(n, name) != 0)
			continue;
		if (sh.sh_type == SHT_NOBITS) {
			out->data = NULL;
		} else {
			if (!in_file(e, sh.sh_offset, sh.sh_size))
				return -1;
			out->data = e->map + sh.sh_offset;
		}
		out->size = sh.sh_size;
		out->addr = sh.sh_addr;
		out->offset = sh.sh_offset;
		return 0;
	}
	return -1;
}

/* The index's key of a name of len bytes: its length and its first and
 * last 8 bytes, so that keying costs the same for any length. Names that
 * share all three only share a slot chain (names are compared). */
static uint64_t name_key(const char *name, size_t len)
{
	uint64_t head = 0, tail = 0;

	memcpy(&head, name, len < 8 ? len : 8);
	if (len > 8)
		memcpy(&tail, name + len - 8, 8);
	return ((head * 0x9e3779b97f4a7c15ULL) ^ tail ^ len) *
	       0xff51afd7ed558ccdULL;
}

struct name_probe {
	const struct elffile *e;
	const char *name;
};

static bool name_eq(void *ctx, uint32_t i)
{
	const struct name_probe *p = ctx;

	return strcmp(p->e->syms[i].name, p->name) == 0;
}

/* Does the string at s, with left bytes of its table after it, start
 * with one of prefixes (a NULL-terminated list)? */
static bool has_prefix(const char *s, size_t left, const char *const *prefixes)
{
	for (; *prefixes; prefixes++) {
		size_t n;

		/* Most names differ at once: no calls for them. */
		if (s[0] != (*prefixes)[0])
			continue;
		n = strlen(*prefixes);
		if (n <= left && memcmp(s, *prefixes, n) == 0)
			return true;
	}
	return false;
}

/* The name of sym if it starts with one of prefixes and is NUL-terminated
 * inside its string table strtab, else NULL; *len its length. */
static const char *sym_name(const struct elffile *e, const GElf_Shdr *strtab,
			    const Elf64_Sym *sym, const char *const *prefixes,
			    size_t *len)
{
	const char *s, *nul;
	size_t left;

	if (!sym->st_name || sym->st_name >= strtab->sh_size)
		return NULL;
	s = (const char *)e->map + strtab->sh_offset + sym->st_name;
	left = strtab->sh_size - sym->st_name;
	if (!has_prefix(s, left, prefixes) || !(nul = memchr(s, '\0', left)))
		return NULL;
	*len = (size_t)(nul - s);
	return s;
}

/* Add sym, if its name is one to index and not in the index already; n
 * counts it instead when not NULL. -1 when out of room. */
static int index_sym(struct elffile *e, const GElf_Shdr *strtab,
		     const Elf64_Sym *sym, const char *const *prefixes,
		     size_t *n)
{
	struct name_probe p = {e, NULL};
	uint32_t i;
	size_t len;
	uint64_t key;

	p.name = sym_name(e, strtab, sym, prefixes, &len);
	if (!p.name)
		return 0;
	if (n) {
		(*n)++;
		return 0;
	}
	key = name_key(p.name, len);
	if (u64map__get(&e->by_name, key, name_eq, &p, &i))
		return 0;
	if (e->nsyms >= e->cap_syms)
		return -1;
	e->syms[e->nsyms] =
		(struct elfsym){p.name, sym->st_value, sym->st_size};
	return u64map__put(&e->by_name, key, (uint32_t)e->nsyms++);
}

/* The symbol table section at scn and its string table, both inside the
 * file; false when scn is no such section (of type type). */
static bool sym_table(const struct elffile *e, Elf_Scn *scn, Elf64_Word type,
		      GElf_Shdr *sh, GElf_Shdr *strtab)
{
	return gelf_getshdr(scn, sh) && sh->sh_type == type &&
	       sh->sh_entsize == sizeof(Elf64_Sym) &&
	       in_file(e, sh->sh_offset, sh->sh_size) &&
	       gelf_getshdr(elf_getscn(e->elf, sh->sh_link), strtab) &&
	       strtab->sh_type == SHT_STRTAB &&
	       in_file(e, strtab->sh_offset, strtab->sh_size);
}

/* Index the symbols of every symbol table section of type type whose names
 * start with one of prefixes; n counts them instead when not NULL. */
static int index_table(struct elffile *e, Elf64_Word type,
		       const char *const *prefixes, size_t *n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, strtab;
	Elf64_Sym sym;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		if (!sym_table(e, scn, type, &sh, &strtab))
			continue;
		for (uint64_t i = 0; i < sh.sh_size / sizeof(sym); i++) {
			memcpy(&sym, e->map + sh.sh_offset + i * sizeof(sym),
			       sizeof(sym));
			if (index_sym(e, &strtab, &sym, prefixes, n))
				return -1;
		}
	}
	return 0;
}

int elffile__index_symbols(struct elffile *e, const char *const *prefixes,
			   struct gh_err *err)
{
	size_t n = 0;

	/* Counted first, and sized once: growing the table as it filled was
	 * a third of the cost. */
	index_table(e, SHT_SYMTAB, prefixes, &n);
	index_table(e, SHT_DYNSYM, prefixes, &n);
	if (n > UINT32_MAX ||
	    grow_array((void **)&e->syms, &e->cap_syms, n, sizeof(*e->syms)) ||
	    u64map__reserve(&e->by_name, n) ||
	    index_table(e, SHT_SYMTAB, prefixes, NULL) ||
	    index_table(e, SHT_DYNSYM, prefixes, NULL))
		return err_set(err, GH_E_FAILED,
			       "out of memory indexing the symbol table");
	return 0;
}

int elffile__symbol(const struct elffile *e, const char *name, uint64_t *value,
		    uint64_t *size)
{
	struct name_probe p = {e, name};
	uint32_t i;

	if (!u64map__get(&e->by_name, name_key(name, strlen(name)), name_eq, &p,
			 &i))
		return -1;
	*value = e->syms[i].value;
	if (size)
		*size = e->syms[i].size;
	return 0;
}

int elffile__first_load(const struct elffile *e, uint64_t *vaddr,
			uint64_t *offset)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(e->elf, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		*vaddr = ph.p_vaddr;
		*offset = ph.p_offset;
		return 0;
	}
	return -1;
}

int elffile__read_vaddr(const struct elffile *e, uint64_t vaddr, void *buf,
			size_t n)
{
	size_t i, nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(e->elf, &nph) < 0)
		return -1;
	for (i = 0; i < nph; i++) {
		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr > ph.p_filesz ||
		    n > ph.p_filesz - (vaddr - ph.p_vaddr))
			continue;
		if (!in_file(e, ph.p_offset, ph.p_filesz))
			return -1;
		memcpy(buf, e->map + ph.p_offset + (vaddr - ph.p_vaddr), n);
		return 0;
	}
	return -1;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The descriptor of the note named name (4 bytes with its NULs) of type
 * type in one note section, walked as runtime/pprof's elfBuildID does
 * (4-byte padding, descriptor of at most 256 bytes); 0 with *desc and
 * *len set when found. */
static int note_find(const uint8_t *p, uint64_t size, const char name[4],
		     uint32_t want, const uint8_t **desc, uint32_t *len)
{
	uint64_t off = 0, descoff;
	uint32_t namesz, descsz, type;

	while (off < size && size - off >= 16) {
		namesz = le32(p + off);
		descsz = le32(p + off + 4);
		type = le32(p + off + 8);
		descoff = off + 12 + (((uint64_t)namesz + 3) & ~3ULL);
		if (namesz == 4 && type == want && size - off - 12 >= 4 &&
		    memcmp(p + off + 12, name, 4) == 0) {
			if (descsz > 256 || descoff > size ||
			    descsz > size - descoff)
				return -1;
			*desc = p + descoff;
			*len = descsz;
			return 0;
		}
		off = descoff + (((uint64_t)descsz + 3) & ~3ULL);
	}
	return -1;
}

void elffile__build_id(const struct elffile *e, char *hex, size_t hexsz)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const uint8_t *desc;
	uint32_t len, i;

	if (hexsz == 0)
		return;
	hex[0] = '\0';
	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !in_file(e, sh.sh_offset, sh.sh_size))
			continue;
		if (note_find(e->map + sh.sh_offset, sh.sh_size, "GNU",
			      NT_GNU_BUILD_ID, &desc, &len) < 0)
			continue;
		if ((size_t)len * 2 + 1 > hexsz)
			return;
		for (i = 0; i < len; i++)
			snprintf(hex + 2 * i, 3, "%02x", desc[i]);
		return;
	}
}

void elffile__go_build_id(const struct elffile *e, char *out, size_t outsz)
{
	struct elffile_sect s;
	const uint8_t *desc;
	uint32_t len;

	if (outsz == 0)
		return;
	out[0] = '\0';
	/* The go command's note: name "Go", type 4, the ID as text. */
	if (elffile__section(e, ".note.go.buildid", &s) < 0 || !s.data ||
	    note_find(s.data, s.size, "Go\0", 4, &desc, &len) < 0 ||
	    len >= outsz || memchr(desc, '\0', len))
		return;
	memcpy(out, desc, len);
	out[len] = '\0';
}
