/* test_stripped.c - user/gobin/stripped.c and the stripped path of
 * user/gobin/gobin.c on real binaries built with -ldflags='-s -w' by every
 * supported release, amd64 and arm64, executable and PIE
 * (tests/unit/fixtures/stripped.sh builds them):
 *
 * - every variable recovered from code equals `go tool nm` of the twin
 *   built with its symbol table (math.useFMA when the twin has it: amd64);
 * - symbolization through the moduledata-found pclntab and go:func.*
 *   gives the same frames as the twin's symbol-table route at every
 *   function entry and return PC;
 * - near misses: a copy with one opcode byte of a pattern flipped loses
 *   that variable, with a reason, and never yields a wrong address
 *   (mbuckets', the rate's and allglen's patterns). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"

#include "gobin/gobin.h"

static const char *const kinds[] = {"exe", "pie", "arm64-exe", "arm64-pie"};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static struct gobin *open_bin(const char *path)
{
	struct gh_err err = {0};
	struct gobin *b;

	if (gobin__open_offline(path, NULL, &b, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	return b;
}

/* Each variable of b against the twin's nm; returns how many compared. */
static int check_vars(const struct gobin *b, const char *nm, const char *what,
		      const char *skip)
{
	uint64_t want, got;
	int v, n = 0;
	const char *name;

	for (v = 0; v < GH_SVAR_N; v++) {
		name = svar_name((enum svar)v, b->layout);
		/* The rate's sequence also gives disableMemoryProfiling,
		 * forEachGRace's both allglen and allgptr. */
		if (skip && (strcmp(name, skip) == 0 ||
			     (v == GH_SVAR_DISABLE &&
			      strcmp(skip, "runtime.MemProfileRate") == 0) ||
			     (v == GH_SVAR_ALLGPTR &&
			      strcmp(skip, "runtime.allglen") == 0)))
			continue;
		if (!(want = fixture_nm_addr(nm, name))) {
			if (v != GH_SVAR_USEFMA)
				fail_msg("%s: go tool nm has no %s", nm, name);
			continue;
		}
		if (gobin__symbol(b, name, &got) < 0)
			fail_msg("%s: %s not recovered: %s", what, name,
				 gobin__why(b, name));
		if (got != want)
			fail_msg("%s: %s at %#llx, go tool nm says %#llx", what,
				 name, (unsigned long long)got,
				 (unsigned long long)want);
		n++;
	}
	return n;
}

/* Frames at every function entry and the PC after it agree between the
 * stripped binary and its twin. */
static size_t check_frames(struct gobin *s, struct gobin *t, const char *nm,
			   const char *what)
{
	char line[4096], sym[4096], type[8];
	struct goframe fs, ft;
	unsigned long long a;
	FILE *f = fopen(nm, "r");
	size_t n = 0;
	int k;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %7s %4095s", &a, type, sym) != 3 ||
		    (strcmp(type, "T") && strcmp(type, "t")))
			continue;
		for (k = 0; k < 2; k++) {
			int rs = pcln__frame(s->pcln, a + k, &fs);
			int rt = pcln__frame(t->pcln, a + k, &ft);

			if (rs != rt ||
			    (rs &&
			     (strcmp(fs.function, ft.function) ||
			      strcmp(fs.file, ft.file) || fs.line != ft.line ||
			      fs.inlined != ft.inlined)))
				fail_msg("%s: frame at %#llx differs from the "
					 "unstripped twin's",
					 what, a + k);
			n++;
		}
	}
	fclose(f);
	return n;
}

