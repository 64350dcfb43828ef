/* render.c - choosing a renderer, and gh_profile__write: a profile built
 * for a format is written from that format's aggregate; one whose samples
 * are at hand is rendered afresh. */
#include <string.h>

#include "base/err.h"
#include "base/optsize.h"
#include "write/render.h"

static const struct render_ops *const formats[] = {
	[GH_FORMAT_TOP] = &render_top,	     [GH_FORMAT_PPROF] = &render_pprof,
	[GH_FORMAT_JSON] = &render_json,     [GH_FORMAT_JSONL] = &render_jsonl,
	[GH_FORMAT_LEGACY] = &render_legacy,
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

static const char *const format_names[NFORMATS] = {
	[GH_FORMAT_TOP] = "top",       [GH_FORMAT_PPROF] = "pprof",
	[GH_FORMAT_JSON] = "json",     [GH_FORMAT_JSONL] = "jsonl",
	[GH_FORMAT_LEGACY] = "legacy",
};

const char *gh_format__name(enum gh_format f)
{
	return (unsigned)f < NFORMATS ? format_names[f] : NULL;
}

int gh_format__parse(const char *name)
{
	for (size_t i = 0; name && i < NFORMATS; i++)
		if (strcmp(name, format_names[i]) == 0)
			return (int)i;
	return -1;
}

static int check_opts(const struct gh_write_opts *o, struct gh_err *err)
{
	if ((unsigned)o->format >= NFORMATS)
		return err_set(err, GH_E_USAGE,
			       "unknown output format %d; use top, pprof, "
			       "json, jsonl or legacy",
			       (int)o->format);
	if ((unsigned)o->index >= GH_NVALUES)
		return err_set(err, GH_E_USAGE,
			       "unknown sample index %d; use one of "
			       "alloc_objects, alloc_space, inuse_objects, "
			       "inuse_space",
			       (int)o->index);
	return 0;
}

int render_open(const struct gh_write_opts *o, bool own_thread,
		struct psink *out, struct gh_err *err)
{
	const struct render_ops *r;

	if (check_opts(o, err))
		return -1;
	r = formats[o->format];
	out->ops = &r->sink;
	return r->open(&out->st, o, own_thread, err);
}

const struct render_head *render_of(const struct psink *s)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (s->ops == &formats[i]->sink)
			return s->st;
	return NULL;
}

/* Would a renderer built for a write these options? pprof has only
 * labels, comments and the default sample type its index names; legacy
 * none. */
static bool same_opts(const struct gh_write_opts *a,
		      const struct gh_write_opts *b)
{
	if (a->format != b->format)
		return false;
	if (a->format == GH_FORMAT_LEGACY)
		return true;
	if (a->format == GH_FORMAT_PPROF)
		return a->labels == b->labels && a->comments == b->comments &&
		       a->ncomments == b->ncomments &&
		       pprof_default_sample_type(a->index) ==
			       pprof_default_sample_type(b->index);
	return a->index == b->index && a->top_n == b->top_n;
}

/* Render p's own samples (kept, or a profile the caller built) afresh. */
static int render_samples(const struct gh_profile *p, FILE *f,
			  const struct gh_write_opts *o, struct gh_err *err)
{
	const struct render_head *h;
	struct psink s;
	size_t i;
	int rc = 0;

	if (render_open(o, false, &s, err))
		return -1;
	h = s.st;
	for (i = 0; i < p->nsamples && !rc; i++)
		rc = s.ops->sample(s.st, p, &p->samples[i]);
	if (rc)
		rc = err_set(err, GH_E_FAILED,
			     "out of memory writing the %s "
			     "output",
			     gh_format__name(o->format));
	else if (s.ops->finish)
		rc = s.ops->finish(s.st, p, err);
	if (!rc)
		rc = h->ops->write(s.st, p, f, err);
	s.ops->free(s.st);
	return rc;
}

const struct gh_write_opts *render_pprof_opts(const struct gh_profile *p)
{
	const struct gh_profile_x *x = p->x;
	const struct render_head *h;

	for (size_t i = 0; x && i < x->nsinks; i++) {
		h = render_of(&x->sinks[i]);
		if (h && h->o.format == GH_FORMAT_PPROF)
			return &h->o;
	}
	return NULL;
}

int gh_profile__write(const struct gh_profile *p, FILE *f,
		      const struct gh_write_opts *caller, struct gh_err *err)
{
	const struct gh_profile_x *x = p->x;
	const struct render_head *h;
	struct gh_write_opts o_;
	const struct gh_write_opts *o = &o_;
	size_t i;

	if (OPTS_LOAD(&o_, caller, "gh_write_opts", err) || check_opts(o, err))
		return -1;
	if (x && x->nodata && o->format != GH_FORMAT_JSON &&
	    o->format != GH_FORMAT_JSONL)
		return err_set(err, GH_E_USAGE,
			       "process %d has no heap profile to write as %s "
			       "(%s); only a JSON document, which says why, "
			       "can be written",
			       p->pid, gh_format__name(o->format),
			       p->status_reason);
	for (i = 0; x && i < x->nsinks; i++) {
		h = render_of(&x->sinks[i]);
		if (h && same_opts(&h->o, o))
			return h->ops->write(x->sinks[i].st, p, f, err);
	}
	/* Samples do not keep the buckets' counters and stacks. */
	if (o->format == GH_FORMAT_LEGACY)
		return err_set(err, GH_E_USAGE,
			       "the legacy text of process %d's profile needs "
			       "each bucket's counters and stack, which only a "
			       "profile built for it has: ask for legacy in "
			       "the request's render list (a delta has none, "
			       "as net/http/pprof serves no ?seconds=N with "
			       "?debug=1)",
			       p->pid);
	if (!x || x->kept || x->nodata)
		return render_samples(p, f, o, err);
	return err_set(err, GH_E_USAGE,
		       "the profile of process %d was built without its "
		       "samples for other formats than %s (index %s, top %zu): "
		       "ask for that format in the request's render list, or "
		       "keep the samples",
		       p->pid, gh_format__name(o->format),
		       gh_value__name(o->index), o->top_n);
}
