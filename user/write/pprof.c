/* pprof.c - the pprof renderer: the profile as a gzip-compressed profile.proto
 * in the shape runtime/pprof's writeHeapProto (protomem.go, proto.go)
 * gives a heap profile: string table starting with "", the four heap
 * sample types, one sample per bucket with a "bytes" num label, mappings,
 * locations and functions numbered from 1, time_nanos, period_type
 * space/bytes and the period (omitted when 0, as Go's int64Opt does);
 * the allocs profile's default sample type, a delta's duration, and a
 * diff's base samples labelled as go tool pprof -diff_base labels them. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/bytepipe.h"
#include "base/err.h"
#include "goheap.h"
#include "profile/refs.h"
#include "write/pbuf.h"
#include "write/proto.h"
#include "write/render.h"
#include "write/strtab.h"

/* A profile being encoded: samples are added as they are built (the rest
 * is encoded at the end), so a huge profile never has to sit in memory
 * uncompressed. Protobuf fields may come in any order. Once finished, gz
 * holds the whole gzip stream, written as often as asked. */
struct pprof_enc {
	struct pbuf pb; /* encoded, not yet compressed */
	struct strtab st;
	z_stream zs;
	bool zs_live;
	struct pbuf gz; /* compressed so far */
	bool zfailed;
	int64_t bytes_str; /* index of "bytes", once indexed (0: not yet) */
	/* to the compressing thread (NULL: compress on the caller's); zs and
	 * gz are that thread's until bytepipe__sync */
	struct bytepipe *gzip;
};

/* Bytes of encoded samples gathered before they are compressed. */
#define PENDING_MAX (256u << 10)
/* zlib level 2, not runtime/pprof's BestSpeed (1): on heap profiles, whose
 * samples repeat long runs of location ids, level 2 measured both faster
 * (260 vs 175 MB/s) and smaller (5.6 vs 9.4 MB for 1M samples). */
#define GZIP_LEVEL 2

static void value_type(struct pprof_enc *e, int tag, const char *type,
		       const char *unit)
{
	size_t start = pbuf__start(&e->pb);

	pbuf__uint64(&e->pb, VALUE_TYPE_TYPE,
		     (uint64_t)strtab__index(&e->st, type));
	pbuf__uint64(&e->pb, VALUE_TYPE_UNIT,
		     (uint64_t)strtab__index(&e->st, unit));
	pbuf__end(&e->pb, tag, start);
}

/* A goroutine sample's labels (printCountProfile's pbLabel of each). */
static void str_labels(struct pprof_enc *e, char *const *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t lstart = pbuf__start(&e->pb);

		pbuf__int64_opt(&e->pb, LABEL_KEY,
				strtab__index(&e->st, kv[2 * i]));
		pbuf__int64_opt(&e->pb, LABEL_STR,
				strtab__index(&e->st, kv[2 * i + 1]));
		pbuf__end(&e->pb, SAMPLE_LABEL, lstart);
	}
}

/* A sample with no label but heap's "bytes" one (every heap sample, the
 * bulk of a large profile): the same bytes as sample's, sized first and
 * written in one go. */
static void plain_sample(struct pprof_enc *e, const struct gh_sample *s, int n)
{
	size_t nv = pbuf__int64s_size(s->value, (size_t)n);
	size_t nl = pbuf__ids_size(s->locs, s->nlocs);
	size_t nb = 0, body;
	uint8_t *o;

	if (s->has_bytes_label) {
		/* Every heap sample has it: looked up once. */
		if (!e->bytes_str)
			e->bytes_str = strtab__index(&e->st, "bytes");
		if (e->bytes_str)
			nb += pbuf__uint64_size(LABEL_KEY,
						(uint64_t)e->bytes_str);
		if (s->bytes_label)
			nb += pbuf__uint64_size(LABEL_NUM,
						(uint64_t)s->bytes_label);
	}
	body = pbuf__field_size(SAMPLE_VALUE, nv) +
	       pbuf__field_size(SAMPLE_LOCATION, nl) +
	       (s->has_bytes_label ? pbuf__field_size(SAMPLE_LABEL, nb) : 0);
	o = pbuf__room(&e->pb, pbuf__field_size(PROFILE_SAMPLE, body));
	if (!o)
		return;
	o = pbuf__put_head(o, PROFILE_SAMPLE, body);
	o = pbuf__put_head(o, SAMPLE_VALUE, nv);
	o = pbuf__put_int64s(o, s->value, (size_t)n);
	o = pbuf__put_head(o, SAMPLE_LOCATION, nl);
	o = pbuf__put_ids(o, s->locs, s->nlocs);
	if (s->has_bytes_label) {
		o = pbuf__put_head(o, SAMPLE_LABEL, nb);
		if (e->bytes_str)
			o = pbuf__put_uint64(o, LABEL_KEY,
					     (uint64_t)e->bytes_str);
		if (s->bytes_label)
			o = pbuf__put_uint64(o, LABEL_NUM,
					     (uint64_t)s->bytes_label);
	}
	pbuf__commit(&e->pb, o);
}

