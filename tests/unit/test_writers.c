/* test_writers.c - the three writers checked with readers we did not write:
 * the pprof file parsed back by github.com/google/pprof/profile and read by
 * `go tool pprof -raw`, the top table compared line for line with
 * `go tool pprof -top` on that file, the JSON decoded by encoding/json into
 * Huatuo's snapshot types and compared with the entries writers_ref
 * computes from the pprof file (tests/unit/fixtures/writers.sh builds the
 * tools), and output errors on /dev/full; the renderers fed as a build
 * feeds them (tables growing, a restart), written twice, and held to
 * pprof and writers_ref on that profile and on random ones. The profile is
 * built by hand: inlined frames, recursion, names with spaces, braces,
 * quotes, control bytes, non-ASCII and invalid UTF-8, unsymbolized
 * locations, mappings with and without build IDs, zero samples and
 * samples without a bytes label. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "goheap.h"
#include "oracle.h"
#include "write/render.h"

#define LINES(...)  ((struct gh_line[]){__VA_ARGS__})
#define NLINES(...) (sizeof(LINES(__VA_ARGS__)) / sizeof(struct gh_line))
#define LOC(addr, map, ...)                                                    \
	{                                                                      \
		addr, map, NLINES(__VA_ARGS__), LINES(__VA_ARGS__)             \
	}
#define LOC0(addr, map)                                                        \
	{                                                                      \
		addr, map, 0, NULL                                             \
	}
#define LOCS(...)  ((uint32_t[]){__VA_ARGS__})
#define NLOCS(...) (uint32_t)(sizeof(LOCS(__VA_ARGS__)) / sizeof(uint32_t))
#define SAMPLE(v, label, has, ...)                                             \
	{                                                                      \
		NLOCS(__VA_ARGS__), LOCS(__VA_ARGS__), {v}, label, has, false  \
	}
#define V4(a, b, c, d) a, b, c, d

enum {
	F_LEAF,
	F_INLINED,
	F_CALLER,
	F_MAIN,
	F_RTMAIN,
	F_WEIRD,
	F_MALLOC,
	F_RECUR,
	F_BAD,
	F_MAPS,
	NFUNCS
};

static struct gh_function functions[NFUNCS] = {
	[F_LEAF] = {"main.leaf", "/src/app/main.go", 10},
	[F_INLINED] = {"main.inlined", "/src/app/util.go", 20},
	[F_CALLER] = {"main.caller", "/src/app/main.go", 30},
	[F_MAIN] = {"main.main", "/src/app/main.go", 40},
	[F_RTMAIN] = {"runtime.main", "/usr/local/go/src/runtime/proc.go", 0},
	[F_WEIRD] = {"main.mk[go.shape.struct { main.x int; \"q\\\" }]\t\x01"
		     "\xc3\xa9",
		     "/src/app/w\xc3\xa9ird \"dir\"/x.go", 50},
	[F_MALLOC] = {"runtime.mallocgc", "/usr/local/go/src/runtime/malloc.go",
		      900},
	[F_RECUR] = {"main.recur", "/src/app/main.go", 60},
	/* a stray byte, a cut 3-byte sequence, an encoded surrogate */
	[F_BAD] = {"main.bad\xff\xe2\x82x\xed\xa0\x80name", "", 0},
	[F_MAPS] = {"internal/runtime/maps.newTable",
		    "/usr/local/go/src/internal/runtime/maps/table.go", 70},
};

static struct gh_mapping mappings[] = {
	{0x400000, 0x500000, 0, "/opt/app/bin/app", "abcdef0123", true},
	{0x7f0000000000, 0x7f0000100000, 0x1000, "/usr/lib/libc.so.6", "",
	 false},
};

static struct gh_location locations[] = {
	/* 0 */ LOC(0x401000, 1, {F_LEAF, 12}),
	/* 1 */ LOC(0x402000, 1, {F_INLINED, 22}, {F_CALLER, 33}),
	/* 2 */ LOC(0x403000, 1, {F_MAIN, 45}),
	/* 3 */ LOC(0x404000, 1, {F_RTMAIN, 250}),
	/* 4 */ LOC(0x405000, 1, {F_WEIRD, 55}),
	/* 5 */ LOC0(0x7f0000001234, 2),
	/* 6 */ LOC(0x406000, 1, {F_RECUR, 61}),
	/* 7 */ LOC(0x406100, 1, {F_RECUR, 63}),
	/* 8 */ LOC(0x407000, 0, {F_MALLOC, 1000}),
	/* 9 */ LOC0(0x408000, 0),
	/* 10 */ LOC(0x409000, 1, {F_INLINED, 24}),
	/* 11 */ LOC(0x40a000, 1, {F_BAD, 0}),
	/* 12 */ LOC(0x40b000, 1, {F_MAPS, 77}),
};

static struct gh_sample samples[] = {
	SAMPLE(V4(10, 10240, 4, 4096), 1024, true, 0, 1, 2, 3),
	SAMPLE(V4(3, 3000000, 2, 2000000), 1000000, true, 4, 2, 3),
	SAMPLE(V4(100, 6400, 50, 3200), 64, true, 5, 1, 2, 3),
	SAMPLE(V4(5, 240, 5, 240), 48, true, 6, 7, 6, 2, 3),
	SAMPLE(V4(1, 128, 0, 0), 128, true, 8, 0, 1, 2, 3),
	SAMPLE(V4(0, 0, 0, 0), 0, false, 2, 3),
	SAMPLE(V4(2, 2048, 1, 1024), 1024, true, 0, 1, 2, 3),
	SAMPLE(V4(1, 16, 1, 16), 16, true, 9),
	{0, NULL, {1, 8, 1, 8}, 0, false, false},
	SAMPLE(V4(1, 512, 1, 512), 512, true, 10, 2, 3),
	SAMPLE(V4(7, 700, 7, 700), 100, true, 12, 11, 3),
};

