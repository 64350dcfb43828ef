/* render.h - the output formats as consumers of a profile's samples
 * (profile/sink.h): each aggregates what its output needs while the
 * profile is built - pprof its compressed samples, top its functions, json
 * its entries - and then writes it, any number of times, identically. */
#ifndef GH_WRITE_RENDER_H
#define GH_WRITE_RENDER_H

#include "profile/sink.h"

struct render_ops {
	enum gh_format format;
	/* A renderer for o; own_thread: it may do its work (compression) on
	 * a thread of its own. */
	int (*open)(void **st, const struct gh_write_opts *o, bool own_thread,
		    struct gh_err *err);
	struct psink_ops sink;
	/* Write what was aggregated, with p's header; after sink.finish. */
	int (*write)(void *st, const struct gh_profile *p, FILE *f,
		     struct gh_err *err);
};

/* Every renderer's state starts with this. */
struct render_head {
	const struct render_ops *ops;
	struct gh_write_opts o;
};

extern const struct render_ops render_pprof, render_json, render_jsonl,
	render_top, render_legacy;

/* A renderer of o's format as a profile sink. USAGE for an unknown format
 * or sample index. */
int render_open(const struct gh_write_opts *o, bool own_thread,
		struct psink *out, struct gh_err *err);

/* s, when it is a pprof renderer and has none yet, compresses its
 * samples piece by piece, copying the pieces m holds from the process's
 * last profile and keeping its own there (gzmemo.h); before its first
 * sample. A memo no profile has been made with yet is only primed: a
 * process read once keeps nothing. */
struct gzmemo;
void render_pprof_memo(const struct psink *s, struct gzmemo *m);

/* The default sample type a pprof written for index names: "alloc_space"
 * for GH_ALLOC_SPACE (runtime/pprof's allocs profile), else NULL (its heap
 * profile names none). */
const char *pprof_default_sample_type(enum gh_value index);

/* The renderer of s, or NULL when s is not one. */
const struct render_head *render_of(const struct psink *s);

/* The options of the first pprof p was rendered for (gh_request.render),
 * or NULL: what a writer that only knows pprof asks for (allocs'
 * alloc_space). */
const struct gh_write_opts *render_pprof_opts(const struct gh_profile *p);

#endif
