/* test_arm64.c - reading linux/arm64 Go binaries offline (ELF, buildinfo,
 * symbols, pclntab with minLC 4) for every supported release, executable
 * and PIE (tests/unit/fixtures/arm64.sh cross-compiles them):
 *
 * - symbolized PCs agree with go tool addr2line at every function entry
 *   and every call site and return PC in main.*, inlined sites included
 *   (addr2line gives the innermost file:line and the physical function's
 *   name);
 * - the runtime variables agree with go tool nm;
 * - stripped arm64 builds open, symbolize, and recover every variable
 *   but amd64's math.useFMA from their code;
 * - gobin__open (profiling) refuses them on an x86-64 host, opens them on
 *   an arm64 one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gobin/gobin.h"

static const char *const versions[] = {"1.18", "1.19", "1.20", "1.21", "1.22",
				       "1.23", "1.24", "1.25", "1.26", "1.27"};
static const char *const kinds[] = {"exe", "pie"};

static void fixture(char *buf, size_t n, const char *ver, const char *kind,
		    const char *ext)
{
	const char *dir = getenv("GH_FIXTURES");

	if (!dir)
		fail_msg("GH_FIXTURES is not set: run tests/unit/run.sh");
	snprintf(buf, n, "%s/arm64/%s/%s%s", dir, ver, kind, ext);
}

static struct gobin *open_bin(const char *path)
{
	struct gh_err err = {0};
	struct gobin *b;

	if (gobin__open_offline(path, NULL, &b, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	return b;
}

/* go tool nm's text symbols, sorted by address. */
struct syms {
	unsigned long long *addr;
	char **name;
	size_t n;
};

static void load_syms(const char *nm, struct syms *s)
{
	char line[8192], sym[8192], type[8];
	unsigned long long a;
	FILE *f = fopen(nm, "r");

	memset(s, 0, sizeof(*s));
	if (!f)
		fail_msg("%s: missing: run tests/unit/fixtures/arm64.sh", nm);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %7s %8191[^\n]", &a, type, sym) != 3 ||
		    (strcmp(type, "T") && strcmp(type, "t")))
			continue;
		s->addr = realloc(s->addr, (s->n + 1) * sizeof(*s->addr));
		s->name = realloc(s->name, (s->n + 1) * sizeof(*s->name));
		assert_true(s->addr && s->name);
		s->addr[s->n] = a;
		s->name[s->n++] = strdup(sym);
	}
	fclose(f);
}

/* "pkg.f[shape...]" -> "pkg.f[...]", as go tool addr2line prints
 * generic and array-typed names from some releases on, and its middle
 * dots (U+00B7) as the '.' of ELF names. */
static void elide_brackets(const char *s, char *out, size_t n)
{
	char in[8192];
	const char *open, *close;
	size_t i = 0;

	for (; *s && i + 1 < sizeof(in); s++) {
		if ((unsigned char)s[0] == 0xc2 && (unsigned char)s[1] == 0xb7)
			in[i++] = '.', s++;
		else
			in[i++] = *s;
	}
	in[i] = '\0';
	open = strchr(in, '[');
	close = strrchr(in, ']');

	if (!open || !close || close < open)
		snprintf(out, n, "%s", in);
	else
		snprintf(out, n, "%.*s[...]%s", (int)(open - in), in,
			 close + 1);
}

/* Whether nm has want (or its assembly ABI0 symbol want.abi0, which
 * addr2line names without the suffix) at exactly addr. */
static bool sym_at(const struct syms *s, unsigned long long addr,
		   const char *want)
{
	char a[8192], b[8192];
	size_t i, n;

	elide_brackets(want, b, sizeof(b));
	n = strlen(b);
	for (i = 0; i < s->n; i++) {
		if (s->addr[i] != addr)
			continue;
		elide_brackets(s->name[i], a, sizeof(a));
		if (strncmp(a, b, n) == 0 && (!a[n] || !strcmp(a + n, ".abi0")))
			return true;
	}
	return false;
}

static void free_syms(struct syms *s)
{
	while (s->n--)
		free(s->name[s->n]);
	free(s->name);
	free(s->addr);
}

/* Whether go tool addr2line named any function in a2l. */
static bool a2l_usable(const char *a2l)
{
	char line[8192];
	FILE *f = fopen(a2l, "r");
	bool any = false;
	int n = 0;

	if (!f)
		fail_msg("%s: missing: run tests/unit/fixtures/arm64.sh", a2l);
	while (!any && fgets(line, sizeof(line), f))
		any = n++ % 2 == 0 && strcmp(line, "?\n") != 0;
	fclose(f);
	return any;
}

