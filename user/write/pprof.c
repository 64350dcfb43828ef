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

#include "base/err.h"
#include "goheap.h"
#include "profile/refs.h"
#include "write/gzstream.h"
#include "write/pbuf.h"
#include "write/piecesamples.h"
#include "write/pprofmeta.h"
#include "write/proto.h"
#include "write/render.h"
#include "write/strtab.h"

/* A profile being encoded: samples are added as they are built (the rest
 * is encoded at the end), so a huge profile never has to sit in memory
 * uncompressed. Protobuf fields may come in any order. Once finished, gs.gz
 * holds the whole gzip stream, written as often as asked. With a memo of
 * the process's last profile (gzmemo.h), the samples are compressed piece
 * by piece, and kept for the next profile; a piece's plain samples wait
 * unencoded in q until it ends (piecesamples.h). */
struct pprof_enc {
	struct pbuf pb; /* encoded, not yet compressed; with a memo, the
			   piece under way when its samples were encoded
			   at once (labelled ones: the piece is never
			   matched) */
	struct piecesamples q;
	struct strtab st;
	struct gzstream gs;
	bool live;	   /* gs made, not finished */
	int64_t bytes_str; /* index of "bytes", once indexed (0: not yet) */
	struct gzmemo *memo;
	struct gzpiece *pv; /* the pieces so far: key, length, checksums */
	size_t npv, cap_pv;
	uint64_t last_key; /* the last sample's (0: none) */
	bool cut;	   /* a piece ends after the last sample */
	size_t reused;	   /* pieces copied compressed */
};

/* Bytes of encoded samples gathered before they are compressed. */
#define PENDING_MAX (256u << 10)
/* A piece ends after a sample whose stack's hash has its top 12 bits
 * clear: every 4096 samples or so (about 160 KiB of a heap profile), a
 * size at which deflate loses little to starting afresh (a 200k-bucket
 * profile: 568 KB in one piece, 572 in about 50); and at the latest after
 * PIECE_SAMPLES samples, or PIECE_MAX bytes encoded at once. */
#define CUT_SHIFT     52
#define PIECE_SAMPLES (1u << 14)
#define PIECE_MAX     (1u << 20)
/* zlib level 2, not runtime/pprof's BestSpeed (1): on heap profiles, whose
 * samples repeat long runs of location ids, level 2 measured both faster
 * (260 vs 175 MB/s) and smaller (5.6 vs 9.4 MB for 1M samples). */
#define GZIP_LEVEL 2

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

/* The string index of the "bytes" label's key: every heap sample has it,
 * so it is looked up once (0 while the table cannot grow). */
static int64_t bytes_key(struct pprof_enc *e)
{
	if (!e->bytes_str)
		e->bytes_str = strtab__index(&e->st, "bytes");
	return e->bytes_str;
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
		if (bytes_key(e))
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

/* s was the last sample: whether a piece ends after it, and its key, its
 * stack's and size's hash (a bucket's identity; 0 is none). Returns its
 * stack's hash. */
static uint64_t note_sample(struct pprof_enc *e, const struct gh_sample *s)
{
	/* A bucket's stack always gives the same ids (locmemo.h), so pieces
	 * end at the same buckets in every profile. */
	uint64_t h = piecesamples__ids_hash(s->locs, s->nlocs);
	uint64_t key = (h ^ (uint64_t)s->bytes_label) * 0xc4ceb9fe1a85ec53u;

	e->last_key = key ? key : 1;
	e->cut = h >> CUT_SHIFT == 0;
	return h;
}

/* The piece's samples waiting in q, encoded after what pb holds. */
static void encode_waiting(struct pprof_enc *e)
{
	for (size_t i = 0; i < e->q.n; i++) {
		struct gh_sample s = piecesamples__get(&e->q, i);

		plain_sample(e, &s, e->q.nvalues);
	}
	piecesamples__clear(&e->q);
}

/* A plain sample with a memo: it waits in q, unless the piece has
 * samples encoded already. */
static void memo_sample(struct pprof_enc *e, const struct gh_sample *s, int n)
{
	uint64_t h = note_sample(e, s);

	if (e->pb.len) {
		plain_sample(e, s, n);
		return;
	}
	if (s->has_bytes_label)
		bytes_key(e);
	piecesamples__add(&e->q, s, n, h, e->bytes_str);
}

/* n values: the heap's four, a block or mutex profile's two, a goroutine
 * profile's one. */
static void sample(struct pprof_enc *e, const struct gh_profile *p,
		   const struct gh_sample *s, int n)
{
	size_t start, nkv;
	char *const *kv = profile__labels_of(p, s, &nkv);

	if (!nkv && !s->base) {
		if (e->memo)
			memo_sample(e, s, n);
		else
			plain_sample(e, s, n);
		return;
	}
	if (e->memo)
		encode_waiting(e); /* in order, before this one */
	e->last_key = 0;
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

		pbuf__int64_opt(&e->pb, LABEL_KEY, bytes_key(e));
		pbuf__int64_opt(&e->pb, LABEL_NUM, s->bytes_label);
		pbuf__end(&e->pb, SAMPLE_LABEL, lstart);
	}
	pbuf__end(&e->pb, PROFILE_SAMPLE, start);
}

