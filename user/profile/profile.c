/* profile.c - freeing a gh_profile, whoever built it, and the sinks a
 * built one keeps. */
#include <stdio.h>
#include <stdlib.h>

#include "proc/container.h"
#include "proc/proc.h"
#include "profile/profile.h"

void psinks_free(struct psink *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].ops)
			v[i].ops->free(v[i].st);
	free(v);
}

void gh_profile__free(struct gh_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nsamples; i++)
		free(p->samples[i].locs);
	for (i = 0; i < p->nlocations; i++)
		free(p->locations[i].lines);
	for (i = 0; i < p->nfunctions; i++) {
		free(p->functions[i].name);
		free(p->functions[i].filename);
	}
	for (i = 0; i < p->nmappings; i++) {
		free(p->mappings[i].file);
		free(p->mappings[i].build_id);
	}
	if (p->x) {
		psinks_free(p->x->sinks, p->x->nsinks);
		for (i = 0; p->x->labels && i < p->nsamples; i++) {
			for (size_t j = 0; j < 2 * p->x->nlabels[i]; j++)
				free(p->x->labels[i][j]);
			free(p->x->labels[i]);
		}
		free(p->x->labels);
		free(p->x->nlabels);
		if (p->x->states)
			free(p->x->states->reasons);
		free(p->x->states);
	}
	free(p->x);
	free(p->samples);
	free(p->locations);
	free(p->functions);
	free(p->mappings);
	free(p);
}

char *const *profile__labels_of(const struct gh_profile *p,
				const struct gh_sample *s, size_t *n)
{
	size_t i;

	*n = 0;
	if (!p->x || !p->x->labels || s < p->samples ||
	    s >= p->samples + p->nsamples)
		return NULL;
	i = (size_t)(s - p->samples);
	*n = p->x->nlabels[i];
	return *n ? p->x->labels[i] : NULL;
}

void profile__identify(struct gh_profile *p, const struct target *t)
{
	p->pid = t->pid;
	snprintf(p->comm, sizeof(p->comm), "%s", t->comm);
	snprintf(p->exe, sizeof(p->exe), "%s", t->exe);
	snprintf(p->runtime_file, sizeof(p->runtime_file), "%s", t->file);
	p->runtime = t->index;
	p->nruntimes = t->count;
	snprintf(p->cgroup, sizeof(p->cgroup), "%s", t->cgroup);
	snprintf(p->container_id, sizeof(p->container_id), "%s",
		 t->container.id);
	snprintf(p->container_runtime, sizeof(p->container_runtime), "%s",
		 t->container.runtime);
	snprintf(p->pod_uid, sizeof(p->pod_uid), "%s", t->container.pod_uid);
	snprintf(p->go_version, sizeof(p->go_version), "%s", t->go->version);
	snprintf(p->build_id, sizeof(p->build_id), "%s",
		 t->go->build_id[0] ? t->go->build_id : t->go->go_build_id);
}

/* Who process pid is, from /proc, for a result with no target: its name,
 * cgroup and container, as far as they can be read. */
static void identify_pid(struct gh_profile *p, int pid)
{
	struct container c;
	struct gh_err e;

	if (proc_comm(pid, p->comm, sizeof(p->comm), &e))
		p->comm[0] = '\0';
	if (proc_cgroup(pid, p->cgroup, sizeof(p->cgroup), &e)) {
		p->cgroup[0] = '\0';
		return;
	}
	container_of(p->cgroup, &c);
	snprintf(p->container_id, sizeof(p->container_id), "%s", c.id);
	snprintf(p->container_runtime, sizeof(p->container_runtime), "%s",
		 c.runtime);
	snprintf(p->pod_uid, sizeof(p->pod_uid), "%s", c.pod_uid);
}

struct gh_profile *profile__nodata(int pid, const struct target *t,
				   const struct gh_err *why)
{
	struct gh_profile *p = calloc(1, sizeof(*p));

	if (!p || !(p->x = calloc(1, sizeof(*p->x)))) {
		free(p);
		return NULL;
	}
	p->x->nodata = true;
	p->pid = pid;
	/* A process that is gone may have passed its PID on: nothing of the
	 * new one's is shown as the old one's. */
	if (t)
		profile__identify(p, t);
	else if (why->code != GH_E_GONE && why->code != GH_E_NOPROC)
		identify_pid(p, pid);
	/* The target has no profile to give (off, empty, or a build whose
	 * variables cannot be located), or none in time (perf's process
	 * that did not run): unavailable; anything else failed. */
	p->status = why->code == GH_E_DISABLED || why->code == GH_E_NODATA ||
				    why->code == GH_E_UNSUPPORTED ||
				    why->code == GH_E_TIMEOUT
			    ? GH_SNAP_UNAVAILABLE
			    : GH_SNAP_FAILED;
	snprintf(p->status_reason, sizeof(p->status_reason), "%s", why->msg);
	return p;
}

struct gh_profile *profile__counted(const struct target *t,
				    const struct snapshot *s)
{
	struct gh_profile *p = calloc(1, sizeof(*p));

	if (!p || !(p->x = calloc(1, sizeof(*p->x)))) {
		free(p);
		return NULL;
	}
	p->x->nodata = true;
	profile__identify(p, t);
	p->period = (int64_t)s->vars[GH_VAR_RATE];
	p->duration_ms = s->read_ms;
	p->read_bytes = s->read_bytes;
	p->target_cpu_ns = s->target_cpu_ns;
	p->nbuckets = s->nbuckets;
	if (s->partial) {
		p->status = GH_SNAP_PARTIAL;
		snprintf(p->status_reason, sizeof(p->status_reason), "%s",
			 s->reason);
	}
	return p;
}