/* Compare every PC of .pcs with .a2l; returns how many were inlined. */
static size_t check_a2l(struct gobin *b, const char *ver, const char *kind,
			size_t *checked)
{
	char pcs[4096], a2l[4096], l1[8192], name[8192], fl[8192], got[8192];
	struct goframe fr;
	struct syms syms;
	unsigned long long pc;
	size_t inl = 0;
	FILE *fp, *fa;

	fixture(pcs, sizeof(pcs), ver, kind, ".pcs");
	fixture(a2l, sizeof(a2l), ver, kind, ".a2l");
	if (!a2l_usable(a2l)) {
		/* go1.18-1.19's addr2line answers "?" for every PC of an
		 * arm64 PIE: nothing to compare with there. */
		print_message("arm64: %s/%s: go tool addr2line knows no PC; "
			      "skipped\n",
			      ver, kind);
		return 1;
	}
	fixture(l1, sizeof(l1), ver, kind, ".nm");
	load_syms(l1, &syms);
	fp = fopen(pcs, "r");
	fa = fopen(a2l, "r");
	if (!fp || !fa)
		fail_msg("%s: missing: run tests/unit/fixtures/arm64.sh", pcs);
	while (fgets(l1, sizeof(l1), fp)) {
		if (sscanf(l1, "%llx", &pc) != 1 ||
		    !fgets(name, sizeof(name), fa) ||
		    !fgets(fl, sizeof(fl), fa))
			fail_msg("%s: malformed or short", a2l);
		name[strcspn(name, "\n")] = fl[strcspn(fl, "\n")] = '\0';
		/* A return PC of pc + 1 is looked up at pc. */
		if (!pcln__frame(b->pcln, pc + 1, &fr)) {
			snprintf(got, sizeof(got), "?");
			/* or an empty marker (go:textfipsend), which has
			 * no tables: gosym says ":-1" */
			if (strcmp(name, "?") != 0 && strcmp(fl, ":-1") != 0)
				fail_msg(
					"%s/%s %#llx: want %s, got no function",
					ver, kind, pc, name);
			continue;
		}
		snprintf(got, sizeof(got), "%s:%lld", fr.file,
			 (long long)fr.line);
		/* The function is the one go tool nm has at our entry. */
		/* A function without line tables (go:textfipsstart): gosym
		 * says ":-1", the runtime "?" and 0. */
		if (strcmp(fl, ":-1") == 0)
			snprintf(fl, sizeof(fl), "?:0");
		if (!sym_at(&syms, fr.entry, name) || strcmp(got, fl))
			fail_msg("%s/%s %#llx: want %s %s, got entry %#llx %s",
				 ver, kind, pc, name, fl,
				 (unsigned long long)fr.entry, got);
		inl += fr.inlined;
		(*checked)++;
	}
	fclose(fp);
	fclose(fa);
	free_syms(&syms);
	return inl;
}

static void test_symbolize_and_vars(void **state)
{
	char path[4096], nm[4096], line[4096], sym[4096], type[8];
	size_t i, k, checked = 0, inl, vars = 0;
	unsigned long long want;
	struct gobin *b;
	uint64_t got;
	FILE *f;
	int v;

	(void)state;
	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		for (k = 0; k < 2; k++) {
			fixture(path, sizeof(path), versions[i], kinds[k], "");
			fixture(nm, sizeof(nm), versions[i], kinds[k], ".nm");
			b = open_bin(path);
			assert_false(b->stripped);
			inl = check_a2l(b, versions[i], kinds[k], &checked);
			/* gobin_prog has inlined calls in main.* */
			if (inl == 0)
				fail_msg("%s: no inlined call site checked",
					 path);
			f = fopen(nm, "r");
			assert_non_null(f);
			while (fgets(line, sizeof(line), f)) {
				if (sscanf(line, "%llx %7s %4095s", &want, type,
					   sym) != 3)
					continue;
				for (v = 0; v < GH_SVAR_N; v++) {
					if (strcmp(sym, svar_name((enum svar)v,
								  b->layout)))
						continue;
					assert_int_equal(
						gobin__symbol(b, sym, &got), 0);
					assert_int_equal(got, want);
					vars++;
				}
			}
			fclose(f);
			gobin__free(b);
		}
	assert_true(vars >= 4 * 20);
	print_message("arm64: %zu PCs equal go tool addr2line, %zu variables "
		      "equal go tool nm\n",
		      checked, vars);
}

static void test_stripped_opened(void **state)
{
	struct gobin *b, *t;
	struct gh_err err = {0};
	char path[4096], twin[4096];
	struct goframe fs, ft;
	uint64_t got, pc;
	size_t i, k;
	int v;

	(void)state;
	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		for (k = 0; k < 2; k++) {
			fixture(twin, sizeof(twin), versions[i], kinds[k], "");
			fixture(path, sizeof(path), versions[i], kinds[k],
				"-s");
			b = open_bin(path);
			t = open_bin(twin);
			assert_true(b->stripped);
			/* Recovered from the code (test_stripped checks
			 * the addresses against twins); math.useFMA is
			 * amd64's only. */
			for (v = 0; v < GH_SVAR_N; v++) {
				const char *n =
					svar_name((enum svar)v, b->layout);

				if (v != GH_SVAR_USEFMA) {
					if (gobin__symbol(b, n, &got) < 0)
						fail_msg("%s: %s: %s", path, n,
							 gobin__why(b, n));
					continue;
				}
				assert_int_equal(gobin__symbol(b, n, &got), -1);
				assert_non_null(
					strstr(gobin__why(b, n), "amd64 only"));
			}
			/* Symbolization works without the symbol table. */
			assert_int_equal(pcln__func_by_name(b->pcln,
							    "main.main", &pc,
							    &got),
					 0);
			assert_int_equal(pcln__frame(b->pcln, pc + 4, &fs), 1);
			assert_int_equal(pcln__frame(t->pcln, pc + 4, &ft), 1);
			assert_string_equal(fs.function, ft.function);
			assert_string_equal(fs.file, ft.file);
			assert_int_equal(fs.line, ft.line);
			gobin__free(t);
			gobin__free(b);
			/* Profiling needs the host's architecture. */
#if defined(__aarch64__)
			assert_int_equal(gobin__open(path, NULL, &b, &err), 0);
			gobin__free(b);
#else
			assert_int_equal(gobin__open(path, NULL, &b, &err), -1);
			assert_int_equal(err.code, GH_E_UNSUPPORTED);
			assert_non_null(strstr(err.msg, "arm64"));
#endif
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbolize_and_vars),
		cmocka_unit_test(test_stripped_opened),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