const char *pprof_default_sample_type(enum gh_value index)
{
	return index == GH_ALLOC_SPACE ? gh_value__name(index) : NULL;
}

static int write_error(struct gh_err *err, const char *what)
{
	return err_set(err, GH_E_OUTPUT,
		       "cannot write the pprof output: %s; check the "
		       "output path and free disk space",
		       what);
}

/* With a memo: the piece under way ends, copied compressed from the memo
 * when its samples, all waiting in q, have a kept piece's digest; else
 * encoded (all of pb then) and compressed. A piece with samples encoded
 * at once has key 0: never matched. */
static void end_piece(struct pprof_enc *e)
{
	struct gzpiece p = {.key = e->pb.len ? 0 : e->last_key};
	long i = -1;

	e->cut = false;
	if ((!e->q.n && !e->pb.len) || e->pb.failed || e->q.failed)
		return;
	if (e->npv == e->cap_pv) {
		size_t cap = e->cap_pv ? 2 * e->cap_pv : 64;
		void *v = realloc(e->pv, cap * sizeof(*e->pv));

		if (!v) {
			e->pb.failed = true;
			return;
		}
		e->pv = v;
		e->cap_pv = cap;
	}
	if (p.key) {
		p.digest = piecesamples__digest(&e->q);
		i = gzmemo__find(e->memo, &p);
	}
	if (i >= 0) {
		p.raw_len = e->memo->v[i].raw_len;
		p.crc = e->memo->v[i].crc;
		gzstream__reuse(&e->gs, (size_t)i);
		e->reused++;
	} else {
		encode_waiting(e);
		p.raw_len = e->pb.len;
		p.crc = (uint32_t)crc32_z(0, e->pb.data, p.raw_len);
		gzstream__piece(&e->gs, e->pb.data, p.raw_len, p.crc);
	}
	piecesamples__clear(&e->q);
	e->pv[e->npv++] = p;
	e->pb.len = 0;
}

/* After a sample: hand what is pending to the compressor when it is due. */
static void after_sample(struct pprof_enc *e)
{
	if (!e->memo) {
		if (e->pb.len >= PENDING_MAX) {
			gzstream__part(&e->gs, e->pb.data, e->pb.len);
			e->pb.len = 0;
		}
	} else if (e->cut || e->q.n >= PIECE_SAMPLES ||
		   e->pb.len >= PIECE_MAX) {
		end_piece(e);
	}
}

/* The memo becomes this profile's: its pieces, their compressed bytes
 * the stream's. */
