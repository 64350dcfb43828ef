/* test_pclntab.c - user/gobin/pcln.c and user/gobin/gobin.c against the Go
 * toolchain's own answers for real binaries of every supported release,
 * plain and PIE (tests/unit/fixtures/gobins.sh builds them):
 *
 * - the binary's own runtime (gobin_prog -symbolize): FuncForPC(pc).Name()
 *   and CallersFrames([]uintptr{pc}).Next() - function, file, line, entry,
 *   start line, inlined - for every function entry, entry - 1 and every
 *   call site and return PC in main.*; and, from go1.23, the inline chain
 *   CallersFrames spells out for a PC, which is what
 *   runtime_expandFinalInlineFrame appends;
 * - go tool addr2line on the same PCs: it reports the file:line at the PC
 *   itself (innermost inlined position) but the name of the physical
 *   function containing it (debug/gosym ignores the inline tree). So it
 *   is compared with our frame looked up at that PC (a return PC of pc+1)
 *   and the name of the function at that frame's entry.
 *
 * Names: from go1.21 the runtime prints generic shapes as "[...]"
 * (funcNameForPrint); our raw symbol names are compared after the same
 * rewrite. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"

#include "gobin/gobin.h"

#define SHOW_MISMATCHES 12
#define MAX_LINE	8192
#define MAX_EXPAND	64

struct counts {
	size_t checked, mismatched;
};

static FILE *open_ref(const char *ver, const char *kind, const char *ext)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/gobin/%s/%s%s", fixture_dir(), ver,
		 kind, ext);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: missing: run tests/unit/fixtures/gobins.sh",
			 path);
	return f;
}

/* runtime.funcNameForPrint: "pkg.f[shape...]" -> "pkg.f[...]". */
static const char *print_name(const char *raw, int minor, char *buf,
			      size_t bufsz)
{
	const char *open, *close;

	if (minor < 21 || !(open = strchr(raw, '[')))
		return raw;
	close = strrchr(raw, ']');
	if (!close || close <= open)
		return raw;
	snprintf(buf, bufsz, "%.*s[...]%s", (int)(open - raw), raw, close + 1);
	return buf;
}

static void mismatch(struct counts *c, const char *what, const char *ver,
		     const char *kind, const char *line, const char *got)
{
	if (c->mismatched++ < SHOW_MISMATCHES)
		print_message("%s/%s %s: want [%s] got [%s]\n", ver, kind, what,
			      line, got);
}

/* Split a tab-separated line in place into at most n fields. */
static size_t split(char *s, char **f, size_t n)
{
	size_t i = 0;

	s[strcspn(s, "\n")] = '\0';
	while (i < n) {
		f[i++] = s;
		s = strchr(s, '\t');
		if (!s)
			break;
		*s++ = '\0';
	}
	return i;
}

/* One line of <kind>.frames against our FuncForPC, frame and
 * expansion. */
static void check_frames_line(struct pcln *p, int minor, char *line,
			      const char *ver, const char *kind,
			      struct counts *c)
{
	char *f[9], buf[MAX_LINE], buf2[MAX_LINE], got[MAX_LINE];
	uint64_t pc, exp[1 + MAX_EXPAND];
	struct goframe fr;
	const char *name;
	size_t n, i;
	int found;

	if (split(line, f, 9) < 8)
		fail_msg("%s/%s.frames: malformed line", ver, kind);
	pc = strtoull(f[0], NULL, 16);

	name = pcln__funcname_for_pc(p, pc);
	name = name ? print_name(name, minor, buf, sizeof(buf)) : "-";
	c->checked++;
	if (strcmp(name, f[1]) != 0)
		mismatch(c, "FuncForPC", ver, kind, f[1], name);

	found = pcln__frame(p, pc, &fr);
	c->checked++;
	if (!found) {
		if (f[2][0] != '\0')
			mismatch(c, "frame", ver, kind, f[2], "none");
		return;
	}
	snprintf(got, sizeof(got),
		 "%s\t%s\t%" PRId64 "\t%#" PRIx64 "\t%" PRId64 "\t%s",
		 print_name(fr.function, minor, buf2, sizeof(buf2)), fr.file,
		 fr.line, fr.entry, fr.start_line,
		 fr.inlined ? "true" : "false");
	snprintf(buf, sizeof(buf), "%s\t%s\t%s\t%s\t%s\t%s", f[2], f[3], f[4],
		 f[5], f[6], f[7]);
	if (strcmp(got, buf) != 0)
		mismatch(c, "CallersFrames", ver, kind, buf, got);

