/* pprofmsg.c - profile.proto's Profile message into a gh_profile, every
 * index checked against its table, sizes bounded before allocating; one
 * walk of the top-level message per step, its fields in any order. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/u64map.h"
#include "pprofin/pbdec.h"
#include "pprofin/pprofmsg.h"
#include "pprofin/pprofreader.h"
#include "profile/sink.h"
#include "profile/summary.h"
#include "write/proto.h"

/* -1 said here, not by pprofmsg_refuse: the compiler sees callers fail. */
int reader__bad(struct reader *r, const char *what)
{
	return pprofmsg_refuse(r->name, what, r->err), -1;
}

/* A scalar field's value; -1 when it is not a varint. */
int reader__num(struct reader *r, const struct pb_field *f, uint64_t *v)
{
	if (f->wire != WIRE_VARINT)
		return reader__bad(r, "a number field is not a varint");
	*v = f->num;
	return 0;
}

/* Call fn for each field of m; -1 when one fails or m is malformed. */
int reader__each_field(struct reader *r, struct pb_msg m, const char *what,
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
		return reader__bad(r, msg);
	}
	return 0;
}

int reader__str_at(struct reader *r, uint64_t i, struct pb_msg *s)
{
	if (i >= r->nstrs)
		return reader__bad(r,
				   "a string index is past the string table");
	*s = r->strs[i];
	return 0;
}

/* String i, copied (cut at a NUL byte); NULL with *err filled. */
static char *str_copy(struct reader *r, uint64_t i)
{
	struct pb_msg s = {0};
	size_t n;
	char *c;

	if (reader__str_at(r, i, &s))
		return NULL;
	n = (size_t)(s.end - s.p);
	if (n > MAX_COPIED - r->copied) {
		reader__bad(r, "its strings add up to more than 256 MiB");
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
		return reader__bad(r,
				   "it has more than 16M entries of one kind");
	return 0;
}

static int header_field(struct reader *r, const struct pb_field *f, void *ctx)
{
	uint64_t v;

	(void)ctx;
	switch (f->no) {
	case PROFILE_STRING_TABLE:
		if (f->wire != WIRE_LEN)
			return reader__bad(r,
					   "a string is not length-delimited");
		r->strs[r->nstrs++] = f->sub;
		return 0;
	case PROFILE_SAMPLE_TYPE:
		if (f->wire != WIRE_LEN)
			return reader__bad(r, "a sample type is not a message");
		if (r->ntypes < GH_NVALUES + 1)
			r->types[r->ntypes] = f->sub;
		r->ntypes++;
		return 0;
	case PROFILE_TIME_NANOS:
		if (reader__num(r, f, &v))
			return -1;
		r->p->time_ns = (int64_t)v;
		return 0;
	case PROFILE_PERIOD:
		if (reader__num(r, f, &v))
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
		return reader__num(r, f, &vt->type);
	if (f->no == VALUE_TYPE_UNIT)
		return reader__num(r, f, &vt->unit);
	return 0;
}

/* Sample type i's type and unit strings. */
static int type_strings(struct reader *r, size_t i, struct pb_msg *type,
			struct pb_msg *unit)
{
	struct value_type vt = {0, 0};

	if (reader__each_field(r, r->types[i], "a sample type",
			       value_type_field, &vt) ||
	    reader__str_at(r, vt.type, type) ||
	    reader__str_at(r, vt.unit, unit))
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
		return reader__bad(r, "it has no sample types");
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
					 "inuse_objects and inuse_space; a "
					 "goroutine profile goroutine/count)"
				       : " (a heap profile has alloc_objects, "
					 "alloc_space, inuse_objects and "
					 "inuse_space; a goroutine profile "
					 "goroutine/count)");
	return reader__bad(r, what);
}

/* The four heap sample types, each once, in any order; or a goroutine
 * profile's one, goroutine/count (its value[0]). */
static int check_types(struct reader *r)
{
	bool seen[GH_NVALUES] = {false};
	struct pb_msg type = {0}, unit = {0};
	int v;

	if (!r->nstrs || r->strs[0].p != r->strs[0].end)
		return reader__bad(r,
				   "its string table does not start with \"\"");
	r->nvalues = GH_NVALUES;
	if (r->ntypes == 1) {
		if (type_strings(r, 0, &type, &unit))
			return -1;
		if (!pb_msg__is(&type, "goroutine") ||
		    !pb_msg__is(&unit, "count"))
			return not_heap(r);
		r->kind = GH_KIND_GOROUTINE;
		r->nvalues = 1;
		r->perm[0] = 0;
		return 0;
	}
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
		return reader__bad(r, "an entry has ID 0");
	if (u64map__get(m, id, NULL, NULL, &was))
		return reader__bad(r, "two entries of one kind share an ID");
	if (u64map__put(m, id, (uint32_t)i))
		return err_set(r->err, GH_E_FAILED, "out of memory reading %s",
			       r->name);
	return 0;
}

int reader__find_id(struct reader *r, const struct u64map *m, uint64_t id,
		    uint32_t *i)
{
	if (!u64map__get(m, id, NULL, NULL, i))
		return reader__bad(r, "an ID refers to no entry");
	return 0;
}

int reader__nums_field(struct reader *r, const struct pb_field *f, void *ctx)
{
	struct nums *n = ctx;

	return f->no < 8 ? reader__num(r, f, &n->v[f->no]) : 0;
}

static int read_mapping(struct reader *r, struct pb_msg m)
{
	struct gh_mapping *out = &r->p->mappings[r->p->nmappings];
	struct nums n = {{0}};

	if (reader__each_field(r, m, "a mapping", reader__nums_field, &n))
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

	if (reader__each_field(r, m, "a function", reader__nums_field, &n))
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
		return reader__bad(r, "a mapping or function is not a message");
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
		if (reader__num(r, f, &v))
			return -1;
		line->line = (int64_t)v;
	} else if (f->no == LINE_FUNCTION_ID) {
		if (reader__num(r, f, &v) ||
		    reader__find_id(r, &r->func_ids, v, &i))
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
		return reader__num(r, f, &c->id);
	case LOCATION_MAPPING_ID:
		if (reader__num(r, f, &v))
			return -1;
		if (v && reader__find_id(r, &r->map_ids, v, &c->l->mapping))
			return -1;
		c->l->mapping += v != 0; /* 1-based; 0 = none */
		return 0;
	case LOCATION_ADDRESS:
		return reader__num(r, f, &c->l->address);
	case LOCATION_LINE:
		if (!c->l->lines) { /* counting */
			c->cap++;
			return 0;
		}
		if (f->wire != WIRE_LEN)
			return reader__bad(r, "a line is not a message");
		line = &c->l->lines[c->l->nlines];
		/* a line must name its function */
		*line = (struct gh_line){UINT32_MAX, 0};
		if (reader__each_field(r, f->sub, "a line", line_field, line))
			return -1;
		if (line->function == UINT32_MAX)
			return reader__bad(r, "a line has no function");
		c->l->nlines++;
	}
	return 0;
}

