/* pprofmsg.c - profile.proto's Profile message into a gh_profile, every
 * index checked against its table, sizes bounded before allocating; one
 * walk of the top-level message per step, its fields in any order. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/u64map.h"
#include "pprofin/pbdec.h"
#include "pprofin/pprofmsg.h"
#include "profile/summary.h"
#include "write/proto.h"

#define MAX_ENTRIES (1u << 24)	 /* of each top-level repeated field */
#define MAX_COPIED  (256u << 20) /* bytes of strings copied out */
#define NFIELDS	    16		 /* top-level fields counted */
#define TYPES_SHOWN 4		 /* sample types an error names */

struct reader {
	const char *name; /* for messages: the file, or "the profile" */
	struct gh_err *err;
	struct pb_msg whole;
	struct gh_profile *p;
	size_t count[NFIELDS];
	struct pb_msg *strs; /* the string table */
	size_t nstrs;
	struct pb_msg types[GH_NVALUES + 1]; /* sample types, as found */
	size_t ntypes;
	int perm[GH_NVALUES]; /* the file's value i is gh_value perm[i] */
	struct u64map map_ids, func_ids, loc_ids; /* ID -> index */
	uint64_t *ids;				  /* one sample's, as read */
	size_t ids_cap;
	size_t copied; /* bytes of strings copied */
};

/* -1 said here, not by pprofmsg_refuse: the compiler sees callers fail. */
static int bad(struct reader *r, const char *what)
{
	return pprofmsg_refuse(r->name, what, r->err), -1;
}

/* A scalar field's value; -1 when it is not a varint. */
static int num(struct reader *r, const struct pb_field *f, uint64_t *v)
{
	if (f->wire != WIRE_VARINT)
		return bad(r, "a number field is not a varint");
	*v = f->num;
	return 0;
}

typedef int field_fn(struct reader *r, const struct pb_field *f, void *ctx);

/* Call fn for each field of m; -1 when one fails or m is malformed. */
static int each_field(struct reader *r, struct pb_msg m, const char *what,
		      field_fn *fn, void *ctx)
{
	struct pb_field f;
	int rc;

	while ((rc = pb_msg__next(&m, &f)) > 0)
		if (fn(r, &f, ctx))
			return -1;
	if (rc < 0) {
		char msg[96];

		snprintf(msg, sizeof(msg), "%s is cut short or malformed",
			 what);
		return bad(r, msg);
	}
	return 0;
}

static int str_at(struct reader *r, uint64_t i, struct pb_msg *s)
{
	if (i >= r->nstrs)
		return bad(r, "a string index is past the string table");
	*s = r->strs[i];
	return 0;
}

/* String i, copied (cut at a NUL byte); NULL with *err filled. */
static char *str_copy(struct reader *r, uint64_t i)
{
	struct pb_msg s = {0};
	size_t n;
	char *c;

	if (str_at(r, i, &s))
		return NULL;
	n = (size_t)(s.end - s.p);
	if (n > MAX_COPIED - r->copied) {
		bad(r, "its strings add up to more than 256 MiB");
		return NULL;
	}
	r->copied += n;
	if (!(c = strndup((const char *)s.p, n)))
		err_set(r->err, GH_E_FAILED, "out of memory reading %s",
			r->name);
	return c;
}

/* ---- step 1: counts; step 2: strings and the header ---- */

static int count_field(struct reader *r, const struct pb_field *f, void *ctx)
{
	(void)ctx;
	if (f->no < NFIELDS && ++r->count[f->no] > MAX_ENTRIES)
		return bad(r, "it has more than 16M entries of one kind");
	return 0;
}

