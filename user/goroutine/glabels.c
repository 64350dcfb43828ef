/* glabels.c - pprof labels from outside. g.labels points at what
 * runtime/pprof set (runtime_setProfLabel): up to 1.23 a *labelMap, a
 * map[string]string, whose hmap (runtime/map.go: count, flags, B, ...,
 * buckets, oldbuckets) holds buckets of 8 string keys and 8 string
 * values; from 1.24 a *labelMap holding LabelSet{list []label}, a slice
 * of {key, value string}. Both are small (a handful of labels); every
 * length is bounded before it is read. A map caught growing (oldbuckets
 * set) is not read: its entries are split between two tables. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goroutine/glabels.h"

#define MAX_LABELS 256
#define MAX_STR	   4096
#define MAX_B	   6 /* 64 buckets hold far more than MAX_LABELS */
#define BUCKET_BYTES                                                           \
	272 /* tophash[8], keys[8]string, elems[8]string, overflow */
#define MIN_TOPHASH 5

struct kv {
	char *key, *val;
};

struct strbuf {
	char *p;
	size_t len, cap;
	bool failed;
};

static void sb_put(struct strbuf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p, b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

/* strconv.Quote for the text labels hold: printable ASCII and UTF-8
 * bytes as they are, the usual escapes, other control bytes as \x..  */
static void sb_quote(struct strbuf *b, const char *s)
{
	char esc[8];

	sb_put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *e = NULL;

		switch (c) {
		case '"':
			e = "\\\"";
			break;
		case '\\':
			e = "\\\\";
			break;
		case '\a':
			e = "\\a";
			break;
		case '\b':
			e = "\\b";
			break;
		case '\f':
			e = "\\f";
			break;
		case '\n':
			e = "\\n";
			break;
		case '\r':
			e = "\\r";
			break;
		case '\t':
			e = "\\t";
			break;
		case '\v':
			e = "\\v";
			break;
		}
		if (e) {
			sb_put(b, e, strlen(e));
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			sb_put(b, esc, 4);
		} else {
			sb_put(b, (const char *)&c, 1);
		}
	}
	sb_put(b, "\"", 1);
}

/* A Go string header's bytes, NUL-terminated. */
static char *read_str(const struct gfetch *f, const uint8_t hdr[16])
{
	uint64_t p, n;
	char *s;

	memcpy(&p, hdr, 8);
	memcpy(&n, hdr + 8, 8);
	if (n > MAX_STR || (n && !p))
		return errno = EFBIG, NULL;
	s = malloc(n + 1);
	if (!s)
		return NULL;
	if (n && f->read(f->ctx, p, s, n) < 0) {
		free(s);
		return NULL;
	}
	s[n] = 0;
	return s;
}

static int add_kv(struct kv *v, size_t *n, const struct gfetch *f,
		  const uint8_t *k, const uint8_t *val)
{
	if (*n >= MAX_LABELS)
		return errno = EFBIG, -1;
	v[*n].key = read_str(f, k);
	v[*n].val = v[*n].key ? read_str(f, val) : NULL;
	if (!v[*n].val) {
		free(v[*n].key);
		return -1;
	}
	(*n)++;
	return 0;
}

static int read_slice(const struct gfetch *f, uint64_t lm, struct kv *v,
		      size_t *n)
{
	uint64_t hdr[3];
	uint8_t l[32];

	if (f->read(f->ctx, lm, hdr, sizeof(hdr)) < 0)
		return -1;
	if (hdr[1] > MAX_LABELS)
		return errno = EFBIG, -1;
	for (uint64_t i = 0; i < hdr[1]; i++)
		if (f->read(f->ctx, hdr[0] + 32 * i, l, sizeof(l)) < 0 ||
		    add_kv(v, n, f, l, l + 16) < 0)
			return -1;
	return 0;
}

static int read_map(const struct gfetch *f, uint64_t lm, struct kv *v,
		    size_t *n)
{
	uint8_t h[48], bk[BUCKET_BYTES];
	uint64_t hmap, count, buckets, old, b, next;

	if (f->read(f->ctx, lm, &hmap, 8) < 0)
		return -1;
	if (!hmap)
		return 0;
	if (f->read(f->ctx, hmap, h, sizeof(h)) < 0)
		return -1;
	memcpy(&count, h, 8);
	memcpy(&buckets, h + 16, 8);
	memcpy(&old, h + 24, 8);
	if (old)
		return errno = EAGAIN, -1;
	if (count > MAX_LABELS || h[9] > MAX_B)
		return errno = EFBIG, -1;
	for (b = 0; b < (1u << h[9]) && *n < count; b++) {
		next = buckets + b * BUCKET_BYTES;
		/* A chain longer than the map's count is not a chain. */
		for (size_t hops = 0; next && hops <= count; hops++) {
			if (f->read(f->ctx, next, bk, sizeof(bk)) < 0)
				return -1;
			for (int i = 0; i < 8; i++)
				if (bk[i] >= MIN_TOPHASH &&
				    add_kv(v, n, f, bk + 8 + 16 * i,
					   bk + 136 + 16 * i) < 0)
					return -1;
			memcpy(&next, bk + 264, 8);
		}
	}
	return *n == count ? 0 : (errno = EAGAIN, -1);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

/* traceback.go tracebackStringNeedsQuoting */
static bool needs_quoting(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '/' ||
		      *s == '_'))
			return true;
	return false;
}