/* n values: the heap's four, a block or mutex profile's two, a goroutine
 * profile's one. */
static void sample(struct pprof_enc *e, const struct gh_profile *p,
		   const struct gh_sample *s, int n)
{
	size_t start, nkv;
	char *const *kv = profile__labels_of(p, s, &nkv);

	if (!nkv && !s->base) {
		plain_sample(e, s, n);
		return;
	}
	start = pbuf__start(&e->pb);

	pbuf__packed_int64(&e->pb, SAMPLE_VALUE, s->value, (size_t)n);
	pbuf__packed_ids(&e->pb, SAMPLE_LOCATION, s->locs, s->nlocs);
	str_labels(e, kv, nkv);
	if (s->base) {
		size_t lstart = pbuf__start(&e->pb);

		pbuf__int64_opt(&e->pb, LABEL_KEY,
				strtab__index(&e->st, PPROF_BASE_LABEL));
		pbuf__int64_opt(&e->pb, LABEL_STR,
				strtab__index(&e->st, "true"));
		pbuf__end(&e->pb, SAMPLE_LABEL, lstart);
	}
	if (s->has_bytes_label) {
		size_t lstart = pbuf__start(&e->pb);

		/* Every heap sample has it: looked up once. */
		if (!e->bytes_str)
			e->bytes_str = strtab__index(&e->st, "bytes");
		pbuf__int64_opt(&e->pb, LABEL_KEY, e->bytes_str);
		pbuf__int64_opt(&e->pb, LABEL_NUM, s->bytes_label);
		pbuf__end(&e->pb, SAMPLE_LABEL, lstart);
	}
	pbuf__end(&e->pb, PROFILE_SAMPLE, start);
}

static void mapping(struct pprof_enc *e, size_t i, const struct gh_mapping *m)
{
	size_t start = pbuf__start(&e->pb);

	pbuf__uint64_opt(&e->pb, MAPPING_ID, i + 1);
	pbuf__uint64_opt(&e->pb, MAPPING_START, m->start);
	pbuf__uint64_opt(&e->pb, MAPPING_LIMIT, m->limit);
	pbuf__uint64_opt(&e->pb, MAPPING_OFFSET, m->offset);
	pbuf__int64_opt(&e->pb, MAPPING_FILENAME,
			strtab__index(&e->st, m->file));
	pbuf__int64_opt(&e->pb, MAPPING_BUILD_ID,
			strtab__index(&e->st, m->build_id));
	if (m->has_functions)
		pbuf__uint64(&e->pb, MAPPING_HAS_FUNCTIONS, 1);
	pbuf__end(&e->pb, PROFILE_MAPPING, start);
}

static void location(struct pprof_enc *e, size_t i, const struct gh_location *l)
{
	size_t start = pbuf__start(&e->pb);
	uint32_t j;

	pbuf__uint64_opt(&e->pb, LOCATION_ID, i + 1);
	pbuf__uint64_opt(&e->pb, LOCATION_MAPPING_ID, l->mapping);
	pbuf__uint64_opt(&e->pb, LOCATION_ADDRESS, l->address);
	for (j = 0; j < l->nlines; j++) {
		size_t lstart = pbuf__start(&e->pb);

		pbuf__uint64_opt(&e->pb, LINE_FUNCTION_ID,
				 (uint64_t)l->lines[j].function + 1);
		pbuf__int64_opt(&e->pb, LINE_LINE, l->lines[j].line);
		pbuf__end(&e->pb, LOCATION_LINE, lstart);
	}
	pbuf__end(&e->pb, PROFILE_LOCATION, start);
}