static struct gh_profile profile = {
	.pid = 4242,
	.go_version = "go1.22.12",
	.runtime_file = "/opt/app/lib\"go\".so",
	.comm = "app \"1\"",
	.exe = "/opt/app/bin",
	.build_id = "abcd",
	.cgroup = "/kubepods.slice/pod\xc3\xa9 1",
	.container_id = "c\"t \xc3\xa9",
	.container_runtime = "cri-o",
	.pod_uid = "p-1",
	.period = 524288,
	.time_ns = 1700000000123456789,
	.duration_ns = 30000000017,
	.duration_ms = 2.3,
	.status = GH_SNAP_PARTIAL,
	.status_reason = "bucket 7 torn \"twice\"",
	.backend = "perf",
	.backend_notes = "iter: no \"BTF\"",
	.nbuckets = 11,
	.nbuckets_inuse = 9,
	.samples = samples,
	.nsamples = sizeof(samples) / sizeof(samples[0]),
	.locations = locations,
	.nlocations = sizeof(locations) / sizeof(locations[0]),
	.functions = functions,
	.nfunctions = NFUNCS,
	.mappings = mappings,
	.nmappings = sizeof(mappings) / sizeof(mappings[0]),
};

static const char *const value_names[GH_NVALUES] = {
	"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"};

/* ---- helpers ---- */

/* Write p with one of the writers into a new temporary file. */
enum writer { W_PPROF, W_JSON, W_TOP, W_JSONL };

/* The profile written as one of the three formats. */
static int write_as(FILE *f, const struct gh_profile *prof, enum writer w,
		    enum gh_value ix, size_t top_n, struct gh_err *err)
{
	static const enum gh_format formats[] = {
		[W_PPROF] = GH_FORMAT_PPROF,
		[W_JSON] = GH_FORMAT_JSON,
		[W_TOP] = GH_FORMAT_TOP,
		[W_JSONL] = GH_FORMAT_JSONL,
	};
	struct gh_write_opts o = {.sz = sizeof(struct gh_write_opts),
				  .format = formats[w],
				  .index = ix,
				  .top_n = top_n};

	return gh_profile__write(prof, f, &o, err);
}

/* prof as writer w prints it, in memory. */
static struct text write_text(const struct gh_profile *prof, enum writer w,
			      enum gh_value ix, size_t top_n)
{
	struct gh_err err = {0};
	struct text t = {0};
	FILE *f = open_memstream(&t.s, &t.len);

	assert_non_null(f);
	if (write_as(f, prof, w, ix, top_n, &err))
		fail_msg("writer %d failed: %s", w, err.msg);
	assert_int_equal(fclose(f), 0);
	return t;
}

static void write_to(char *path, const struct gh_profile *prof, enum writer w,
		     enum gh_value ix, size_t top_n)
{
	save(path, write_text(prof, w, ix, top_n));
}

/* ---- pprof ---- */

/* The dump writers_ref prints, derived from the input profile: what the
 * file must hold for google/pprof to read the profile back unchanged,
 * written for sample index ix: alloc_space is the allocs profile's
 * default sample type, no other index names one. */
static char *expected_pprof_dump(enum gh_value ix)
{
	const char *dflt = ix == GH_ALLOC_SPACE ? "alloc_space" : "";
	char *buf = NULL;
	size_t len = 0, i, j;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fprintf(f,
		"sample_types alloc_objects/count alloc_space/bytes "
		"inuse_objects/count inuse_space/bytes\n"
		"period_type space/bytes\nperiod %" PRId64
		"\ntime_nanos %" PRId64 "\nduration_nanos %" PRId64
		"\ndefault_sample_type %zu:%s\n",
		profile.period, profile.time_ns, profile.duration_ns,
		strlen(dflt), dflt);
	for (i = 0; i < profile.nmappings; i++) {
		const struct gh_mapping *m = &mappings[i];

		fprintf(f,
			"mapping %zu 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64
			" %zu:%s %zu:%s %s\n",
			i + 1, m->start, m->limit, m->offset, strlen(m->file),
			m->file, strlen(m->build_id), m->build_id,
			m->has_functions ? "true" : "false");
	}
	for (i = 0; i < profile.nlocations; i++) {
		const struct gh_location *l = &locations[i];

		fprintf(f, "location %zu %u 0x%" PRIx64, i + 1, l->mapping,
			l->address);
		for (j = 0; j < l->nlines; j++)
			fprintf(f, " %u:%" PRId64, l->lines[j].function + 1,
				l->lines[j].line);
		fputc('\n', f);
	}
	for (i = 0; i < profile.nfunctions; i++) {
		const struct gh_function *fn = &functions[i];

		fprintf(f, "function %zu %zu:%s %zu:%s %zu:%s %" PRId64 "\n",
			i + 1, strlen(fn->name), fn->name, strlen(fn->name),
			fn->name, strlen(fn->filename), fn->filename,
			fn->start_line);
	}
	for (i = 0; i < profile.nsamples; i++) {
		const struct gh_sample *s = &samples[i];

		fprintf(f,
			"sample [%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
			"]",
			s->value[0], s->value[1], s->value[2], s->value[3]);
		for (j = 0; j < s->nlocs; j++)
			fprintf(f, " %u", s->locs[j] + 1);
		if (s->has_bytes_label)
			fprintf(f, " bytes=[%" PRId64 "]", s->bytes_label);
		fputc('\n', f);
	}
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_pprof_parses_back(void **state)
{
	char path[] = "/tmp/gh_writers_XXXXXX";
	char cmd[8192];
	struct text got;
	char *want;
	int ix;

	(void)state;
	for (ix = 0; ix < GH_NVALUES; ix++) {
		strcpy(path, "/tmp/gh_writers_XXXXXX");
		write_to(path, &profile, W_PPROF, (enum gh_value)ix, 0);
		snprintf(cmd, sizeof(cmd), "'%s' pprof '%s' 2>&1",
			 oracle_tool("writers_ref"), path);
		got = run(cmd);
		want = expected_pprof_dump((enum gh_value)ix);
		expect_text("google/pprof's reading of the profile", got.s,
			    want);
		free(want);
		free(got.s);
		unlink(path);
	}
}

static void test_pprof_raw(void **state)
{
	char path[] = "/tmp/gh_writers_XXXXXX";
	char cmd[8192];
	struct text got;

	(void)state;
	write_to(path, &profile, W_PPROF, 0, 0);
	snprintf(cmd, sizeof(cmd), "'%s' -raw -symbolize=none '%s' 2>&1",
		 oracle_tool("pprof"), path);
	got = run(cmd);
	assert_non_null(strstr(got.s, "PeriodType: space bytes\n"));
	assert_non_null(strstr(got.s, "Period: 524288\n"));
	assert_non_null(strstr(got.s, "alloc_objects/count alloc_space/bytes "
				      "inuse_objects/count inuse_space/bytes"));
	free(got.s);
	unlink(path);
}

/* ---- top ---- */

/* A top table (got, freed) must be what `go tool pprof -top` prints for the
 * same profile's pprof file, sample index and node count, header lines
 * included. */
static void expect_top(const char *name, struct text got,
		       const char *pprof_file, enum gh_value ix, size_t n)
{
	char cmd[8192], what[128];
	struct text want;

	snprintf(cmd, sizeof(cmd),
		 "'%s' -top -symbolize=none -sample_index=%s -nodecount=%zu "
		 "'%s' 2>/dev/null",
		 oracle_tool("pprof"), value_names[ix], n, pprof_file);
	want = run(cmd);
	snprintf(what, sizeof(what), "top of the %s profile, %s, %zu nodes",
		 name, value_names[ix], n);
	expect_text(what, got.s, want.s);
	free(got.s);
	free(want.s);
}

static void test_top_matches_pprof(void **state)
{
	static const size_t counts[] = {0, 1, 3, 6};
	char path[] = "/tmp/gh_writers_XXXXXX";
	size_t c;
	int ix;

	(void)state;
	/* The Time: line is local time; pin the zone for both sides. */
	setenv("TZ", "UTC", 1);
	write_to(path, &profile, W_PPROF, 0, 0);
	for (ix = 0; ix < GH_NVALUES; ix++)
		for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
			expect_top("hand-built",
				   write_text(&profile, W_TOP,
					      (enum gh_value)ix, counts[c]),
				   path, (enum gh_value)ix, counts[c]);
	unlink(path);
}

static void *zalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	assert_non_null(p);
	return p;
}