	/* The inline chain: CallersFrames spells it out from go1.23 (when
	 * the next PC given is not the implied caller); an entry PC is never
	 * a return PC. */
	if (minor < 23 || pc == fr.entry || !f[8])
		return;
	n = pcln__expand_final_inline(p, &pc, 1, exp);
	got[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got),
			 "%s%#" PRIx64, i ? "," : "", exp[i]);
	c->checked++;
	if (strcmp(got, f[8]) != 0)
		mismatch(c, "expandFinalInlineFrame", ver, kind, f[8], got);
}

/* Text symbols from go tool nm, sorted by address: the names of the
 * physical functions, for addr2line's function column. */
struct nm_sym {
	uint64_t addr;
	char *name;
};

struct nm_table {
	struct nm_sym *s;
	size_t n;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct nm_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void load_nm(const char *ver, const char *kind, struct nm_table *t)
{
	FILE *f = open_ref(ver, kind, ".nm");
	char line[MAX_LINE], type, *name;
	unsigned long long addr;
	int off;

	t->s = NULL;
	t->n = 0;
	while (fgets(line, sizeof(line), f)) {
		/* "  addr T name", where name may hold spaces. */
		if (sscanf(line, " %llx %c %n", &addr, &type, &off) < 2 ||
		    (type != 'T' && type != 't'))
			continue;
		name = line + off;
		name[strcspn(name, "\n")] = '\0';
		t->s = realloc(t->s, (t->n + 1) * sizeof(*t->s));
		assert_non_null(t->s);
		t->s[t->n].addr = addr;
		t->s[t->n++].name = strdup(name);
	}
	fclose(f);
	qsort(t->s, t->n, sizeof(*t->s), cmp_sym);
}

static void free_nm(struct nm_table *t)
{
	while (t->n--)
		free(t->s[t->n].name);
	free(t->s);
}

/* a2l with each middle dot (U+00B7) written as '.', as ELF names are. */
static const char *dots(const char *a2l, char *buf, size_t bufsz)
{
	size_t i = 0;

	for (; *a2l && i + 1 < bufsz; a2l++) {
		if ((unsigned char)a2l[0] == 0xc2 &&
		    (unsigned char)a2l[1] == 0xb7) {
			buf[i++] = '.';
			a2l++;
		} else {
			buf[i++] = *a2l;
		}
	}
	buf[i] = '\0';
	return buf;
}

/* nm and addr2line spell some names differently: nm keeps the ".abi0"
 * suffix of assembly functions and writes '.' for the middle dot, and
 * addr2line may print generic or array brackets as "[...]". Compare with
 * those rewritten. */
static bool same_symbol(const char *nm, const char *a2l)
{
	char x[MAX_LINE], y[MAX_LINE], z[MAX_LINE];
	size_t n = strlen(nm);

	if (strcmp(nm, a2l) == 0)
		return true;
	a2l = dots(a2l, z, sizeof(z));
	if (n > 5 && strcmp(nm + n - 5, ".abi0") == 0) {
		snprintf(x, sizeof(x), "%.*s", (int)(n - 5), nm);
		if (strcmp(x, a2l) == 0)
			return true;
		nm = x;
	}
	return strcmp(print_name(nm, 21, y, sizeof(y)), a2l) == 0;
}

/* Whether nm names a text symbol name at addr. */
static bool nm_has(const struct nm_table *t, uint64_t addr, const char *name)
{
	size_t lo = 0, hi = t->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->s[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->n && t->s[lo].addr == addr; lo++)
		if (same_symbol(t->s[lo].name, name))
			return true;
	return false;
}

/* One PC of <kind>.pcs against go tool addr2line's two lines. */
static void check_a2l(struct pcln *p, const struct nm_table *nm, uint64_t pc,
		      char *name, char *pos, const char *ver, const char *kind,
		      struct counts *c, size_t *skipped)
{
	struct goframe at, fr;
	char got[MAX_LINE];