static int read_location(struct reader *r, struct pb_msg m)
{
	struct gh_location *l = &r->p->locations[r->p->nlocations];
	struct loc_ctx c = {l, 0, 0};

	if (reader__each_field(r, m, "a location", location_field, &c))
		return -1;
	r->p->nlocations++;
	if (c.cap) {
		if (!(l->lines = calloc(c.cap, sizeof(*l->lines))))
			return err_set(r->err, GH_E_FAILED,
				       "out of memory reading %s", r->name);
		*l = (struct gh_location){.lines = l->lines};
		if (reader__each_field(r, m, "a location", location_field, &c))
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
		return reader__bad(r, "a location is not a message");
	return read_location(r, f->sub);
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
		return reader__bad(r, "the period type is not a message");
	if (reader__each_field(r, f->sub, "the period type", value_type_field,
			       &vt) ||
	    reader__str_at(r, vt.type, &type) ||
	    reader__str_at(r, vt.unit, &unit))
		return -1;
	if (r->kind == GH_KIND_GOROUTINE)
		return pb_msg__is(&type, "goroutine") &&
				       pb_msg__is(&unit, "count")
			       ? 0
			       : reader__bad(r, "its period type is not "
						"goroutine/count");
	if (!pb_msg__is(&type, "space") || !pb_msg__is(&unit, "bytes"))
		return reader__bad(r, "its period type is not space/bytes");
	return 0;
}

static int decode(struct reader *r)
{
	if (reader__each_field(r, r->whole, "the profile", count_field, NULL) ||
	    alloc_tables(r) ||
	    reader__each_field(r, r->whole, "the profile", header_field,
			       NULL) ||
	    check_types(r) ||
	    reader__each_field(r, r->whole, "the profile", period_type_field,
			       NULL) ||
	    reader__each_field(r, r->whole, "the profile", table_field, NULL) ||
	    reader__each_field(r, r->whole, "the profile", location_top_field,
			       NULL) ||
	    reader__each_field(r, r->whole, "the profile", pprofsample_field,
			       NULL))
		return -1;
	/* the kind is the library's to keep: a goroutine profile is written
	 * back as one (gh_profile__kind) */
	if (r->kind != GH_KIND_HEAP) {
		if (!(r->p->x = calloc(1, sizeof(*r->p->x))))
			return err_set(r->err, GH_E_FAILED,
				       "out of memory reading %s", r->name);
		r->p->x->kind = r->kind;
		r->p->x->kept = true;
	}
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