static void keep_pieces(struct pprof_enc *e)
{
	const struct gzstream *g = &e->gs;

	if (g->nout != e->npv) {
		gzmemo__clear(e->memo);
		return;
	}
	for (size_t i = 0; i < e->npv; i++) {
		e->pv[i].gz_off = g->out[i].gz_off;
		e->pv[i].gz_len = g->out[i].gz_len;
	}
	gzmemo__replace(e->memo, e->pv, e->npv, g->gz.data);
	e->memo->reused = e->reused;
	e->memo->made = e->npv - e->reused;
	e->pv = NULL;
	e->npv = e->cap_pv = 0;
}

static void enc_fini(struct pprof_enc *e)
{
	if (e->live)
		gzstream__fini(&e->gs);
	pbuf__free(&e->pb);
	piecesamples__free(&e->q);
	strtab__free(&e->st);
	free(e->pv);
	memset(e, 0, sizeof(*e));
}

static int enc_init(struct pprof_enc *e, bool own_thread, struct gzmemo *memo,
		    struct gh_err *err)
{
	memset(e, 0, sizeof(*e));
	if (gzstream__init(&e->gs, GZIP_LEVEL, own_thread, memo))
		return err_set(err, GH_E_FAILED,
			       "cannot start gzip compression: out of "
			       "memory");
	e->live = true;
	e->memo = memo;
	strtab__index(&e->st, "");
	return 0;
}

/* The pprof renderer: one encoder, restarted when the build is. */
struct pprof_render {
	struct render_head h;
	bool own_thread;
	bool finished;
	struct gzmemo *memo;
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
	return enc_init(&r->e, own_thread, NULL, err);
}

void render_pprof_memo(const struct psink *s, struct gzmemo *m)
{
	struct pprof_render *r = s->st;

	if (s->ops != &render_pprof.sink || r->memo || !m)
		return;
	if (!m->primed) {
		m->primed = true;
		return;
	}
	/* No sample yet: the encoder and its stream take the memo as
	 * enc_init would have. */
	r->memo = r->e.memo = m;
	r->e.gs.old = m;
}

static int pprof_sample(void *st, const struct gh_profile *p,
			const struct gh_sample *s)
{
	struct pprof_render *r = st;

	if (!r->e.live)
		return -1;
	sample(&r->e, p, s, profile__nvalues(gh_profile__kind(p)));
	after_sample(&r->e);
	if (r->e.pb.failed || r->e.q.failed || r->e.st.failed || r->e.gs.failed)
		return -1;
	return 0;
}

static void pprof_reset(void *st)
{
	struct pprof_render *r = st;

	enc_fini(&r->e);
	/* Out of memory leaves the encoder dead: the next sample fails. */
	enc_init(&r->e, r->own_thread, r->memo, NULL);
	r->finished = false;
}

/* Encode the rest and end the gzip stream; only the compressed bytes are
 * kept from here on. */
static int pprof_finish(void *st, const struct gh_profile *p,
			struct gh_err *err)
{
	struct pprof_render *r = st;
	struct pprof_enc *e = &r->e;
	int zrc;

	if (!e->live)
		return err_set(err, GH_E_FAILED,
			       "out of memory encoding the pprof profile");
	/* An index that names nothing is a bug in the profile's builder,
	 * not something to write. */
	if (!refs_ok(p))
		return err_set(err, GH_E_FAILED,
			       "internal error: the profile refers to a "
			       "missing location, mapping or function; please "
			       "report it");
	if (e->memo)
		end_piece(e);
	pprof_meta__encode(&e->pb, &e->st, p, &r->h.o);
	gzstream__part(&e->gs, e->pb.data, e->pb.len);
	zrc = gzstream__finish(&e->gs);
	if (e->pb.failed || e->q.failed || e->st.failed || e->gs.gz.failed)
		return err_set(err, GH_E_FAILED,
			       "out of memory encoding the pprof profile");
	if (zrc)
		return err_set(err, GH_E_FAILED, "gzip compression failed");
	if (e->memo)
		keep_pieces(e);
	pbuf__free(&e->pb);
	strtab__free(&e->st);
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
	if (fwrite(r->e.gs.gz.data, 1, r->e.gs.gz.len, f) != r->e.gs.gz.len ||
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
