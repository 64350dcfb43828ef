/* pprofmeta.c - a pprof profile's fields other than its samples, encoded
 * after them (protobuf fields may come in any order): sample types,
 * mappings, locations, functions, time, duration, period type and period,
 * the default sample type, comments, and last the string table (every
 * string is indexed only by then). */
#include <stdio.h>

#include "goheap.h"
#include "profile/sink.h"
#include "write/pprofmeta.h"
#include "write/proto.h"
#include "write/render.h"

static void value_type(struct pbuf *pb, struct strtab *st, int tag,
		       const char *type, const char *unit)
{
	size_t start = pbuf__start(pb);

	pbuf__uint64(pb, VALUE_TYPE_TYPE, (uint64_t)strtab__index(st, type));
	pbuf__uint64(pb, VALUE_TYPE_UNIT, (uint64_t)strtab__index(st, unit));
	pbuf__end(pb, tag, start);
}

static void mapping(struct pbuf *pb, struct strtab *st, size_t i,
		    const struct gh_mapping *m)
{
	size_t start = pbuf__start(pb);

	pbuf__uint64_opt(pb, MAPPING_ID, i + 1);
	pbuf__uint64_opt(pb, MAPPING_START, m->start);
	pbuf__uint64_opt(pb, MAPPING_LIMIT, m->limit);
	pbuf__uint64_opt(pb, MAPPING_OFFSET, m->offset);
	pbuf__int64_opt(pb, MAPPING_FILENAME, strtab__index(st, m->file));
	pbuf__int64_opt(pb, MAPPING_BUILD_ID, strtab__index(st, m->build_id));
	if (m->has_functions)
		pbuf__uint64(pb, MAPPING_HAS_FUNCTIONS, 1);
	pbuf__end(pb, PROFILE_MAPPING, start);
}

static void location(struct pbuf *pb, size_t i, const struct gh_location *l)
{
	size_t start = pbuf__start(pb);
	uint32_t j;

	pbuf__uint64_opt(pb, LOCATION_ID, i + 1);
	pbuf__uint64_opt(pb, LOCATION_MAPPING_ID, l->mapping);
	pbuf__uint64_opt(pb, LOCATION_ADDRESS, l->address);
	for (j = 0; j < l->nlines; j++) {
		size_t lstart = pbuf__start(pb);

		pbuf__uint64_opt(pb, LINE_FUNCTION_ID,
				 (uint64_t)l->lines[j].function + 1);
		pbuf__int64_opt(pb, LINE_LINE, l->lines[j].line);
		pbuf__end(pb, LOCATION_LINE, lstart);
	}
	pbuf__end(pb, PROFILE_LOCATION, start);
}

static void function(struct pbuf *pb, struct strtab *st, size_t i,
		     const struct gh_function *f)
{
	size_t start = pbuf__start(pb);
	int64_t name = strtab__index(st, f->name);

	pbuf__uint64_opt(pb, FUNCTION_ID, i + 1);
	pbuf__int64_opt(pb, FUNCTION_NAME, name);
	pbuf__int64_opt(pb, FUNCTION_SYSTEM_NAME, name);
	pbuf__int64_opt(pb, FUNCTION_FILENAME, strtab__index(st, f->filename));
	pbuf__int64_opt(pb, FUNCTION_START_LINE, f->start_line);
	pbuf__end(pb, PROFILE_FUNCTION, start);
}

/* The caller's comments, after the labels: packed runs of up to 16 (a
 * parser concatenates repeated runs of one field). */
static void encode_comments(struct pbuf *pb, struct strtab *st,
			    const struct gh_write_opts *o)
{
	int64_t ids[16];
	size_t n = 0;

	for (size_t i = 0; i < o->ncomments; i++) {
		ids[n++] = strtab__index(st, o->comments[i]);
		if (n == sizeof(ids) / sizeof(ids[0]) ||
		    i + 1 == o->ncomments) {
			pbuf__packed_int64(pb, PROFILE_COMMENT, ids, n);
			n = 0;
		}
	}
}

/* The process's labels as comments ("pid: 1234"), which go tool pprof
 * shows with -comments: where a profile taken by a sweep came from. */
static void encode_labels(struct pbuf *pb, struct strtab *st,
			  const struct gh_profile *p)
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
	ids[n++] = strtab__index_copy(st, line);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!values[i][0])
			continue;
		snprintf(line, sizeof(line), "%s: %s", names[i], values[i]);
		ids[n++] = strtab__index_copy(st, line);
	}
	pbuf__packed_int64(pb, PROFILE_COMMENT, ids, n);
}

void pprof_meta__encode(struct pbuf *pb, struct strtab *st,
			const struct gh_profile *p,
			const struct gh_write_opts *o)
{
	enum gh_kind k = gh_profile__kind(p);
	const char *dflt =
		k == GH_KIND_HEAP ? pprof_default_sample_type(o->index) : NULL;
	size_t i;

	for (i = 0; i < (size_t)profile__nvalues(k); i++)
		value_type(pb, st, PROFILE_SAMPLE_TYPE,
			   profile__value_name(k, (int)i, false),
			   profile__value_name(k, (int)i, true));
	for (i = 0; i < p->nmappings; i++)
		mapping(pb, st, i, &p->mappings[i]);
	for (i = 0; i < p->nlocations; i++)
		location(pb, i, &p->locations[i]);
	for (i = 0; i < p->nfunctions; i++)
		function(pb, st, i, &p->functions[i]);
	pbuf__int64_opt(pb, PROFILE_TIME_NANOS, p->time_ns);
	pbuf__int64_opt(pb, PROFILE_DURATION_NANOS, p->duration_ns);
	/* printCountCycleProfile: period type contentions/count;
	 * printCountProfile: goroutine/count */
	if (k == GH_KIND_HEAP)
		value_type(pb, st, PROFILE_PERIOD_TYPE, "space", "bytes");
	else if (k == GH_KIND_GOROUTINE)
		value_type(pb, st, PROFILE_PERIOD_TYPE, "goroutine", "count");
	else
		value_type(pb, st, PROFILE_PERIOD_TYPE, "contentions", "count");
	pbuf__int64_opt(pb, PROFILE_PERIOD, p->period);
	/* A sample type's name: already in the table, as written above. */
	if (dflt)
		pbuf__int64_opt(pb, PROFILE_DEFAULT_SAMPLE_TYPE,
				strtab__index(st, dflt));
	if (o->labels)
		encode_labels(pb, st, p);
	encode_comments(pb, st, o);
	/* Last: only now is every string indexed. */
	for (i = 0; i < st->n; i++)
		pbuf__string(pb, PROFILE_STRING_TABLE, st->s[i]);
}