static int header_field(struct reader *r, const struct pb_field *f, void *ctx)
{
	uint64_t v;

	(void)ctx;
	switch (f->no) {
	case PROFILE_STRING_TABLE:
		if (f->wire != WIRE_LEN)
			return bad(r, "a string is not length-delimited");
		r->strs[r->nstrs++] = f->sub;
		return 0;
	case PROFILE_SAMPLE_TYPE:
		if (f->wire != WIRE_LEN)
			return bad(r, "a sample type is not a message");
		if (r->ntypes < GH_NVALUES + 1)
			r->types[r->ntypes] = f->sub;
		r->ntypes++;
		return 0;
	case PROFILE_TIME_NANOS:
		if (num(r, f, &v))
			return -1;
		r->p->time_ns = (int64_t)v;
		return 0;
	case PROFILE_PERIOD:
		if (num(r, f, &v))
			return -1;
		r->p->period = (int64_t)v;
		return 0;
	}
	return 0;
}

struct value_type {
	uint64_t type, unit;
};

static int value_type_field(struct reader *r, const struct pb_field *f,
			    void *ctx)
{
	struct value_type *vt = ctx;

	if (f->no == VALUE_TYPE_TYPE)
		return num(r, f, &vt->type);
	if (f->no == VALUE_TYPE_UNIT)
		return num(r, f, &vt->unit);
	return 0;
}

/* Sample type i's type and unit strings. */
static int type_strings(struct reader *r, size_t i, struct pb_msg *type,
			struct pb_msg *unit)
{
	struct value_type vt = {0, 0};

	if (each_field(r, r->types[i], "a sample type", value_type_field,
		       &vt) ||
	    str_at(r, vt.type, type) || str_at(r, vt.unit, unit))
		return -1;
	return 0;
}

/* Which gh_value a sample type is; -1 for none. */
static int heap_value(const struct pb_msg *type, const struct pb_msg *unit)
{
	for (int v = 0; v < GH_NVALUES; v++)
		if (pb_msg__is(type, gh_value__name(v)) &&
		    pb_msg__is(unit, gh_value__unit(v)))
			return v;
	return -1;
}

static void append(char *buf, size_t size, const char *s)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, "%s", s);
}

static int not_heap(struct reader *r)
{
	char what[320] = "its sample types are";
	struct pb_msg type = {0}, unit = {0};

	if (!r->ntypes)
		return bad(r, "it has no sample types");
	for (size_t i = 0; i < r->ntypes && i < TYPES_SHOWN; i++) {
		if (type_strings(r, i, &type, &unit))
			return -1;
		append(what, sizeof(what), i ? ", " : " ");
		pb_msg__append(what, sizeof(what), &type);
		append(what, sizeof(what), "/");
		pb_msg__append(what, sizeof(what), &unit);
	}
	append(what, sizeof(what),
	       r->ntypes > TYPES_SHOWN ? ", ... (a heap profile has "
					 "alloc_objects, alloc_space, "
					 "inuse_objects and inuse_space)"
				       : " (a heap profile has alloc_objects, "
					 "alloc_space, inuse_objects and "
					 "inuse_space)");
	return bad(r, what);
}

/* The four heap sample types, each once, in any order. */
static int check_types(struct reader *r)
{
	bool seen[GH_NVALUES] = {false};
	struct pb_msg type = {0}, unit = {0};
	int v;

	if (!r->nstrs || r->strs[0].p != r->strs[0].end)
		return bad(r, "its string table does not start with \"\"");
	if (r->ntypes != GH_NVALUES)
		return not_heap(r);
	for (size_t i = 0; i < GH_NVALUES; i++) {
		if (type_strings(r, i, &type, &unit))
			return -1;
		if ((v = heap_value(&type, &unit)) < 0 || seen[v])
			return not_heap(r);
		seen[v] = true;
		r->perm[i] = v;
	}
	return 0;
}

/* ---- step 3: mappings and functions ---- */

