/* buildids.h - the GNU build ID of each file a profile's mappings name
 * (libc, the executable, Go libraries), read once per file rather than
 * once per mapping per snapshot. Files are known by identity (device,
 * inode, modification time, size). Safe from several threads. */
#ifndef GH_GOBIN_BUILDIDS_H
#define GH_GOBIN_BUILDIDS_H

struct buildids;

struct buildids *buildids__new(void);
void buildids__free(struct buildids *c);

/* A copy (to free) of the hex build ID of the ELF file at path: "" when it
 * has none, is not ELF or cannot be read; NULL when out of memory. c may
 * be NULL: then the file is read every time. */
char *buildids__get(struct buildids *c, const char *path);

#endif