static void function(struct pprof_enc *e, size_t i, const struct gh_function *f)
{
	size_t start = pbuf__start(&e->pb);
	int64_t name = strtab__index(&e->st, f->name);

	pbuf__uint64_opt(&e->pb, FUNCTION_ID, i + 1);
	pbuf__int64_opt(&e->pb, FUNCTION_NAME, name);
	pbuf__int64_opt(&e->pb, FUNCTION_SYSTEM_NAME, name);
	pbuf__int64_opt(&e->pb, FUNCTION_FILENAME,
			strtab__index(&e->st, f->filename));
	pbuf__int64_opt(&e->pb, FUNCTION_START_LINE, f->start_line);
	pbuf__end(&e->pb, PROFILE_FUNCTION, start);
}

/* The caller's comments, after the labels: packed runs of up to 16 (a
 * parser concatenates repeated runs of one field). */
static void encode_comments(struct pprof_enc *e, const struct gh_write_opts *o)
{
	int64_t ids[16];
	size_t n = 0;

	for (size_t i = 0; i < o->ncomments; i++) {
		ids[n++] = strtab__index(&e->st, o->comments[i]);
		if (n == sizeof(ids) / sizeof(ids[0]) ||
		    i + 1 == o->ncomments) {
			pbuf__packed_int64(&e->pb, PROFILE_COMMENT, ids, n);
			n = 0;
		}
	}
}

/* The process's labels as comments ("pid: 1234"), which go tool pprof
 * shows with -comments: where a profile taken by a sweep came from. */
static void encode_labels(struct pprof_enc *e, const struct gh_profile *p)
{
	const char *const names[] = {
		"comm",	    "exe",    "runtime_file", "go_version",
		"build_id", "cgroup", "container_id", "container_runtime",
		"pod_uid",  "trigger"};
	const char *const values[] = {
		p->comm,     p->exe,	p->runtime_file, p->go_version,
		p->build_id, p->cgroup, p->container_id, p->container_runtime,
		p->pod_uid,  p->trigger};
	int64_t ids[1 + sizeof(names) / sizeof(names[0])];
	char line[GH_PATH_MAX + 32];
	size_t n = 0;

	snprintf(line, sizeof(line), "pid: %d", p->pid);
	ids[n++] = strtab__index_copy(&e->st, line);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!values[i][0])
			continue;
		snprintf(line, sizeof(line), "%s: %s", names[i], values[i]);
		ids[n++] = strtab__index_copy(&e->st, line);
	}
	pbuf__packed_int64(&e->pb, PROFILE_COMMENT, ids, n);
}

const char *pprof_default_sample_type(enum gh_value index)
{
	return index == GH_ALLOC_SPACE ? gh_value__name(index) : NULL;
}

static void encode_rest(struct pprof_enc *e, const struct gh_profile *p,
			const struct gh_write_opts *o)
{
	enum gh_kind k = gh_profile__kind(p);
	const char *dflt =
		k == GH_KIND_HEAP ? pprof_default_sample_type(o->index) : NULL;
	size_t i;

	for (i = 0; i < (size_t)profile__nvalues(k); i++)
		value_type(e, PROFILE_SAMPLE_TYPE,
			   profile__value_name(k, (int)i, false),
			   profile__value_name(k, (int)i, true));
	for (i = 0; i < p->nmappings; i++)
		mapping(e, i, &p->mappings[i]);
	for (i = 0; i < p->nlocations; i++)
		location(e, i, &p->locations[i]);
	for (i = 0; i < p->nfunctions; i++)
		function(e, i, &p->functions[i]);
	pbuf__int64_opt(&e->pb, PROFILE_TIME_NANOS, p->time_ns);
	pbuf__int64_opt(&e->pb, PROFILE_DURATION_NANOS, p->duration_ns);
	/* printCountCycleProfile: period type contentions/count;
	 * printCountProfile: goroutine/count */
	if (k == GH_KIND_HEAP)
		value_type(e, PROFILE_PERIOD_TYPE, "space", "bytes");
	else if (k == GH_KIND_GOROUTINE)
		value_type(e, PROFILE_PERIOD_TYPE, "goroutine", "count");
	else
		value_type(e, PROFILE_PERIOD_TYPE, "contentions", "count");
	pbuf__int64_opt(&e->pb, PROFILE_PERIOD, p->period);
	/* A sample type's name: already in the table, as written above. */
	if (dflt)
		pbuf__int64_opt(&e->pb, PROFILE_DEFAULT_SAMPLE_TYPE,
				strtab__index(&e->st, dflt));
	if (o->labels)
		encode_labels(e, p);
	encode_comments(e, o);
	/* Last: only now is every string indexed. */
	for (i = 0; i < e->st.n; i++)
		pbuf__string(&e->pb, PROFILE_STRING_TABLE, e->st.s[i]);
}