/* goroutineheader's labels: the list in its order (sorted by key), each
 * quoted only when it needs it. */
static char *header_of(struct kv *v, size_t n)
{
	struct strbuf b = {0};

	qsort(v, n, sizeof(*v), cmp_key);
	sb_put(&b, " {", 2);
	for (size_t i = 0; i < n; i++) {
		const char *s[2] = {v[i].key, v[i].val};

		for (int k = 0; k < 2; k++) {
			if (needs_quoting(s[k]))
				sb_quote(&b, s[k]);
			else
				sb_put(&b, s[k], strlen(s[k]));
			if (k == 0)
				sb_put(&b, ": ", 2);
		}
		if (i + 1 < n)
			sb_put(&b, ", ", 2);
	}
	sb_put(&b, "}", 1);
	if (b.failed) {
		free(b.p);
		return NULL;
	}
	return b.p;
}

/* The pairs handed out as kv[2i], kv[2i+1], sorted by key (the order of
 * 1.24's list; a map's has none): v's strings move there. */
static int hand_out(struct kv *v, size_t n, char ***kv)
{
	*kv = malloc((n ? 2 * n : 1) * sizeof(**kv));
	if (!*kv)
		return -1;
	qsort(v, n, sizeof(*v), cmp_key);
	for (size_t i = 0; i < n; i++) {
		(*kv)[2 * i] = v[i].key;
		(*kv)[2 * i + 1] = v[i].val;
		v[i].key = v[i].val = NULL;
	}
	return 0;
}

char *glabels_read(const struct glayout *L, const struct gfetch *f,
		   uint64_t labels, bool running, char **header, char ***kv,
		   size_t *nkv)
{
	struct kv *v = calloc(MAX_LABELS, sizeof(*v));
	char **pairs = calloc(MAX_LABELS, sizeof(*pairs));
	struct strbuf b = {0};
	size_t n = 0, i;
	int rc;

	if (!v || !pairs) {
		free(v);
		free(pairs);
		return NULL;
	}
	*header = NULL;
	rc = !labels			       ? 0
	     : L->labels_kind == GLABELS_SLICE ? read_slice(f, labels, v, &n)
					       : read_map(f, labels, v, &n);
	if (rc == 0 && L->traceback_labels && n && !(*header = header_of(v, n)))
		rc = -1;
	/* A running goroutine says so, as a label of its sample. */
	if (rc == 0 && running) {
		if (n == MAX_LABELS)
			free(v[--n].key), free(v[n].val);
		v[n].key = strdup("state");
		v[n].val = strdup("running");
		rc = v[n].key && v[n].val ? 0 : -1;
		n++;
	}
	/* fmt.Sprintf("%q:%q"), sorted as strings, joined by ", ". */
	for (i = 0; rc == 0 && i < n; i++) {
		struct strbuf p = {0};

		sb_quote(&p, v[i].key);
		sb_put(&p, ":", 1);
		sb_quote(&p, v[i].val);
		if (p.failed)
			rc = -1;
		pairs[i] = p.p;
	}
	if (rc == 0) {
		qsort(pairs, n, sizeof(*pairs), cmp_str);
		sb_put(&b, "{", 1);
		for (i = 0; i < n; i++) {
			if (i)
				sb_put(&b, ", ", 2);
			sb_put(&b, pairs[i], strlen(pairs[i]));
		}
		sb_put(&b, "}", 1);
	}
	if (rc == 0 && kv && hand_out(v, n, kv) == 0)
		*nkv = n;
	else if (kv)
		rc = -1;
	for (i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].val);
		free(pairs[i]);
	}
	free(v);
	free(pairs);
	if (rc || b.failed) {
		if (kv && rc == 0) {
			for (i = 0; i < 2 * *nkv; i++)
				free((*kv)[i]);
			free(*kv);
		}
		if (kv)
			*kv = NULL, *nkv = 0;
		free(b.p);
		free(*header);
		*header = NULL;
		return NULL;
	}
	return b.p;
}