/* The header of a made-up profile: strings with quotes, spaces, a tab and
 * non-ASCII, all valid UTF-8 (the JSON gives them back as they are),
 * every status, and bucket counts as a build makes them (builder.c). */
static void made_up_header(struct gh_profile *p, uint64_t seed)
{
	size_t i;

	p->pid = (int)seed;
	snprintf(p->go_version, sizeof(p->go_version), "go1.%d.%d",
		 (int)(20 + seed % 7), (int)(seed % 13));
	snprintf(p->runtime_file, sizeof(p->runtime_file),
		 "/opt/app %" PRIu64 "/lib\"\xc3\xa9\".so", seed);
	snprintf(p->cgroup, sizeof(p->cgroup), "/system.slice/app@%" PRIu64,
		 seed % 3);
	snprintf(p->comm, sizeof(p->comm), "app \"%" PRIu64 "\"", seed % 5);
	snprintf(p->exe, sizeof(p->exe), "/opt/app %" PRIu64 "/b\xc3\xa9",
		 seed);
	snprintf(p->build_id, sizeof(p->build_id), "%016" PRIx64, seed);
	snprintf(p->container_id, sizeof(p->container_id), "%s",
		 seed % 2 ? "3f4b8c1d" : "");
	snprintf(p->container_runtime, sizeof(p->container_runtime), "%s",
		 seed % 2 ? "docker" : "");
	snprintf(p->pod_uid, sizeof(p->pod_uid), "%s",
		 seed % 3 ? "" : "0e1a6d2c-4b4f-4f7c-9a55-3c1d2f8e9b10");
	p->gc_cycles = (unsigned)(1 + seed % 3);
	for (i = 0; i < GH_NVALUES; i++)
		p->total[i] = (int64_t)(seed * 977 + i) * (seed % 2 ? 1 : -1);
	snprintf(p->top_site, sizeof(p->top_site),
		 "main.(*T\"%" PRIu64 "\").f\t", seed);
	p->top_site_bytes = (int64_t)seed << 40;
	p->status = (enum gh_snap_status)(seed % 5);
	snprintf(p->status_reason, sizeof(p->status_reason),
		 "bucket %" PRIu64 " torn \"twice\"\t", seed);
	snprintf(p->backend, sizeof(p->backend), "%s",
		 seed % 2 ? "iter" : "perf");
	snprintf(p->backend_notes, sizeof(p->backend_notes),
		 "iter: no \"BTF\" (%" PRIu64 ")", seed);
	p->duration_ms = (double)(seed % 50) / 7;
	p->nbuckets = p->nsamples;
	for (i = 0; i < p->nsamples; i++)
		p->nbuckets_inuse += p->samples[i].value[GH_INUSE_OBJECTS] > 0;
}

/* A profile of random shape: up to 15 functions, 24 locations (some
 * unsymbolized, some with inlined lines), 40 samples of up to 7 frames
 * (recursion included), values from bytes to gigabytes, zero samples. */
static void random_profile(struct gh_profile *p, uint64_t seed)
{
	static struct gh_mapping map = {0x400000,    0x900000, 0,
					"/bin/prog", "",       true};
	uint64_t st = seed * 0x9e3779b97f4a7c15ULL + 1;
	int64_t big = (int64_t)1 << (next_rand(&st) % 4 * 6);
	size_t i, j;

	*p = (struct gh_profile){
		.period = 524288, .mappings = &map, .nmappings = 1};
	p->time_ns = 1700000000000000000 + (int64_t)(seed * 1000000007);
	p->nfunctions = 3 + next_rand(&st) % 13;
	p->functions = zalloc(p->nfunctions, sizeof(*p->functions));
	for (i = 0; i < p->nfunctions; i++) {
		p->functions[i].name = zalloc(32, 1);
		snprintf(p->functions[i].name, 32, "main.f%zu", i);
		p->functions[i].filename = "/src/f.go";
	}
	p->nlocations = 3 + next_rand(&st) % 22;
	p->locations = zalloc(p->nlocations, sizeof(*p->locations));
	for (i = 0; i < p->nlocations; i++) {
		struct gh_location *l = &p->locations[i];

		l->address = 0x400000 + 16 * i;
		l->mapping = 1;
		l->nlines = next_rand(&st) % 6 ? 1 + next_rand(&st) % 3 : 0;
		l->lines = zalloc(l->nlines, sizeof(*l->lines));
		for (j = 0; j < l->nlines; j++)
			l->lines[j].function = next_rand(&st) % p->nfunctions;
	}
	p->nsamples = 1 + next_rand(&st) % 40;
	p->samples = zalloc(p->nsamples, sizeof(*p->samples));
	for (i = 0; i < p->nsamples; i++) {
		struct gh_sample *s = &p->samples[i];
		int64_t size = (int64_t)8 << next_rand(&st) % 12;
		int64_t objs =
			next_rand(&st) % 5 ? 1 + next_rand(&st) % big : 0;

		s->nlocs = next_rand(&st) % 8;
		s->locs = zalloc(s->nlocs, sizeof(*s->locs));
		for (j = 0; j < s->nlocs; j++)
			s->locs[j] = next_rand(&st) % p->nlocations;
		s->value[GH_ALLOC_OBJECTS] = objs + next_rand(&st) % 3;
		s->value[GH_ALLOC_SPACE] = s->value[GH_ALLOC_OBJECTS] * size;
		s->value[GH_INUSE_OBJECTS] = objs;
		s->value[GH_INUSE_SPACE] = objs * size;
	}
	made_up_header(p, seed);
}

