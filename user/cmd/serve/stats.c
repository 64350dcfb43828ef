/* stats.c - the server's counters, under one mutex (stats.h). */
#include <string.h>

#include "cmd/serve/stats.h"

const double stats_bounds[STATS_NBOUNDS] = {
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

int stats__init(struct stats *s)
{
	memset(&s->v, 0, sizeof(s->v));
	return pthread_mutex_init(&s->mu, NULL) ? -1 : 0;
}

void stats__destroy(struct stats *s)
{
	pthread_mutex_destroy(&s->mu);
}

const char *snap_status_name(enum gh_snap_status st)
{
	static const char *const names[STATS_NSTATUS] = {
		"complete", "partial", "unavailable", "failed", "mixed"};

	return (unsigned)st < STATS_NSTATUS ? names[st] : "failed";
}

void stats__profile(struct stats *s, const struct gh_result *r)
{
	const struct gh_profile *p = r->profile;
	bool data = r->err.code == GH_OK || r->err.code == GH_E_PARTIAL;
	double secs = p->duration_ms / 1000;

	pthread_mutex_lock(&s->mu);
	s->v.by_status[(unsigned)p->status < STATS_NSTATUS ? p->status
							   : GH_SNAP_FAILED]++;
	s->v.read_bytes += p->read_bytes;
	if (data) {
		for (size_t i = 0; i < STATS_NBOUNDS; i++)
			s->v.le[i] += secs <= stats_bounds[i];
		s->v.count++;
		s->v.sum += secs;
	}
	pthread_mutex_unlock(&s->mu);
}

void stats__costs(struct stats *s, const struct gh_results *r)
{
	pthread_mutex_lock(&s->mu);
	s->v.binaries_parsed += r->binaries_parsed;
	s->v.bpf_loads += r->bpf_loads;
	s->v.iter_passes += r->iter_passes;
	pthread_mutex_unlock(&s->mu);
}

void stats__sweep(struct stats *s, bool ok)
{
	pthread_mutex_lock(&s->mu);
	s->v.sweeps++;
	s->v.sweep_failures += !ok;
	pthread_mutex_unlock(&s->mu);
}

void stats__http(struct stats *s, int status)
{
	pthread_mutex_lock(&s->mu);
	if (status >= 100 && status < 600)
		s->v.http[status]++;
	pthread_mutex_unlock(&s->mu);
}

void stats__read(struct stats *s, struct stats_view *out)
{
	pthread_mutex_lock(&s->mu);
	*out = s->v;
	pthread_mutex_unlock(&s->mu);
}
