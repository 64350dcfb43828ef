/* gzstream.c - see gzstream.h. On the pipe, each call is messages: a
 * header (what, and a length, a CRC or a piece's index) and a part's
 * bytes. */
#include <stdlib.h>
#include <string.h>

#include "base/bytepipe.h"
#include "write/gzstream.h"

/* Bytes handed to the compressing thread at a time. */
#define PIPE_CHUNK (256u << 10)

/* Bytes of the last piece; bytes of a piece whose END gives its CRC-32;
 * END; a kept piece. */
enum gzmsg { MSG_PART, MSG_PIECE, MSG_END, MSG_REUSE };

struct msghdr {
	uint32_t what, n;
};

/* Deflate len bytes of data (none: just flush) into g->gz. */
static void deflate_into(struct gzstream *g, const uint8_t *data, size_t len,
			 int flush)
{
	uint8_t out[16384];
	int rc;

	g->zs.next_in = (uint8_t *)data;
	g->zs.avail_in = (uInt)len;
	do {
		g->zs.next_out = out;
		g->zs.avail_out = sizeof(out);
		rc = deflate(&g->zs, flush);
		if (rc == Z_STREAM_ERROR) {
			g->failed = true;
			return;
		}
		pbuf__bytes(&g->gz, out, sizeof(out) - g->zs.avail_out);
	} while (g->zs.avail_out == 0);
	if (flush == Z_FINISH && rc != Z_STREAM_END)
		g->failed = true;
}

/* Bytes of the piece under way; with crc, their CRC-32 taken too. */
static void do_part(struct gzstream *g, const uint8_t *data, size_t len,
		    bool crc)
{
	if (crc)
		g->piece.crc = (uint32_t)crc32_z(g->piece.crc, data, len);
	g->piece.raw_len += len;
	/* zlib counts in uInt: at most 1 GiB at a time. */
	for (size_t off = 0, n; off < len; off += n) {
		n = len - off < (1u << 30) ? len - off : 1u << 30;
		deflate_into(g, data + off, n, Z_NO_FLUSH);
	}
}

/* Piece p (its gz range set) joins the stream. */
static void ended(struct gzstream *g, const struct gzpiece *p)
{
	g->crc = (uint32_t)crc32_combine(g->crc, p->crc, (z_off_t)p->raw_len);
	g->len += p->raw_len;
	if (g->nout == g->cap_out) {
		size_t cap = g->cap_out ? 2 * g->cap_out : 64;
		void *v = realloc(g->out, cap * sizeof(*g->out));

		if (!v) {
			g->failed = true;
			return;
		}
		g->out = v;
		g->cap_out = cap;
	}
	g->out[g->nout++] = *p;
}

static void do_end(struct gzstream *g, uint32_t crc)
{
	deflate_into(g, NULL, 0, Z_SYNC_FLUSH);
	if (deflateReset(&g->zs) != Z_OK)
		g->failed = true;
	g->piece.crc = crc;
	g->piece.gz_len = g->gz.len - g->piece.gz_off;
	ended(g, &g->piece);
	g->piece = (struct gzpiece){.gz_off = g->gz.len};
}

static void do_reuse(struct gzstream *g, size_t i)
{
	struct gzpiece p = g->old->v[i];

	pbuf__bytes(&g->gz, g->old->gz + p.gz_off, p.gz_len);
	p.gz_off = g->gz.len - p.gz_len;
	ended(g, &p);
	g->piece.gz_off = g->gz.len;
}

/* The compressing thread's share: the messages in one chunk. */
static int consume(void *ctx, const void *data, size_t len)
{
	struct gzstream *g = ctx;
	const uint8_t *d = data;
	struct msghdr h;
	size_t off = 0;

	while (off + sizeof(h) <= len && !g->failed) {
		memcpy(&h, d + off, sizeof(h));
		off += sizeof(h);
		if (h.what == MSG_PART || h.what == MSG_PIECE) {
			if (h.n > len - off)
				return -1;
			do_part(g, d + off, h.n, h.what == MSG_PART);
			off += h.n;
		} else if (h.what == MSG_END) {
			do_end(g, h.n);
		} else {
			do_reuse(g, h.n);
		}
	}
	return g->failed || g->gz.failed ? -1 : 0;
}