static void free_random_profile(struct gh_profile *p)
{
	size_t i;

	for (i = 0; i < p->nfunctions; i++)
		free(p->functions[i].name);
	for (i = 0; i < p->nlocations; i++)
		free(p->locations[i].lines);
	for (i = 0; i < p->nsamples; i++)
		free(p->samples[i].locs);
	free(p->functions);
	free(p->locations);
	free(p->samples);
}

/* pprof is the judge on shapes no one wrote down by hand either. */
static void test_top_random_profiles(void **state)
{
	char path[] = "/tmp/gh_writers_XXXXXX";
	struct gh_profile p;
	enum gh_value ix;
	uint64_t seed;
	size_t n;

	(void)state;
	setenv("TZ", "UTC", 1);
	for (seed = 1; seed <= 24; seed++) {
		random_profile(&p, seed);
		strcpy(path, "/tmp/gh_writers_XXXXXX");
		write_to(path, &p, W_PPROF, 0, 0);
		ix = (enum gh_value)(seed % GH_NVALUES);
		n = seed / GH_NVALUES % 3 * 2;
		expect_top("random", write_text(&p, W_TOP, ix, n), path, ix, n);
		unlink(path);
		free_random_profile(&p);
	}
}

/* ---- JSON ---- */

/* What the JSON holds, by hand from the samples above: equal stacks
 * (samples 0 and 6) merged, zero entries dropped, runtime frames skipped
 * for the name, unsymbolized frames as hex PCs, bad UTF-8 as U+FFFD. */
#define JSON_HEAD(trunc, index)                                                \
	"pid 4242\nruntime_version 9:go1.22.12\n"                              \
	"runtime_file 19:/opt/app/lib\"go\".so\ncomm 7:app \"1\"\n"            \
	"exe 12:/opt/app/bin\nbuild_id 4:abcd\n"                               \
	"cgroup 23:/kubepods.slice/pod\xc3\xa9 1\ncontainer_id 6:c\"t "        \
	"\xc3\xa9\n"                                                           \
	"container_runtime 5:cri-o\npod_uid 3:p-1\nstatus partial\n"           \
	"status_reason 21:bucket 7 torn \"twice\"\n"                           \
	"backend 4:perf\nbackend_notes 14:iter: no \"BTF\"\n"                  \
	"duration_ms 3\nbuckets 11\nbuckets_inuse 9\ngc_cycles 1\n"            \
	"totals 0 0 0 0\ntop_site 0: 0\n"                                      \
	"memprofilerate 524288\nsample_index " index "\n"                      \
	"output_truncated " trunc "\n"
#define FFFD	   "\xef\xbf\xbd"
#define WEIRD	   "main.mk[go.shape.struct { main.x int; \"q\\\" }]\t\x01\xc3\xa9"
#define FR_MAIN	   "  30:main.main, /src/app/main.go:45\n"
#define FR_RT	   "  51:runtime.main, /usr/local/go/src/runtime/proc.go:250\n"
#define FR_CALLER  "  32:main.caller, /src/app/main.go:33\n" FR_MAIN FR_RT
#define FR_INLINED "  33:main.inlined, /src/app/util.go:22\n" FR_CALLER
#define FR_LEAF	   "  30:main.leaf, /src/app/main.go:12\n" FR_INLINED

static const char json_inuse[] = JSON_HEAD(
	"false",
	"inuse_space") "entry inuse_space_objects 49:" WEIRD
		       " 2000000 2 1e+06\n"
		       "  80:" WEIRD
		       ", /src/app/w\xc3\xa9ird \"dir\"/x.go:55\n" FR_MAIN FR_RT
		       "entry inuse_space_objects 9:main.leaf 5120 5 "
		       "1024\n" FR_LEAF "entry inuse_space_objects "
		       "14:0x7f0000001234 3200 50 64\n"
		       "  14:0x7f0000001234\n" FR_INLINED
		       "entry inuse_space_objects 31:main.bad" FFFD FFFD FFFD
		       "x" FFFD FFFD FFFD "name 700 7 100\n"
		       "  83:internal/runtime/maps.newTable, "
		       "/usr/local/go/src/internal/runtime/maps/table.go:77\n"
		       "  31:main.bad" FFFD FFFD FFFD "x" FFFD FFFD FFFD
		       "name\n" FR_RT
		       "entry inuse_space_objects 12:main.inlined 512 1 512\n"
		       "  33:main.inlined, /src/app/util.go:24\n" FR_MAIN FR_RT
		       "entry inuse_space_objects 10:main.recur 240 5 48\n"
		       "  31:main.recur, /src/app/main.go:61\n"
		       "  31:main.recur, /src/app/main.go:63\n"
		       "  31:main.recur, /src/app/main.go:61\n" FR_MAIN FR_RT
		       "entry inuse_space_objects 8:0x408000 16 1 16\n"
		       "  8:0x408000\n"
		       "entry inuse_space_objects 0: 8 1 8\n";

static const char json_alloc_top3[] = JSON_HEAD(
	"true",
	"alloc_space") "entry alloc_space_objects 49:" WEIRD
		       " 3000000 3 1e+06\n"
		       "  80:" WEIRD
		       ", /src/app/w\xc3\xa9ird \"dir\"/x.go:55\n" FR_MAIN FR_RT
		       "entry alloc_space_objects 9:main.leaf 12288 12 "
		       "1024\n" FR_LEAF "entry alloc_space_objects "
		       "14:0x7f0000001234 6400 100 64\n"
		       "  14:0x7f0000001234\n" FR_INLINED;

/* The document as JSON and as JSON Lines (one line, ended by the only
 * newline), each read back by encoding/json and by Python. */
