/* gproto.c - the goroutine profile as runtime/pprof's debug=0 writes it
 * (printCountProfile's protobuf half): one sample per distinct key (stack
 * and label set, gkeys_count, in keysByCount's order, which is the order
 * its locations are numbered in), value goroutine/count, the key's first
 * goroutine's labels as string labels, and its return PCs turned into
 * locations by profile/locations.c, as appendLocsForStack does for every
 * count profile (no runtime frame hidden: only the heap hides them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/err.h"
#include "goroutine/gproto.h"
#include "goroutine/gtext.h"
#include "profile/locations.h"
#include "profile/mappings.h"
#include "profile/profile.h"

static int nomem(struct gh_err *err)
{
	return err_set(err, GH_E_FAILED,
		       "out of memory building the goroutine profile");
}

static struct gh_profile *profile_new(void)
{
	struct gh_profile *p = calloc(1, sizeof(*p));

	if (p && !(p->x = calloc(1, sizeof(*p->x)))) {
		free(p);
		return NULL;
	}
	if (p) {
		p->x->kind = GH_KIND_GOROUTINE;
		p->x->kept = true;
	}
	return p;
}

/* The key's labels, copied for the profile (which outlives s). */
static int copy_labels(struct gh_profile *p, size_t i, const struct gsample *g)
{
	char **kv;

	if (!g->nkv)
		return 0;
	kv = calloc(2 * g->nkv, sizeof(*kv));
	if (!kv)
		return -1;
	p->x->labels[i] = kv;
	p->x->nlabels[i] = g->nkv;
	for (size_t j = 0; j < 2 * g->nkv; j++)
		if (!(kv[j] = strdup(g->kv[j])))
			return -1;
	return 0;
}

/* Sample i: key k's count, its stack's locations and its labels. */
static int add_sample(struct gh_profile *p, struct locbuilder *lb,
		      const struct target *t, const struct gsnap *s,
		      const struct gkey *k, size_t i)
{
	const struct gsample *g = &s->v[k->first];
	struct gh_sample *smp = &p->samples[i];
	uint64_t *buf = malloc((g->npcs ? g->npcs : 1) * sizeof(*buf));
	int rc;

	if (!buf)
		return -1;
	/* Stacks hold runtime return PCs; pclntab speaks link-time ones. */
	for (size_t j = 0; j < g->npcs; j++)
		buf[j] = g->pcs[j] - t->bias;
	rc = locbuilder__append(lb, buf, g->npcs);
	free(buf);
	if (rc)
		return -1;
	p->nsamples = i + 1;
	smp->value[0] = (int64_t)k->count;
	smp->nlocs = (uint32_t)lb->nout;
	smp->locs = malloc((lb->nout ? lb->nout : 1) * sizeof(*smp->locs));
	if (!smp->locs)
		return -1;
	memcpy(smp->locs, lb->out, lb->nout * sizeof(*smp->locs));
	return copy_labels(p, i, g);
}

static int build(struct gh_profile *p, const struct target *t,
		 const struct gsnap *s, struct gh_err *err)
{
	struct locbuilder lb;
	struct gkey *k;
	size_t nk;
	bool fake;
	int rc = 0;

	if (mappings_build(t->pid, &t->maps, NULL, p, err))
		return -1;
	/* runtime/pprof fakes the mapping when /proc/self/maps has none. */
	fake = !p->nmappings;
	if (fake && mappings_add_fake(p, err))
		return -1;
	if (gkeys_count(s, &k, &nk))
		return nomem(err);
	p->samples = calloc(nk ? nk : 1, sizeof(*p->samples));
	p->x->labels = calloc(nk ? nk : 1, sizeof(*p->x->labels));
	p->x->nlabels = calloc(nk ? nk : 1, sizeof(*p->x->nlabels));
	if (!p->samples || !p->x->labels || !p->x->nlabels ||
	    locbuilder__init(&lb, p, &t->bin->sc, t->go->pcln, t->go->layout,
			     t->bias)) {
		gkeys_free(k, nk);
		return nomem(err);
	}
	lb.fake_mapping = fake;
	for (size_t i = 0; i < nk && !rc; i++)
		rc = add_sample(p, &lb, t, s, &k[i], i);
	if (!rc)
		rc = locbuilder__finish(&lb);
	locbuilder__free(&lb);
	gkeys_free(k, nk);
	p->nbuckets = nk;
	return rc ? nomem(err) : 0;
}

int gproto_build(const struct target *t, const struct gsnap *s,
		 struct gh_profile **out, struct gh_err *err)
{
	struct gh_profile *p = profile_new();

	*out = NULL;
	if (!p)
		return nomem(err);
	if (build(p, t, s, err)) {
		gh_profile__free(p);
		return -1;
	}
	profile__identify(p, t);
	p->period = 1; /* printCountProfile's */
	p->time_ns = clock_wall_ns();
	p->total[0] = (int64_t)s->n;
	if (s->partial) {
		p->status = GH_SNAP_PARTIAL;
		snprintf(p->status_reason, sizeof(p->status_reason), "%s",
			 s->reason);
	}
	*out = p;
	return 0;
}