static void test_recovered(void **state)
{
	char path[2048], twin[4096], nm[4096];
	struct gobin *s, *t;
	size_t nv, i, k, frames = 0;
	char **vers;
	int vars = 0;

	(void)state;
	nv = fixture_versions("stripped", "stripped.sh", &vers);
	assert_int_equal(nv, 10);
	for (i = 0; i < nv; i++)
		for (k = 0; k < NKINDS; k++) {
			snprintf(path, sizeof(path), "%s/stripped/%s/%s",
				 fixture_dir(), vers[i], kinds[k]);
			snprintf(twin, sizeof(twin), "%s.twin", path);
			snprintf(nm, sizeof(nm), "%s.twin.nm", path);
			s = open_bin(path);
			t = open_bin(twin);
			assert_true(s->stripped);
			assert_false(t->stripped);
			vars += check_vars(s, nm, path, NULL);
			frames += check_frames(s, t, nm, path);
			gobin__free(s);
			gobin__free(t);
		}
	print_message("stripped: %d variables equal go tool nm, %zu frames "
		      "equal the twins'\n",
		      vars, frames);
	fixture_versions_free(vers, nv);
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* The instruction at addr as the bytes of hex (amd64: objdump's byte
 * string; arm64, bit >= 0: its 32-bit word, little-endian in the file);
 * returns the byte to flip and sets *mask to the bit in it: the opcode's
 * low bit after any REX and 0F escape (amd64), or the given bit (arm64). */
static size_t flip_at(const uint8_t *code, const char *hex, int bit,
		      uint8_t *mask)
{
	size_t len = strlen(hex) / 2, i, op = 0;
	uint8_t buf[16] = {0};

	assert_true(len > 0 && len <= sizeof(buf));
	for (i = 0; i < len; i++)
		buf[bit < 0 ? i : len - 1 - i] =
			(uint8_t)(hexval(hex[2 * i]) << 4 |
				  hexval(hex[2 * i + 1]));
	for (i = 0; i < len; i++)
		assert_int_equal(code[i], buf[i]);
	if (bit >= 0) {
		assert_true(len == 4 && bit < 32);
		*mask = (uint8_t)(1u << (bit % 8));
		return (size_t)bit / 8;
	}
	if ((buf[op] & 0xf0) == 0x40)
		op++;
	if (op < len && buf[op] == 0x0f)
		op++;
	assert_true(op < len);
	*mask = 1;
	return op;
}

/* Copy path to a temporary file with one bit of the instruction at addr
 * flipped (flip_at), checking first that the bytes there are hex's. The
 * file is read whole: a copy a byte at a time (getc, ftell) took 4 min
 * of the 120 copies under ASan. */
static void corrupt_copy(const char *path, const struct gobin *b,
			 unsigned long long addr, const char *hex, int bit,
			 char *tmp)
{
	struct elffile_sect text;
	size_t op, off, len;
	uint8_t mask, *buf;
	FILE *in, *out;
	long end;
	int fd;

	assert_int_equal(elffile__section(b->elf, ".text", &text), 0);
	assert_true(addr >= text.addr &&
		    addr + strlen(hex) / 2 <= text.addr + text.size);
	off = text.offset + (addr - text.addr);
	op = flip_at(text.data + (addr - text.addr), hex, bit, &mask);
	in = fopen(path, "r");
	assert_non_null(in);
	assert_int_equal(fseek(in, 0, SEEK_END), 0);
	end = ftell(in);
	assert_true(end > 0 && (size_t)end > off + op);
	len = (size_t)end;
	rewind(in);
	buf = malloc(len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, len, in), len);
	fclose(in);
	buf[off + op] ^= mask;
	strcpy(tmp, "/tmp/gh-nearmiss-XXXXXX");
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	assert_non_null(out);
	assert_int_equal(fwrite(buf, 1, len, out), len);
	assert_int_equal(fclose(out), 0);
	free(buf);
}

static void test_near_miss(void **state)
{
	char path[2048], file[4096], line[512], sym[256], hex[64], tmp[64];
	struct gobin *s, *bad;
	unsigned long long addr;
	size_t nv, i, k;
	int cases = 0, n, bit;
	uint64_t got;
	char **vers;
	FILE *f;

	(void)state;
	nv = fixture_versions("stripped", "stripped.sh", &vers);
	for (i = 0; i < nv; i++)
		for (k = 0; k < NKINDS; k++) {
			snprintf(path, sizeof(path), "%s/stripped/%s/%s",
				 fixture_dir(), vers[i], kinds[k]);
			snprintf(file, sizeof(file), "%s.insns", path);
			f = fopen(file, "r");
			assert_non_null(f);
			s = open_bin(path);
			while (fgets(line, sizeof(line), f)) {
				bit = -1;
				n = sscanf(line, "%255s %llx %63s %d", sym,
					   &addr, hex, &bit);
				assert_true(n == 3 || n == 4);
				corrupt_copy(path, s, addr, hex, bit, tmp);
				bad = open_bin(tmp);
				if (gobin__symbol(bad, sym, &got) == 0)
					fail_msg("%s: %s still found (%#llx) "
						 "with its pattern broken at "
						 "%#llx",
						 path, sym,
						 (unsigned long long)got, addr);
				assert_true(strlen(gobin__why(bad, sym)) > 0);
				/* The others are still right. */
				snprintf(file, sizeof(file), "%s.twin.nm",
					 path);
				check_vars(bad, file, tmp, sym);
				if (i == 0 && k % 2 == 0)
					print_message("near miss (%s): %s\n",
						      kinds[k],
						      gobin__why(bad, sym));
				cases++;
				gobin__free(bad);
				unlink(tmp);
			}
			fclose(f);
			gobin__free(s);
		}
	assert_int_equal(cases, 3 * (int)NKINDS * (int)nv);
	fixture_versions_free(vers, nv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recovered),
		cmocka_unit_test(test_near_miss),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