static void check_json(enum gh_value ix, size_t top_n, const char *want)
{
	const enum writer ws[] = {W_JSON, W_JSONL};
	char path[] = "/tmp/gh_writers_XXXXXX";
	char cmd[8192];
	struct text got;

	for (size_t i = 0; i < 2; i++) {
		got = write_text(&profile, ws[i], ix, top_n);
		if (ws[i] == W_JSONL)
			assert_ptr_equal(strchr(got.s, '\n'),
					 got.s + got.len - 1);
		strcpy(path, "/tmp/gh_writers_XXXXXX");
		save(path, got);
		snprintf(cmd, sizeof(cmd), "'%s' json '%s' 2>&1",
			 oracle_tool("writers_ref"), path);
		got = run(cmd);
		expect_text("encoding/json's reading of the document", got.s,
			    want);
		free(got.s);
		/* encoding/json quietly mends bad UTF-8; Python's reader
		 * does not. */
		snprintf(cmd, sizeof(cmd), "python3 -m json.tool '%s' 2>&1",
			 path);
		free(run(cmd).s);
		unlink(path);
	}
}

static void test_json_inuse(void **state)
{
	(void)state;
	check_json(GH_INUSE_SPACE, 0, json_inuse);
	/* objects select the same pair; top_n past the end cuts nothing */
	check_json(GH_INUSE_OBJECTS, 8, json_inuse);
}

static void test_json_alloc_top(void **state)
{
	(void)state;
	check_json(GH_ALLOC_OBJECTS, 3, json_alloc_top3);
}

/* A trigger (an OOM kill's) is the JSON's "trigger", only when set. */
static void test_json_trigger(void **state)
{
	struct gh_profile p = profile;
	char path[] = "/tmp/gh_writers_XXXXXX";
	char cmd[512];
	struct text got = write_text(&p, W_JSON, GH_INUSE_SPACE, 0);

	(void)state;
	assert_null(strstr(got.s, "\"trigger\""));
	free(got.s);
	snprintf(p.trigger, sizeof(p.trigger), "oom-kill: comm \"a\"\tb");
	got = write_text(&p, W_JSON, GH_INUSE_SPACE, 0);
	save(path, got);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; "
		 "print(json.load(open(sys.argv[1]))[\"trigger\"])' '%s'",
		 path);
	got = run(cmd);
	expect_text("the trigger read back", got.s,
		    "oom-kill: comm \"a\"\tb\n");
	free(got.s);
	unlink(path);
}

/* ---- streaming ---- */

/* What a build shows its renderers when a sample of prof arrives: tables
 * that hold what the samples so far refer to, and grow (builder.c's
 * promise, no more). */
static void grow_view(struct gh_profile *view, const struct gh_profile *prof,
		      const struct gh_sample *s)
{
	size_t i, j;

	for (i = 0; i < s->nlocs; i++)
		if (s->locs[i] >= view->nlocations)
			view->nlocations = s->locs[i] + 1;
	for (i = 0; i < view->nlocations; i++) {
		const struct gh_location *l = &prof->locations[i];

		for (j = 0; j < l->nlines; j++)
			if (l->lines[j].function >= view->nfunctions)
				view->nfunctions = l->lines[j].function + 1;
	}
}

/* prof as a build shows it to its sinks before the first sample. */
static struct gh_profile empty_view(const struct gh_profile *prof)
{
	struct gh_profile view = *prof;

	view.samples = NULL;
	view.nsamples = 0;
	view.nlocations = view.nfunctions = 0;
	return view;
}

/* Feed prof's samples to sink s as a build does, tables growing; after a
 * false start on half of other's samples (a re-read), when given. */
static void feed(const struct psink *s, const struct gh_profile *prof,
		 const struct gh_profile *other)
{
	struct gh_err err = {0};
	struct gh_profile view;
	size_t i;

	if (other) {
		view = empty_view(other);
		for (i = 0; i < other->nsamples / 2; i++) {
			grow_view(&view, other, &other->samples[i]);
			assert_int_equal(s->ops->sample(s->st, &view,
							&other->samples[i]),
					 0);
		}
		s->ops->reset(s->st);
	}
	view = empty_view(prof);
	for (i = 0; i < prof->nsamples; i++) {
		grow_view(&view, prof, &prof->samples[i]);
		assert_int_equal(
			s->ops->sample(s->st, &view, &prof->samples[i]), 0);
	}
	if (s->ops->finish && s->ops->finish(s->st, prof, &err))
		fail_msg("finish failed: %s", err.msg);
}

/* A profile built for the three formats, its samples not kept. */
struct built {
	struct gh_profile p;
	struct gh_profile_x x;
	struct psink sinks[3];
};

static void build(struct built *b, const struct gh_profile *prof,
		  enum gh_value ix, size_t top_n,
		  const struct gh_profile *other)
{
	static const enum gh_format formats[] = {GH_FORMAT_PPROF,
						 GH_FORMAT_JSON, GH_FORMAT_TOP};
	struct gh_err err = {0};
	size_t i;

	for (i = 0; i < 3; i++) {
		struct gh_write_opts o = {.sz = sizeof(struct gh_write_opts),
					  .format = formats[i],
					  .index = ix,
					  .top_n = top_n};

		if (render_open(&o, false, &b->sinks[i], &err))
			fail_msg("render_open: %s", err.msg);
		feed(&b->sinks[i], prof, other);
	}
	b->p = *prof;
	b->p.samples = NULL;
	b->p.nsamples = 0;
	b->x = (struct gh_profile_x){.sinks = b->sinks, .nsinks = 3};
	b->p.x = &b->x;
}

static void free_built(struct built *b)
{
	for (size_t i = 0; i < 3; i++)
		b->sinks[i].ops->free(b->sinks[i].st);
}

static void expect_same(const char *what, struct text got, struct text want)
{
	if (got.len != want.len || memcmp(got.s, want.s, got.len))
		fail_msg("%s differs.\n--- got:\n%s\n--- want:\n%s", what,
			 got.s, want.s);
	free(got.s);
	free(want.s);
}

/* A profile built for a format writes it any number of times, each time
 * as a profile that kept its samples writes it: here after a false
 * start on another profile, which the renderers must forget. */