/* A message for the thread: header and n bytes of data; false once the
 * thread has failed. */
static bool send(struct gzstream *g, enum gzmsg what, uint32_t n,
		 const void *data, size_t len)
{
	struct msghdr h = {what, n};
	uint8_t *dst = bytepipe__reserve(g->pipe, sizeof(h) + len);

	if (!dst)
		return false;
	memcpy(dst, &h, sizeof(h));
	if (len)
		memcpy(dst + sizeof(h), data, len);
	bytepipe__commit(g->pipe, sizeof(h) + len);
	return true;
}

/* len bytes of data as MSG_PART or MSG_PIECE messages, or compressed on
 * this thread. */
static void parts(struct gzstream *g, enum gzmsg what, const void *data,
		  size_t len)
{
	const size_t max = PIPE_CHUNK - sizeof(struct msghdr);
	const uint8_t *d = data;

	if (!g->pipe) {
		do_part(g, d, len, what == MSG_PART);
		return;
	}
	for (size_t off = 0, n; off < len; off += n) {
		n = len - off < max ? len - off : max;
		if (!send(g, what, (uint32_t)n, d + off, n))
			g->failed = true;
	}
}

void gzstream__part(struct gzstream *g, const void *data, size_t len)
{
	parts(g, MSG_PART, data, len);
}

void gzstream__piece(struct gzstream *g, const void *data, size_t len,
		     uint32_t crc)
{
	parts(g, MSG_PIECE, data, len);
	if (!g->pipe)
		do_end(g, crc);
	else if (!send(g, MSG_END, crc, NULL, 0))
		g->failed = true;
}

void gzstream__reuse(struct gzstream *g, size_t i)
{
	if (!g->pipe)
		do_reuse(g, i);
	else if (!send(g, MSG_REUSE, (uint32_t)i, NULL, 0))
		g->failed = true;
}

/* RFC 1952's header as zlib writes it: no name, no time, the level's
 * extra flags (4: fastest, 2: best), Unix. */
static void header(struct pbuf *b, int level)
{
	uint8_t h[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};

	h[8] = level == 9 ? 2 : level < 2 ? 4 : 0;
	pbuf__bytes(b, h, sizeof(h));
}

static void le32(struct pbuf *b, uint32_t x)
{
	uint8_t v[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16),
			(uint8_t)(x >> 24)};

	pbuf__bytes(b, v, sizeof(v));
}

int gzstream__finish(struct gzstream *g)
{
	struct gzpiece last;

	if (g->pipe && bytepipe__sync(g->pipe))
		g->failed = true;
	bytepipe__free(g->pipe);
	g->pipe = NULL;
	if (!g->failed)
		deflate_into(g, NULL, 0, Z_FINISH);
	last = g->piece;
	g->crc = (uint32_t)crc32_combine(g->crc, last.crc,
					 (z_off_t)last.raw_len);
	g->len += last.raw_len;
	le32(&g->gz, g->crc);
	le32(&g->gz, (uint32_t)g->len);
	deflateEnd(&g->zs);
	g->zs_live = false;
	return g->failed || g->gz.failed ? -1 : 0;
}

int gzstream__init(struct gzstream *g, int level, bool own_thread,
		   const struct gzmemo *old)
{
	memset(g, 0, sizeof(*g));
	g->old = old;
	/* -15: raw deflate with a 32 KiB window; the wrapper is ours. */
	if (deflateInit2(&g->zs, level, Z_DEFLATED, -15, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	g->zs_live = true;
	header(&g->gz, level);
	g->piece.gz_off = g->gz.len;
	/* Without a thread, compress on this one: slower, not wrong. */
	if (own_thread && bytepipe__new(&g->pipe, PIPE_CHUNK, consume, g))
		g->pipe = NULL;
	return 0;
}

void gzstream__fini(struct gzstream *g)
{
	bytepipe__free(g->pipe);
	if (g->zs_live)
		deflateEnd(&g->zs);
	pbuf__free(&g->gz);
	free(g->out);
	memset(g, 0, sizeof(*g));
}