/* Record that ID id is entry i of map m. */
static int add_id(struct reader *r, struct u64map *m, uint64_t id, size_t i)
{
	uint32_t was;

	if (!id)
		return bad(r, "an entry has ID 0");
	if (u64map__get(m, id, NULL, NULL, &was))
		return bad(r, "two entries of one kind share an ID");
	if (u64map__put(m, id, (uint32_t)i))
		return err_set(r->err, GH_E_FAILED, "out of memory reading %s",
			       r->name);
	return 0;
}

static int find_id(struct reader *r, const struct u64map *m, uint64_t id,
		   uint32_t *i)
{
	if (!u64map__get(m, id, NULL, NULL, i))
		return bad(r, "an ID refers to no entry");
	return 0;
}

/* A mapping's or function's fields: numbers by field number. */
struct nums {
	uint64_t v[8];
};

static int nums_field(struct reader *r, const struct pb_field *f, void *ctx)
{
	struct nums *n = ctx;

	return f->no < 8 ? num(r, f, &n->v[f->no]) : 0;
}

static int read_mapping(struct reader *r, struct pb_msg m)
{
	struct gh_mapping *out = &r->p->mappings[r->p->nmappings];
	struct nums n = {{0}};

	if (each_field(r, m, "a mapping", nums_field, &n))
		return -1;
	out->start = n.v[MAPPING_START];
	out->limit = n.v[MAPPING_LIMIT];
	out->offset = n.v[MAPPING_OFFSET];
	out->has_functions = n.v[MAPPING_HAS_FUNCTIONS] != 0;
	r->p->nmappings++;
	if (!(out->file = str_copy(r, n.v[MAPPING_FILENAME])) ||
	    !(out->build_id = str_copy(r, n.v[MAPPING_BUILD_ID])))
		return -1;
	return add_id(r, &r->map_ids, n.v[MAPPING_ID], r->p->nmappings - 1);
}

static int read_function(struct reader *r, struct pb_msg m)
{
	struct gh_function *out = &r->p->functions[r->p->nfunctions];
	struct nums n = {{0}};

	if (each_field(r, m, "a function", nums_field, &n))
		return -1;
	out->start_line = (int64_t)n.v[FUNCTION_START_LINE];
	r->p->nfunctions++;
	if (!(out->name = str_copy(r, n.v[FUNCTION_NAME])) ||
	    !(out->filename = str_copy(r, n.v[FUNCTION_FILENAME])))
		return -1;
	return add_id(r, &r->func_ids, n.v[FUNCTION_ID], r->p->nfunctions - 1);
}

static int table_field(struct reader *r, const struct pb_field *f, void *ctx)
{
	(void)ctx;
	if (f->no != PROFILE_MAPPING && f->no != PROFILE_FUNCTION)
		return 0;
	if (f->wire != WIRE_LEN)
		return bad(r, "a mapping or function is not a message");
	return f->no == PROFILE_MAPPING ? read_mapping(r, f->sub)
					: read_function(r, f->sub);
}

/* ---- step 4: locations ---- */

struct loc_ctx {
	struct gh_location *l;
	uint64_t id;
	size_t cap; /* lines counted */
};

static int line_field(struct reader *r, const struct pb_field *f, void *ctx)
{
	struct gh_line *line = ctx;
	uint64_t v;
	uint32_t i;

	if (f->no == LINE_LINE) {
		if (num(r, f, &v))
			return -1;
		line->line = (int64_t)v;
	} else if (f->no == LINE_FUNCTION_ID) {
		if (num(r, f, &v) || find_id(r, &r->func_ids, v, &i))
			return -1;
		line->function = i;
	}
	return 0;
}