static int write_error(struct gh_err *err, const char *what)
{
	return err_set(err, GH_E_OUTPUT,
		       "cannot write the pprof output: %s; check the "
		       "output path and free disk space",
		       what);
}

/* Compress len bytes at data into e->gz; finish ends the gzip stream. */
static void deflate_bytes(struct pprof_enc *e, const uint8_t *data, size_t len,
			  bool finish)
{
	uint8_t out[16384];
	size_t off = 0;
	int rc;

	do {
		/* zlib counts in uInt; feed at most 1 GiB at a time. */
		size_t left = len - off;
		uInt chunk = left > (1u << 30) ? 1u << 30 : (uInt)left;
		bool last = finish && chunk == left;

		e->zs.next_in = (uint8_t *)data + off;
		e->zs.avail_in = chunk;
		off += chunk;
		do {
			e->zs.next_out = out;
			e->zs.avail_out = sizeof(out);
			rc = deflate(&e->zs, last ? Z_FINISH : Z_NO_FLUSH);
			if (rc == Z_STREAM_ERROR) {
				e->zfailed = true;
				return;
			}
			pbuf__bytes(&e->gz, out, sizeof(out) - e->zs.avail_out);
		} while (e->zs.avail_out == 0);
	} while (off < len);
	if (finish && rc != Z_STREAM_END)
		e->zfailed = true;
}

/* The compressing thread's share. */
static int deflate_chunk(void *ctx, const void *data, size_t len)
{
	struct pprof_enc *e = ctx;

	deflate_bytes(e, data, len, false);
	return e->zfailed || e->gz.failed ? -1 : 0;
}

/* Hand what is pending to the compressing thread, in chunk-sized pieces;
 * false if it has failed. */
static bool pipe_pending(struct pprof_enc *e)
{
	size_t off = 0, n;
	void *dst;

	while (off < e->pb.len) {
		n = e->pb.len - off < PENDING_MAX ? e->pb.len - off
						  : PENDING_MAX;
		dst = bytepipe__reserve(e->gzip, n);
		if (!dst)
			return false;
		memcpy(dst, e->pb.data + off, n);
		bytepipe__commit(e->gzip, n);
		off += n;
	}
	return true;
}

/* Compress what is pending into e->gz; finish ends the gzip stream. */
static void compress_pending(struct pprof_enc *e, bool finish)
{
	if (e->gzip && !finish) {
		if (!pipe_pending(e))
			e->zfailed = true;
		e->pb.len = 0;
		return;
	}
	if (e->gzip && bytepipe__sync(e->gzip))
		e->zfailed = true;
	deflate_bytes(e, e->pb.data, e->pb.len, finish);
	e->pb.len = 0;
}

static void enc_fini(struct pprof_enc *e)
{
	bytepipe__free(e->gzip);
	if (e->zs_live)
		deflateEnd(&e->zs);
	pbuf__free(&e->pb);
	pbuf__free(&e->gz);
	strtab__free(&e->st);
	memset(e, 0, sizeof(*e));
}

