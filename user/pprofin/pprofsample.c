/* pprofsample.c - step 5 of reading a Profile message back: its samples,
 * each one's location IDs resolved, its values put in gh_value order and
 * its labels checked: a heap profile's one "bytes" label, a diff's
 * pprof::base, a goroutine profile's string labels (read, not kept). */
#include <stdlib.h>

#include "base/err.h"
#include "pprofin/pprofreader.h"
#include "write/proto.h"

struct sample_ctx {
	struct gh_sample *s;
	size_t nids, nvals;
	uint64_t vals[GH_NVALUES];
	bool counting;
};

static int read_label(struct reader *r, struct gh_sample *s, struct pb_msg m)
{
	struct nums n = {{0}};
	struct pb_msg key = {0}, str = {0};

	if (reader__each_field(r, m, "a label", reader__nums_field, &n) ||
	    reader__str_at(r, n.v[LABEL_KEY], &key) ||
	    reader__str_at(r, n.v[LABEL_STR], &str))
		return -1;
	if (r->kind == GH_KIND_HEAP && pb_msg__is(&key, "bytes") &&
	    !n.v[LABEL_STR] && !s->has_bytes_label) {
		s->has_bytes_label = true;
		s->bytes_label = (int64_t)n.v[LABEL_NUM];
		return 0;
	}
	if (pb_msg__is(&key, PPROF_BASE_LABEL) && pb_msg__is(&str, "true") &&
	    !s->base) {
		s->base = true;
		return 0;
	}
	/* a goroutine's pprof labels (and state=running): checked, not
	 * kept (a sample is keyed by its stack alone; see gh_profile__read) */
	if (r->kind == GH_KIND_GOROUTINE && !n.v[LABEL_NUM])
		return 0;
	return reader__bad(r, r->kind == GH_KIND_GOROUTINE
				      ? "a sample has a label that is not a "
					"string (goroutine profiles have "
					"string labels only)"
				      : "a sample has a label other than one "
					"\"bytes\" (heap profiles have no "
					"others)");
}

static int sample_field(struct reader *r, const struct pb_field *f, void *ctx)
{
	struct sample_ctx *c = ctx;

	switch (f->no) {
	case SAMPLE_LOCATION:
		if (pb_field__ints(f, c->counting ? NULL : r->ids,
				   c->counting ? SIZE_MAX : r->ids_cap,
				   &c->nids))
			return reader__bad(
				r, "a sample's location IDs are malformed");
		return 0;
	case SAMPLE_VALUE:
		if (pb_field__ints(f, c->vals, GH_NVALUES, &c->nvals))
			return reader__bad(r,
					   "a sample has more values than the "
					   "profile has sample types");
		return 0;
	case SAMPLE_LABEL:
		if (c->counting)
			return 0;
		if (f->wire != WIRE_LEN)
			return reader__bad(r, "a label is not a message");
		return read_label(r, c->s, f->sub);
	}
	return 0;
}

/* Room for n IDs in r->ids. */
static int ids_room(struct reader *r, size_t n)
{
	uint64_t *v;

	if (n <= r->ids_cap)
		return 0;
	if (!(v = realloc(r->ids, n * sizeof(*v))))
		return err_set(r->err, GH_E_FAILED, "out of memory reading %s",
			       r->name);
	r->ids = v;
	r->ids_cap = n;
	return 0;
}

static int read_sample(struct reader *r, struct pb_msg m)
{
	struct gh_sample *s = &r->p->samples[r->p->nsamples];
	struct sample_ctx c = {.s = s, .counting = true};

	if (reader__each_field(r, m, "a sample", sample_field, &c))
		return -1;
	if (c.nvals != r->nvalues)
		return reader__bad(
			r, "a sample has fewer values than the profile has "
			   "sample types");
	if (c.nids > UINT32_MAX)
		return reader__bad(r, "a sample has more than 4G locations");
	if (ids_room(r, c.nids))
		return -1;
	r->p->nsamples++;
	if (c.nids && !(s->locs = calloc(c.nids, sizeof(*s->locs))))
		return err_set(r->err, GH_E_FAILED, "out of memory reading %s",
			       r->name);
	c = (struct sample_ctx){.s = s};
	if (reader__each_field(r, m, "a sample", sample_field, &c))
		return -1;
	for (size_t i = 0; i < c.nids; i++)
		if (reader__find_id(r, &r->loc_ids, r->ids[i], &s->locs[i]))
			return -1;
	s->nlocs = (uint32_t)c.nids;
	for (size_t i = 0; i < r->nvalues; i++)
		s->value[r->perm[i]] = (int64_t)c.vals[i];
	return 0;
}

int pprofsample_field(struct reader *r, const struct pb_field *f, void *ctx)
{
	(void)ctx;
	if (f->no != PROFILE_SAMPLE)
		return 0;
	if (f->wire != WIRE_LEN)
		return reader__bad(r, "a sample is not a message");
	return read_sample(r, f->sub);
}