static int location_field(struct reader *r, const struct pb_field *f, void *ctx)
{
	struct loc_ctx *c = ctx;
	struct gh_line *line;
	uint64_t v;

	switch (f->no) {
	case LOCATION_ID:
		return num(r, f, &c->id);
	case LOCATION_MAPPING_ID:
		if (num(r, f, &v))
			return -1;
		if (v && find_id(r, &r->map_ids, v, &c->l->mapping))
			return -1;
		c->l->mapping += v != 0; /* 1-based; 0 = none */
		return 0;
	case LOCATION_ADDRESS:
		return num(r, f, &c->l->address);
	case LOCATION_LINE:
		if (!c->l->lines) { /* counting */
			c->cap++;
			return 0;
		}
		if (f->wire != WIRE_LEN)
			return bad(r, "a line is not a message");
		line = &c->l->lines[c->l->nlines];
		/* a line must name its function */
		*line = (struct gh_line){UINT32_MAX, 0};
		if (each_field(r, f->sub, "a line", line_field, line))
			return -1;
		if (line->function == UINT32_MAX)
			return bad(r, "a line has no function");
		c->l->nlines++;
	}
	return 0;
}

static int read_location(struct reader *r, struct pb_msg m)
{
	struct gh_location *l = &r->p->locations[r->p->nlocations];
	struct loc_ctx c = {l, 0, 0};

	if (each_field(r, m, "a location", location_field, &c))
		return -1;
	r->p->nlocations++;
	if (c.cap) {
		if (!(l->lines = calloc(c.cap, sizeof(*l->lines))))
			return err_set(r->err, GH_E_FAILED,
				       "out of memory reading %s", r->name);
		*l = (struct gh_location){.lines = l->lines};
		if (each_field(r, m, "a location", location_field, &c))
			return -1;
	}
	return add_id(r, &r->loc_ids, c.id, r->p->nlocations - 1);
}

static int location_top_field(struct reader *r, const struct pb_field *f,
			      void *ctx)
{
	(void)ctx;
	if (f->no != PROFILE_LOCATION)
		return 0;
	if (f->wire != WIRE_LEN)
		return bad(r, "a location is not a message");
	return read_location(r, f->sub);
}

/* ---- step 5: samples ---- */

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

	if (each_field(r, m, "a label", nums_field, &n) ||
	    str_at(r, n.v[LABEL_KEY], &key) || str_at(r, n.v[LABEL_STR], &str))
		return -1;
	if (pb_msg__is(&key, "bytes") && !n.v[LABEL_STR] &&
	    !s->has_bytes_label) {
		s->has_bytes_label = true;
		s->bytes_label = (int64_t)n.v[LABEL_NUM];
		return 0;
	}
	if (pb_msg__is(&key, PPROF_BASE_LABEL) && pb_msg__is(&str, "true") &&
	    !s->base) {
		s->base = true;
		return 0;
	}
	return bad(r, "a sample has a label other than one \"bytes\" "
		      "(heap profiles have no others)");
}