static void test_write_twice(void **state)
{
	static const enum writer writers[] = {W_PPROF, W_JSON, W_TOP};
	struct gh_profile other;
	struct built b;
	size_t i;
	int ix;

	(void)state;
	random_profile(&other, 7);
	for (ix = 0; ix < GH_NVALUES; ix++) {
		build(&b, &profile, (enum gh_value)ix, 0, &other);
		for (i = 0; i < 3; i++) {
			struct text first = write_text(&b.p, writers[i], ix, 0);
			struct text again = write_text(&b.p, writers[i], ix, 0);

			expect_same("second write", again,
				    write_text(&profile, writers[i], ix, 0));
			expect_same("first write", first,
				    write_text(&profile, writers[i], ix, 0));
		}
		free_built(&b);
	}
	free_random_profile(&other);
}

/* A pprof renderer built for one sample index serves a write for any
 * other that names the same default sample type (none, or alloc_space),
 * and no other. */
static void test_pprof_index_opts(void **state)
{
	const struct gh_write_opts allocs = {.sz = sizeof(struct gh_write_opts),
					     .format = GH_FORMAT_PPROF,
					     .index = GH_ALLOC_SPACE};
	struct gh_err err = {0};
	struct built b;
	FILE *f;

	(void)state;
	build(&b, &profile, GH_INUSE_SPACE, 0, NULL);
	expect_same("pprof built for inuse_space, written for alloc_objects",
		    write_text(&b.p, W_PPROF, GH_ALLOC_OBJECTS, 0),
		    write_text(&profile, W_PPROF, GH_INUSE_SPACE, 0));
	f = fopen("/dev/null", "w");
	assert_non_null(f);
	assert_int_equal(gh_profile__write(&b.p, f, &allocs, &err), -1);
	assert_int_equal(err.code, GH_E_USAGE);
	fclose(f);
	free_built(&b);
	build(&b, &profile, GH_ALLOC_SPACE, 0, NULL);
	expect_same("pprof built for alloc_space",
		    write_text(&b.p, W_PPROF, GH_ALLOC_SPACE, 0),
		    write_text(&profile, W_PPROF, GH_ALLOC_SPACE, 0));
	free_built(&b);
}

/* A profile of random shape for comparisons no Go tool judges: runtime
 * functions (JSON names skip them) and nameless ones (top shows their
 * binary), locations without symbols or mapping, stacks drawn again
 * (merged entries, shared paths) or made up (recursion), empty stacks,
 * and values zero, negative, summing to zero or past 32 bits. */
static void wild_profile(struct gh_profile *p, uint64_t seed)
{
	static struct gh_mapping maps[] = {
		{0x400000, 0x900000, 0, "/bin/prog", "abc", true},
		{0x7f0000000000, 0x7f0000100000, 0, "/lib/libc.so.6", "",
		 false},
		{0x7f1000000000, 0x7f1000100000, 0, "", "", false},
	};
	static const int64_t odd[] = {INT32_MAX, INT32_MIN, (int64_t)1 << 31,
				      -((int64_t)1 << 33), (int64_t)1 << 40};
	uint64_t st = seed * 0x9e3779b97f4a7c15ULL + 3;
	size_t i, j, v;

	*p = (struct gh_profile){
		.period = 524288, .mappings = maps, .nmappings = 3};
	p->time_ns = 1700000000000000000 + (int64_t)(seed * 1000000007);
	p->nfunctions = 3 + next_rand(&st) % 18;
	p->functions = zalloc(p->nfunctions, sizeof(*p->functions));
	for (i = 0; i < p->nfunctions; i++) {
		/* bad UTF-8: a stray byte, a cut sequence, a surrogate */
		static const char *const fmts[] = {"main.f%zu",
						   "runtime.f%zu",
						   "internal/runtime/maps.f%zu",
						   "main.g%zu",
						   "",
						   "main.(*T[\"q\" x]).m%zu",
						   "main.\xff%zu\xe2\x82",
						   "runtime.\xed\xa0\x80%zu"};
		static char *const files[] = {"", "/src/f.go",
					      "/src/a dir/\"q\"\xff.go"};
		const char *fmt =
			fmts[next_rand(&st) % (sizeof(fmts) / sizeof(fmts[0]))];

		p->functions[i].name = zalloc(40, 1);
		snprintf(p->functions[i].name, 40, fmt, i);
		p->functions[i].filename = files[i % 3];
	}
	p->nlocations = 2 + next_rand(&st) % 30;
	p->locations = zalloc(p->nlocations, sizeof(*p->locations));
	for (i = 0; i < p->nlocations; i++) {
		struct gh_location *l = &p->locations[i];

		l->address = 0x400000 + 16 * i;
		l->mapping = next_rand(&st) % 4;
		l->nlines = next_rand(&st) % 5 ? 1 + next_rand(&st) % 3 : 0;
		l->lines = zalloc(l->nlines, sizeof(*l->lines));
		for (j = 0; j < l->nlines; j++) {
			l->lines[j].function = next_rand(&st) % p->nfunctions;
			l->lines[j].line = (int64_t)(next_rand(&st) % 3);
		}
	}
	p->nsamples = 1 + next_rand(&st) % 300;
	p->samples = zalloc(p->nsamples, sizeof(*p->samples));
	for (i = 0; i < p->nsamples; i++) {
		struct gh_sample *s = &p->samples[i];
		const struct gh_sample *again =
			i && next_rand(&st) % 2
				? &p->samples[next_rand(&st) % i]
				: NULL;

		s->nlocs = again ? again->nlocs : next_rand(&st) % 10;
		s->locs = zalloc(s->nlocs, sizeof(*s->locs));
		for (j = 0; j < s->nlocs; j++)
			s->locs[j] = again ? again->locs[j]
					   : next_rand(&st) % p->nlocations;
		for (v = 0; v < GH_NVALUES; v++) {
			uint64_t r = next_rand(&st) % 20;

			if (r < 3)
				s->value[v] = 0;
			else if (r < 5 && again)
				s->value[v] = -again->value[v];
			else if (r < 6)
				s->value[v] = -(int64_t)(next_rand(&st) % 5000);
			else if (r < 8)
				s->value[v] = odd[next_rand(&st) % 5];
			else
				s->value[v] =
					(int64_t)(next_rand(&st) % 100000);
		}
	}
	made_up_header(p, seed);
}

/* ---- against the oracles, as a build feeds the renderers ---- */

static const size_t top_ns[] = {0, 1, 3, 10};
#define NTOP_NS (sizeof(top_ns) / sizeof(top_ns[0]))
#define NDOCS	(GH_NVALUES * NTOP_NS)

/* The JSON documents of one profile, each in a file, and the arguments
 * that ask writers_ref to decode them, and what they must hold. */
