/* fuzz.h - what the libFuzzer harnesses of tests/fuzz/ share: fields read
 * off the fuzzed input, an in-memory file for code that opens a path, and
 * the real Go binaries the unit tests build, changed in place per input
 * and restored after it. */
#ifndef GH_FUZZ_H
#define GH_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry point, defined by each harness. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fuzzed input, consumed front to back. Past its end fields read as
 * 0, so that every input means something. */
struct input {
	const uint8_t *p;
	size_t n;
};

uint8_t in_u8(struct input *in);
uint16_t in_u16(struct input *in);
uint32_t in_u32(struct input *in);
uint64_t in_u64(struct input *in);
/* The next len bytes, or all that is left when fewer: *n of them. */
const uint8_t *in_bytes(struct input *in, size_t len, size_t *n);

/* A file in memory (memfd) and the path that opens it. */
struct memfile {
	int fd;
	char path[32];
};

/* Create an empty one; exits when it cannot (the harness cannot run). */
void memfile_init(struct memfile *m, const char *name);
/* Make its content exactly data[0..size). */
void memfile_set(struct memfile *m, const void *data, size_t size);

#define PATCHED_MAX 64

/* A Go binary of the unit tests' fixtures in a memfile: written over and
 * cut short by one input, and put back as it was before the next. */
struct patched {
	struct memfile f;
	uint8_t *orig;
	size_t size, cut; /* the original size, the current one */
	struct {
		size_t off, len;
	} dirty[PATCHED_MAX];
	size_t ndirty;
};

/* The binaries of tests/unit/fixtures/gobins.sh, by release and kind. */
enum fixture_kind { FX_EXE, FX_PIE, FX_ARM64, FX_KINDS };
#define FX_MINOR_FIRST 18 /* the release an input's selector 0 names */
#define FX_MINORS      32

/* $GH_FIXTURES/gobin/1.<minor>/<kind> (GH_FIXTURES defaults to
 * build/fixtures), loaded on first use and kept for the next inputs;
 * NULL when it was not built. */
struct patched *fixture_binary(int minor, enum fixture_kind kind);
/* Write data at off, clipped to the file; at most PATCHED_MAX writes
 * between restores, the others are dropped. */
void patched_write(struct patched *b, size_t off, const void *data, size_t len);
/* Cut the file to size bytes (no-op when it is not shorter). */
void patched_truncate(struct patched *b, size_t size);
/* Undo every write and cut since the last restore. */
void patched_restore(struct patched *b);

#endif