static int enc_init(struct pprof_enc *e, bool own_thread, struct gh_err *err)
{
	memset(e, 0, sizeof(*e));
	/* 15 + 16: 32 KiB window and a gzip rather than zlib wrapper, as
	 * compress/gzip writes. */
	if (deflateInit2(&e->zs, GZIP_LEVEL, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return err_set(err, GH_E_FAILED,
			       "cannot start gzip compression: out of "
			       "memory");
	e->zs_live = true;
	/* Without a thread, compress on this one: slower, not wrong. */
	if (own_thread &&
	    bytepipe__new(&e->gzip, PENDING_MAX, deflate_chunk, e))
		e->gzip = NULL;
	strtab__index(&e->st, "");
	return 0;
}

/* The pprof renderer: one encoder, restarted when the build is. */
struct pprof_render {
	struct render_head h;
	bool own_thread;
	bool finished;
	struct pprof_enc e;
};

static int pprof_open(void **st, const struct gh_write_opts *o, bool own_thread,
		      struct gh_err *err)
{
	struct pprof_render *r = calloc(1, sizeof(*r));

	*st = r;
	if (!r)
		return err_set(err, GH_E_FAILED, "out of memory");
	r->h = (struct render_head){&render_pprof, *o};
	r->own_thread = own_thread;
	return enc_init(&r->e, own_thread, err);
}

static int pprof_sample(void *st, const struct gh_profile *p,
			const struct gh_sample *s)
{
	struct pprof_render *r = st;

	if (!r->e.zs_live)
		return -1;
	sample(&r->e, p, s, profile__nvalues(gh_profile__kind(p)));
	if (r->e.pb.len >= PENDING_MAX)
		compress_pending(&r->e, false);
	return r->e.pb.failed || r->e.st.failed ? -1 : 0;
}

static void pprof_reset(void *st)
{
	struct pprof_render *r = st;

	enc_fini(&r->e);
	/* Out of memory leaves the encoder dead: the next sample fails. */
	enc_init(&r->e, r->own_thread, NULL);
	r->finished = false;
}

/* Encode the rest and end the gzip stream; only the compressed bytes are
 * kept from here on. */
static int pprof_finish(void *st, const struct gh_profile *p,
			struct gh_err *err)
{
	struct pprof_render *r = st;
	struct pprof_enc *e = &r->e;
	bool nomem;

	if (!e->zs_live)
		return err_set(err, GH_E_FAILED,
			       "out of memory encoding the pprof profile");
	/* An index that names nothing is a bug in the profile's builder,
	 * not something to write. */
	if (!refs_ok(p))
		return err_set(err, GH_E_FAILED,
			       "internal error: the profile refers to a "
			       "missing location, mapping or function; please "
			       "report it");
	encode_rest(e, p, &r->h.o);
	compress_pending(e, true);
	nomem = e->pb.failed || e->st.failed || e->gz.failed;
	bytepipe__free(e->gzip);
	e->gzip = NULL;
	deflateEnd(&e->zs);
	e->zs_live = false;
	pbuf__free(&e->pb);
	strtab__free(&e->st);
	if (nomem)
		return err_set(err, GH_E_FAILED,
			       "out of memory encoding the pprof profile");
	if (e->zfailed)
		return err_set(err, GH_E_FAILED, "gzip compression failed");
	r->finished = true;
	return 0;
}

static int pprof_write(void *st, const struct gh_profile *p, FILE *f,
		       struct gh_err *err)
{
	struct pprof_render *r = st;

	(void)p;
	if (!r->finished)
		return err_set(err, GH_E_FAILED,
			       "internal error: the pprof profile was not "
			       "finished; please report it");
	if (fwrite(r->e.gz.data, 1, r->e.gz.len, f) != r->e.gz.len ||
	    fflush(f) || ferror(f))
		return write_error(err, strerror(errno));
	return 0;
}

static void pprof_free(void *st)
{
	struct pprof_render *r = st;

	if (!r)
		return;
	enc_fini(&r->e);
	free(r);
}

const struct render_ops render_pprof = {
	.format = GH_FORMAT_PPROF,
	.open = pprof_open,
	.sink = {.sample = pprof_sample,
		 .reset = pprof_reset,
		 .finish = pprof_finish,
		 .free = pprof_free},
	.write = pprof_write,
};