struct docs {
	char path[NDOCS][32];
	size_t n;
	char files[NDOCS * 40];
	char requests[NDOCS * 24];
};

static void __attribute__((format(printf, 3, 4)))
append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	assert_true((size_t)vsnprintf(buf + len, size - len, fmt, ap) <
		    size - len);
	va_end(ap);
}

static void add_doc(struct docs *d, struct text json, enum gh_value ix,
		    size_t top_n)
{
	char *path = d->path[d->n++];

	strcpy(path, "/tmp/gh_writers_XXXXXX");
	save(path, json);
	append(d->files, sizeof(d->files), " '%s'", path);
	append(d->requests, sizeof(d->requests), " %s:%zu", value_names[ix],
	       top_n);
}

static const char *status_text(enum gh_snap_status s)
{
	static const char *const names[] = {
		[GH_SNAP_COMPLETE] = "complete",
		[GH_SNAP_PARTIAL] = "partial",
		[GH_SNAP_UNAVAILABLE] = "unavailable",
		[GH_SNAP_FAILED] = "failed",
		[GH_SNAP_MIXED] = "mixed",
	};

	return names[s];
}

/* The labels, as writers_ref dumps them. */
static void put_labels(FILE *f, const struct gh_profile *p)
{
	const char *const names[] = {"comm",	     "exe",
				     "build_id",     "cgroup",
				     "container_id", "container_runtime",
				     "pod_uid"};
	const char *const values[] = {p->comm,	       p->exe,
				      p->build_id,     p->cgroup,
				      p->container_id, p->container_runtime,
				      p->pod_uid};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		fprintf(f, "%s %zu:%s\n", names[i], strlen(values[i]),
			values[i]);
}

/* What writers_ref dumps of the fields json.c takes from p's header, which
 * a pprof file has no room for: the schema in json.c's header comment. */
static void put_json_header(FILE *f, const struct gh_profile *p)
{
	fprintf(f, "pid %d\nruntime_version %zu:%s\nruntime_file %zu:%s\n",
		p->pid, strlen(p->go_version), p->go_version,
		strlen(p->runtime_file), p->runtime_file);
	put_labels(f, p);
	fprintf(f,
		"status %s\nstatus_reason %zu:%s\n"
		"backend %zu:%s\nbackend_notes %zu:%s\n",
		status_text(p->status), strlen(p->status_reason),
		p->status_reason, strlen(p->backend), p->backend,
		strlen(p->backend_notes), p->backend_notes);
	/* milliseconds rounded up */
	fprintf(f,
		"duration_ms %.0f\nbuckets %zu\nbuckets_inuse %zu\n"
		"gc_cycles %u\n",
		p->duration_ms > 0 ? ceil(p->duration_ms) : 0, p->nbuckets,
		p->nbuckets_inuse, p->gc_cycles ? p->gc_cycles : 1);
	fprintf(f,
		"totals %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
		"\ntop_site %zu:%s %" PRId64 "\n",
		p->total[GH_ALLOC_OBJECTS], p->total[GH_ALLOC_SPACE],
		p->total[GH_INUSE_OBJECTS], p->total[GH_INUSE_SPACE],
		strlen(p->top_site), p->top_site, p->top_site_bytes);
}

/* The dumps of p's documents: each of the sections `writers_ref entries`
 * printed ("section LEN\n", LEN bytes) after p's header fields. */