	name[strcspn(name, "\n")] = '\0';
	pos[strcspn(pos, "\n")] = '\0';
	c->checked++;
	if (!pcln__frame(p, pc, &at)) {
		if (strcmp(name, "?") != 0)
			mismatch(c, "addr2line", ver, kind, name, "none");
		return;
	}
	/* Our frame at pc itself: pc+1 as a return PC, unless pc is the
	 * entry (no decrement then) or the last byte of its function. */
	fr = at;
	if (pc != at.entry) {
		if (!pcln__frame(p, pc + 1, &fr) || fr.entry != at.entry) {
			(*skipped)++;
			c->checked--;
			return;
		}
	}
	snprintf(got, sizeof(got), "%s:%" PRId64, fr.file, fr.line);
	if (!nm_has(nm, fr.entry, name)) {
		snprintf(got, sizeof(got), "entry %#" PRIx64, fr.entry);
		mismatch(c, "addr2line function", ver, kind, name, got);
	} else if (strcmp(got, pos) != 0 &&
		   !(strcmp(got, "?:0") == 0 && strcmp(pos, ":-1") == 0))
		/* (go1.24+ addr2line prints ":-1" where a PC has no line,
		 * where the runtime's funcline1 gives "?", 0.) */
		mismatch(c, "addr2line file:line", ver, kind, pos, got);
}

/* Whether addr2line named any function at all (then rewind it). */
static bool a2l_usable(FILE *a2l)
{
	char name[MAX_LINE], pos[MAX_LINE];
	bool any = false;

	while (!any && fgets(name, sizeof(name), a2l) &&
	       fgets(pos, sizeof(pos), a2l))
		any = strcmp(name, "?\n") != 0;
	rewind(a2l);
	return any;
}

static void check_binary(const char *ver, const char *kind, size_t *total)
{
	char path[4096], line[MAX_LINE], name[MAX_LINE], pos[MAX_LINE];
	struct counts c = {0};
	struct nm_table nm;
	struct gobin *b;
	struct gh_err err;
	FILE *pcs, *frames, *a2l;
	size_t skipped = 0;

	snprintf(path, sizeof(path), "%s/gobin/%s/%s", fixture_dir(), ver,
		 kind);
	if (gobin__open(path, NULL, &b, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	frames = open_ref(ver, kind, ".frames");
	while (fgets(line, MAX_LINE, frames))
		check_frames_line(b->pcln, b->layout->minor, line, ver, kind,
				  &c);
	fclose(frames);
	load_nm(ver, kind, &nm);
	pcs = open_ref(ver, kind, ".pcs");
	a2l = open_ref(ver, kind, ".a2l");
	if (!a2l_usable(a2l)) {
		/* go1.18-1.19's addr2line does not find the pclntab of a
		 * PIE and answers "?" for everything; the runtime's own
		 * answers above still cover the binary. */
		print_message("%s/%s: go tool addr2line knows no function: "
			      "not compared\n",
			      ver, kind);
		fseek(pcs, 0, SEEK_END);
	}
	while (fgets(line, MAX_LINE, pcs)) {
		if (!fgets(name, MAX_LINE, a2l) || !fgets(pos, MAX_LINE, a2l))
			fail_msg("%s.a2l: shorter than %s.pcs", path, path);
		check_a2l(b->pcln, &nm, strtoull(line, NULL, 16), name, pos,
			  ver, kind, &c, &skipped);
	}
	fclose(pcs);
	fclose(a2l);
	free_nm(&nm);
	gobin__free(b);
	print_message("%s/%s: %zu checks, %zu mismatches (%zu last-byte PCs "
		      "skipped for addr2line)\n",
		      ver, kind, c.checked, c.mismatched, skipped);
	if (c.mismatched)
		fail_msg("%s/%s: %zu of %zu symbolizations differ from Go's",
			 ver, kind, c.mismatched, c.checked);
	*total += c.checked;
}

static void test_every_release(void **state)
{
	static const char *const kinds[] = {"exe", "pie"};
	size_t nv, i, k, total = 0;
	char **v;

	(void)state;
	nv = fixture_versions("gobin", "gobins.sh", &v);
	assert_true(nv >= 10);
	for (i = 0; i < nv; i++)
		for (k = 0; k < 2; k++)
			check_binary(v[i], kinds[k], &total);
	fixture_versions_free(v, nv);
	assert_true(total > 0);
}

/* Damaged tables are refused, never read out of bounds. */
static void test_bad_tables(void **state)
{
	struct gh_err err;
	struct pcln *p;
	const struct layout *L = layout__for("go1.22.1", &err);
	uint8_t hdr[72] = {0xf1, 0xff, 0xff, 0xff, 0, 0, 1, 8};
	struct pcln_src src = {.pcln = hdr,
			       .pcln_size = sizeof(hdr),
			       .text_start = 0x401000,
			       .layout = L};

	(void)state;
	assert_non_null(L);
	/* nfunc 1, offsets past the end of the bytes. */
	hdr[8] = 1;
	hdr[32] = 0xff;
	assert_int_equal(pcln__open(&src, &p, &err), -1);
	assert_int_equal(err.code, GH_E_FAILED);
	/* Wrong magic for the version. */
	hdr[0] = 0xf0;
	assert_int_equal(pcln__open(&src, &p, &err), -1);
	assert_int_equal(err.code, GH_E_UNSUPPORTED);
	/* Too short for a header. */
	src.pcln_size = 40;
	assert_int_equal(pcln__open(&src, &p, &err), -1);
	assert_int_equal(err.code, GH_E_NOTGO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_release),
		cmocka_unit_test(test_bad_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