static int sample_field(struct reader *r, const struct pb_field *f, void *ctx)
{
	struct sample_ctx *c = ctx;

	switch (f->no) {
	case SAMPLE_LOCATION:
		if (pb_field__ints(f, c->counting ? NULL : r->ids,
				   c->counting ? SIZE_MAX : r->ids_cap,
				   &c->nids))
			return bad(r, "a sample's location IDs are malformed");
		return 0;
	case SAMPLE_VALUE:
		if (pb_field__ints(f, c->vals, GH_NVALUES, &c->nvals))
			return bad(r, "a sample has more values than the "
				      "profile has sample types");
		return 0;
	case SAMPLE_LABEL:
		if (c->counting)
			return 0;
		if (f->wire != WIRE_LEN)
			return bad(r, "a label is not a message");
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

	if (each_field(r, m, "a sample", sample_field, &c))
		return -1;
	if (c.nvals != GH_NVALUES)
		return bad(r, "a sample has fewer values than the profile has "
			      "sample types");
	if (c.nids > UINT32_MAX)
		return bad(r, "a sample has more than 4G locations");
	if (ids_room(r, c.nids))
		return -1;
	r->p->nsamples++;
	if (c.nids && !(s->locs = calloc(c.nids, sizeof(*s->locs))))
		return err_set(r->err, GH_E_FAILED, "out of memory reading %s",
			       r->name);
	c = (struct sample_ctx){.s = s};
	if (each_field(r, m, "a sample", sample_field, &c))
		return -1;
	for (size_t i = 0; i < c.nids; i++)
		if (find_id(r, &r->loc_ids, r->ids[i], &s->locs[i]))
			return -1;
	s->nlocs = (uint32_t)c.nids;
	for (size_t i = 0; i < GH_NVALUES; i++)
		s->value[r->perm[i]] = (int64_t)c.vals[i];
	return 0;
}

static int sample_top_field(struct reader *r, const struct pb_field *f,
			    void *ctx)
{
	(void)ctx;
	if (f->no != PROFILE_SAMPLE)
		return 0;
	if (f->wire != WIRE_LEN)
		return bad(r, "a sample is not a message");
	return read_sample(r, f->sub);
}

/* ---- the whole profile ---- */

static int alloc_tables(struct reader *r)
{
	struct gh_profile *p = r->p;
	const size_t *n = r->count;

	r->strs = calloc(n[PROFILE_STRING_TABLE] + 1, sizeof(*r->strs));
	p->samples = calloc(n[PROFILE_SAMPLE] + 1, sizeof(*p->samples));
	p->locations = calloc(n[PROFILE_LOCATION] + 1, sizeof(*p->locations));
	p->functions = calloc(n[PROFILE_FUNCTION] + 1, sizeof(*p->functions));
	p->mappings = calloc(n[PROFILE_MAPPING] + 1, sizeof(*p->mappings));
	if (!r->strs || !p->samples || !p->locations || !p->functions ||
	    !p->mappings)
		return err_set(r->err, GH_E_FAILED, "out of memory reading %s",
			       r->name);
	return 0;
}

static int period_type_field(struct reader *r, const struct pb_field *f,
			     void *ctx)
{
	struct value_type vt = {0, 0};
	struct pb_msg type = {0}, unit = {0};

	(void)ctx;
	if (f->no != PROFILE_PERIOD_TYPE)
		return 0;
	if (f->wire != WIRE_LEN)
		return bad(r, "the period type is not a message");
	if (each_field(r, f->sub, "the period type", value_type_field, &vt) ||
	    str_at(r, vt.type, &type) || str_at(r, vt.unit, &unit))
		return -1;
	if (!pb_msg__is(&type, "space") || !pb_msg__is(&unit, "bytes"))
		return bad(r, "its period type is not space/bytes");
	return 0;
}

static int decode(struct reader *r)
{
	if (each_field(r, r->whole, "the profile", count_field, NULL) ||
	    alloc_tables(r) ||
	    each_field(r, r->whole, "the profile", header_field, NULL) ||
	    check_types(r) ||
	    each_field(r, r->whole, "the profile", period_type_field, NULL) ||
	    each_field(r, r->whole, "the profile", table_field, NULL) ||
	    each_field(r, r->whole, "the profile", location_top_field, NULL) ||
	    each_field(r, r->whole, "the profile", sample_top_field, NULL))
		return -1;
	summary_of(r->p);
	return 0;
}

int pprofmsg_decode(const uint8_t *data, size_t n, const char *name,
		    struct gh_profile **out, struct gh_err *err)
{
	struct reader r = {.name = name, .err = err};
	int rc = -1;

	*out = NULL;
	r.whole = (struct pb_msg){data, data + n};
	if (!(r.p = calloc(1, sizeof(*r.p))))
		err_set(err, GH_E_FAILED, "out of memory reading %s", name);
	else
		rc = decode(&r);
	free(r.strs);
	free(r.ids);
	u64map__free(&r.map_ids);
	u64map__free(&r.func_ids);
	u64map__free(&r.loc_ids);
	if (rc)
		gh_profile__free(r.p);
	else
		*out = r.p;
	return rc;
}