static char *expected_docs(const struct gh_profile *p, const char *sections)
{
	char *buf = NULL;
	size_t size = 0, len;
	FILE *f = open_memstream(&buf, &size);
	int used;

	assert_non_null(f);
	while (*sections) {
		used = 0;
		if (sscanf(sections, "section %zu%n", &len, &used) != 1 ||
		    !used || sections[used] != '\n' ||
		    strlen(sections + used + 1) < len)
			fail_msg("writers_ref entries: no section at\n%s",
				 sections);
		sections += used + 1;
		put_json_header(f, p);
		fwrite(sections, 1, len, f);
		sections += len;
	}
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The documents as encoding/json reads them against what writers_ref
 * computes from prof's pprof file. */
static void check_docs(struct docs *d, const struct gh_profile *prof,
		       const char *pprof_file, const char *name)
{
	char cmd[8192], what[512];
	struct text got, sections;
	char *want;

	snprintf(cmd, sizeof(cmd), "'%s' json-signed%s 2>&1",
		 oracle_tool("writers_ref"), d->files);
	got = run(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' entries '%s'%s 2>&1",
		 oracle_tool("writers_ref"), pprof_file, d->requests);
	sections = run(cmd);
	want = expected_docs(prof, sections.s);
	snprintf(what, sizeof(what), "JSON of the %s profile (%s)", name,
		 d->requests);
	expect_text(what, got.s, want);
	free(got.s);
	free(sections.s);
	free(want);
	while (d->n)
		unlink(d->path[--d->n]);
}

/* What the renderer for writer w in b writes, held to what prof, which
 * kept its samples, writes. */
static struct text built_text(const struct built *b,
			      const struct gh_profile *prof, enum writer w,
			      enum gh_value ix, size_t top_n)
{
	struct text got = write_text(&b->p, w, ix, top_n);
	struct text kept = write_text(prof, w, ix, top_n);

	if (got.len != kept.len || memcmp(got.s, kept.s, got.len))
		fail_msg("writer %d, %s, top %zu, as built:\n%s\n--- as "
			 "kept:\n%s",
			 w, value_names[ix], top_n, got.s, kept.s);
	free(kept.s);
	return got;
}

/* Every top table held to pprof, rather than one per sample index. */
#define ALL_TOPS SIZE_MAX

/* prof's renderers built for every sample index and top_n, after a false
 * start on other, against the oracles: every JSON document, and the top
 * tables of the top_n turn picks for each index, or all of them (pprof
 * takes a process per table). */
static void check_against_oracles(const struct gh_profile *prof,
				  const struct gh_profile *other,
				  const char *name, size_t turn)
{
	char pprof_file[] = "/tmp/gh_writers_XXXXXX";
	struct docs d = {0};
	struct built b;
	size_t c;
	int ix;

	write_to(pprof_file, prof, W_PPROF, 0, 0);
	for (ix = 0; ix < GH_NVALUES; ix++) {
		for (c = 0; c < NTOP_NS; c++) {
			build(&b, prof, (enum gh_value)ix, top_ns[c], other);
			add_doc(&d,
				built_text(&b, prof, W_JSON, (enum gh_value)ix,
					   top_ns[c]),
				(enum gh_value)ix, top_ns[c]);
			if (turn == ALL_TOPS || c == (ix + turn) % NTOP_NS)
				expect_top(name,
					   built_text(&b, prof, W_TOP,
						      (enum gh_value)ix,
						      top_ns[c]),
					   pprof_file, (enum gh_value)ix,
					   top_ns[c]);
			free_built(&b);
		}
	}
	check_docs(&d, prof, pprof_file, name);
	unlink(pprof_file);
}

/* The renderers as a build feeds them (tables growing, a false start) and
 * as a profile that kept its samples writes them, against what readers we
 * did not write make of the same profile's pprof file: on the hand-built
 * profile and on random and wild ones. */
static void test_as_built_against_oracles(void **state)
{
	struct gh_profile p, other;
	char name[64];
	uint64_t seed;

	(void)state;
	setenv("TZ", "UTC", 1);
	random_profile(&other, 5);
	check_against_oracles(&profile, &other, "hand-built", ALL_TOPS);
	free_random_profile(&other);
	for (seed = 1; seed <= 150; seed++) {
		random_profile(&p, seed);
		wild_profile(&other, seed + 1000);
		snprintf(name, sizeof(name), "random %" PRIu64, seed);
		check_against_oracles(&p, &other, name, seed);
		snprintf(name, sizeof(name), "wild %" PRIu64, seed + 1000);
		check_against_oracles(&other, &p, name, seed + 2);
		free_random_profile(&p);
		free_random_profile(&other);
	}
}

/* Writer w fails on prof as on a bug of ours: GH_E_FAILED, a message that
 * says so and what is missing, and nothing written. */
static void expect_internal_error(const struct gh_profile *prof, enum writer w,
				  const char *what)
{
	struct gh_err err = {0};
	struct text t = {0};
	FILE *f = open_memstream(&t.s, &t.len);

	assert_non_null(f);
	if (write_as(f, prof, w, GH_INUSE_SPACE, 0, &err) != -1)
		fail_msg("%s: writer %d did not fail", what, w);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(t.len, 0);
	free(t.s);
	assert_int_equal(err.code, GH_E_FAILED);
	if (!strstr(err.msg, "internal error") || !strstr(err.msg, "missing"))
		fail_msg("%s: writer %d says: %s", what, w, err.msg);
}

/* A profile that refers to what it does not hold fails: top checks every
 * location, JSON the samples' stacks (it shows no mapping). */
static void test_bad_refs(void **state)
{
	struct gh_location locs[sizeof(locations) / sizeof(locations[0]) + 1];
	struct gh_sample smps[sizeof(samples) / sizeof(samples[0])];
	struct gh_line bad_line = {NFUNCS + 5, 1};
	struct gh_profile p = profile;
	size_t nlocs = sizeof(locations) / sizeof(locations[0]);

	(void)state;
	memcpy(smps, samples, sizeof(samples));
	memcpy(locs, locations, sizeof(locations));
	p.samples = smps;
	p.locations = locs;
	/* A location no sample has, naming a missing function. */
	locs[nlocs] = (struct gh_location){0x40c000, 1, 1, &bad_line};
	p.nlocations = nlocs + 1;
	expect_internal_error(&p, W_TOP, "unused location, missing function");
	expect_same("JSON with an unused broken location",
		    write_text(&p, W_JSON, GH_INUSE_SPACE, 0),
		    write_text(&profile, W_JSON, GH_INUSE_SPACE, 0));
	p.nlocations = nlocs;
	locs[2].mapping = 9;
	expect_internal_error(&p, W_TOP, "missing mapping");
	expect_same("JSON with a missing mapping",
		    write_text(&p, W_JSON, GH_INUSE_SPACE, 0),
		    write_text(&profile, W_JSON, GH_INUSE_SPACE, 0));
	locs[2] = (struct gh_location){0x403000, 1, 1, &bad_line};
	expect_internal_error(&p, W_TOP, "missing function");
	expect_internal_error(&p, W_JSON, "missing function");
	memcpy(locs, locations, sizeof(locations));
	smps[3].locs = LOCS(6, 7, 6, 99, 3);
	smps[3].nlocs = 5;
	expect_internal_error(&p, W_TOP, "missing location");
	expect_internal_error(&p, W_JSON, "missing location");
}

/* ---- errors ---- */

static void test_output_error(void **state)
{
	struct gh_err err = {0};
	FILE *f;

	(void)state;
	f = fopen("/dev/full", "w");
	assert_non_null(f);
	assert_int_equal(write_as(f, &profile, W_PPROF, 0, 0, &err), -1);
	assert_int_equal(err.code, GH_E_OUTPUT);
	assert_non_null(strstr(err.msg, "No space left"));
	fclose(f);

	f = fopen("/dev/full", "w");
	err.code = GH_OK;
	assert_int_equal(write_as(f, &profile, W_JSON, GH_INUSE_SPACE, 0, &err),
			 -1);
	assert_int_equal(err.code, GH_E_OUTPUT);
	fclose(f);

	f = fopen("/dev/full", "w");
	err.code = GH_OK;
	assert_int_equal(write_as(f, &profile, W_TOP, GH_INUSE_SPACE, 0, &err),
			 -1);
	assert_int_equal(err.code, GH_E_OUTPUT);
	fclose(f);
}

static void test_bad_index(void **state)
{
	struct gh_err err = {0};
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(f);
	assert_int_equal(write_as(f, &profile, W_JSON, GH_NVALUES, 0, &err),
			 -1);
	assert_int_equal(err.code, GH_E_USAGE);
	err.code = GH_OK;
	assert_int_equal(write_as(f, &profile, W_TOP, GH_NVALUES, 0, &err), -1);
	assert_int_equal(err.code, GH_E_USAGE);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pprof_parses_back),
		cmocka_unit_test(test_pprof_raw),
		cmocka_unit_test(test_top_matches_pprof),
		cmocka_unit_test(test_top_random_profiles),
		cmocka_unit_test(test_json_inuse),
		cmocka_unit_test(test_json_alloc_top),
		cmocka_unit_test(test_json_trigger),
		cmocka_unit_test(test_write_twice),
		cmocka_unit_test(test_pprof_index_opts),
		cmocka_unit_test(test_as_built_against_oracles),
		cmocka_unit_test(test_bad_refs),
		cmocka_unit_test(test_output_error),
		cmocka_unit_test(test_bad_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
