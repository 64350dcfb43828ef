/* pprofreader.h - the state of one read of a Profile message, and the
 * checked steps its two files share: pprofmsg.c (header, sample types,
 * tables, locations) and pprofsample.c (samples and their labels). */
#ifndef GH_PPROFIN_PPROFREADER_H
#define GH_PPROFIN_PPROFREADER_H

#include "base/u64map.h"
#include "pprofin/pbdec.h"

#define MAX_ENTRIES (1u << 24)	 /* of each top-level repeated field */
#define MAX_COPIED  (256u << 20) /* bytes of strings copied out */
#define NFIELDS	    16		 /* top-level fields counted */
#define TYPES_SHOWN 4		 /* sample types an error names */

struct reader {
	const char *name; /* for messages: the file, or "the profile" */
	struct gh_err *err;
	struct pb_msg whole;
	struct gh_profile *p;
	/* GH_KIND_HEAP (four sample types) or GH_KIND_GOROUTINE (one,
	 * goroutine/count), by check_types */
	enum gh_kind kind;
	size_t nvalues; /* sample types: what each sample must have */
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

/* A mapping's, function's or label's fields: numbers by field number. */
struct nums {
	uint64_t v[8];
};

typedef int field_fn(struct reader *r, const struct pb_field *f, void *ctx);

/* -1 with r's refusal (pprofmsg_refuse) saying what. */
int reader__bad(struct reader *r, const char *what);
/* A scalar field's value; -1 when it is not a varint. */
int reader__num(struct reader *r, const struct pb_field *f, uint64_t *v);
/* Call fn for each field of m; -1 when one fails or m is malformed. */
int reader__each_field(struct reader *r, struct pb_msg m, const char *what,
		       field_fn *fn, void *ctx);
/* String i of the table; -1 past it. */
int reader__str_at(struct reader *r, uint64_t i, struct pb_msg *s);
/* The index of the entry with ID id in m; -1 for none. */
int reader__find_id(struct reader *r, const struct u64map *m, uint64_t id,
		    uint32_t *i);
/* A field_fn: f's number into ((struct nums *)ctx)->v[f->no]. */
int reader__nums_field(struct reader *r, const struct pb_field *f, void *ctx);

/* A field_fn over the whole message: each Sample into r->p->samples
 * (pprofsample.c); the locations must be read. */
int pprofsample_field(struct reader *r, const struct pb_field *f, void *ctx);

#endif
