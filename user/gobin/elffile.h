/* elffile.h - read-only access to an ELF file through libelf: sections,
 * symbols, program headers, notes. Every offset and size taken from the
 * file is bounds-checked against the file's size. */
#ifndef GH_GOBIN_ELFFILE_H
#define GH_GOBIN_ELFFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "goheap.h"

struct elffile;

struct elffile_sect {
	const uint8_t *data; /* file bytes (NULL for SHT_NOBITS) */
	size_t size;
	uint64_t addr;	 /* sh_addr (link-time) */
	uint64_t offset; /* sh_offset */
};

/* Open path read-only; messages call it name (path when NULL). NOTGO for a
 * file that is not ELF (the message names what it is), UNSUPPORTED for
 * 32-bit or big-endian ELF, FAILED for I/O errors. */
int elffile__open(const char *path, const char *name, struct elffile **out,
		  struct gh_err *err);
void elffile__close(struct elffile *e);

uint16_t elffile__machine(const struct elffile *e); /* e_machine */
bool elffile__is_dyn(const struct elffile *e);	    /* ET_DYN (PIE or shared) */

/* Section by name; 0 and *out filled, or -1 when absent. */
int elffile__section(const struct elffile *e, const char *name,
		     struct elffile_sect *out);

/* Index the symbols of .symtab and .dynsym whose names start with one of
 * prefixes (non-empty strings, NULL-terminated), for elffile__symbol: once,
 * before the file is shared between threads. FAILED when out of memory. */
int elffile__index_symbols(struct elffile *e, const char *const *prefixes,
			   struct gh_err *err);

/* Symbol value and size by exact name among those indexed, from .symtab,
 * then .dynsym (the first of that name); 0 when found, -1 when absent or
 * not indexed. */
int elffile__symbol(const struct elffile *e, const char *name, uint64_t *value,
		    uint64_t *size);

/* The first PT_LOAD segment (for the load bias of ET_DYN files). */
int elffile__first_load(const struct elffile *e, uint64_t *vaddr,
			uint64_t *offset);

/* Copy n bytes at link-time address vaddr from the file (PT_LOAD contents);
 * -1 if the range is not wholly backed by file bytes. */
int elffile__read_vaddr(const struct elffile *e, uint64_t vaddr, void *buf,
			size_t n);

/* Hex NT_GNU_BUILD_ID from any SHT_NOTE section, as runtime/pprof's
 * elfBuildID finds it; "" when there is none. */
void elffile__build_id(const struct elffile *e, char *hex, size_t hexsz);

/* The Go build ID (`go tool buildid`) from the .note.go.buildid note; ""
 * when there is none. */
void elffile__go_build_id(const struct elffile *e, char *out, size_t outsz);

#endif
