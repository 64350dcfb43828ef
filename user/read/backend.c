/* backend.c - what every reader backend does the same way: checking a
 * request, the request's bounds, reading a batch one process at a time,
 * and the backends' names. */
#include <string.h>

#include "base/clock.h"
#include "base/err.h"
#include "read/backend.h"

const struct backend_ops *const backends[] = {
	&backend_iter,
	&backend_perf,
	&backend_procmem,
};
const size_t nbackends = sizeof(backends) / sizeof(backends[0]);

static const char *const backend_names[] = {
	[GH_BACKEND_AUTO] = "auto",
	[GH_BACKEND_ITER] = "iter",
	[GH_BACKEND_PERF] = "perf",
	[GH_BACKEND_PROCMEM] = "procmem",
};
#define NNAMES (sizeof(backend_names) / sizeof(backend_names[0]))

const char *gh_backend__name(enum gh_backend b)
{
	return (unsigned)b < NNAMES ? backend_names[b] : NULL;
}

int gh_backend__parse(const char *name)
{
	for (size_t i = 0; name && i < NNAMES; i++)
		if (strcmp(name, backend_names[i]) == 0)
			return (int)i;
	return -1;
}

void read_req__cfg(const struct read_req *req, uint64_t known,
		   struct gh_target_cfg *cfg)
{
	*cfg = (struct gh_target_cfg){
		.mbuckets = req->mbuckets,
		.known = known,
		.nstk_max = req->nstk_max,
		.rec_bytes = req->rec_bytes,
		.typ = req->typ,
		.max_buckets = req->max_buckets > UINT32_MAX
				       ? UINT32_MAX
				       : (uint32_t)req->max_buckets,
		.max_bytes = req->max_bytes,
		.cpu_budget_ns = req->cpu_budget_ns,
		.gc_cycle = read_req__cycle_addr(req),
	};
	memcpy(cfg->vars, req->vars, sizeof(cfg->vars));
}

uint64_t read_req__cycle_addr(const struct read_req *req)
{
	return req->typ <= GH_TYP_MEM ? req->vars[GH_VAR_CYCLE] : 0;
}

int read_req__check(const struct read_req *req, struct gh_err *err)
{
	if (req->pid <= 0 || req->nstk_max > GH_MAX_STACK ||
	    req->rec_bytes > GH_MAX_REC_BYTES || req->rec_bytes % 8 ||
	    !req->mbuckets)
		return err_set(err, GH_E_FAILED,
			       "invalid read request for process %d", req->pid);
	return 0;
}

void read_req__too_deep(const struct read_req *req, struct snapshot *s,
			uint64_t at)
{
	if (req->nstk_bound)
		snapshot__set_partial(s,
				      "bucket at 0x%llx has a stack deeper "
				      "than the bound of %u frames",
				      (unsigned long long)at, req->nstk_max);
	else
		snapshot__set_partial(s,
				      "bucket at 0x%llx has a stack deeper "
				      "than nstk_max %u",
				      (unsigned long long)at, req->nstk_max);
}

const char *read_ctl__stop(const struct read_ctl *c)
{
	if (!c)
		return NULL;
	if (c->cancel && atomic_load(c->cancel))
		return "cancelled";
	if (c->deadline_ns && clock_mono_ns() >= c->deadline_ns)
		return "the deadline passed";
	return NULL;
}

int read_ctl__err(const char *why, int pid, struct gh_err *err)
{
	return err_set(err,
		       strcmp(why, "cancelled") ? GH_E_TIMEOUT : GH_E_FAILED,
		       "%s before process %d was read", why, pid);
}

void read_jobs_each(void *state, struct read_job *jobs, size_t n,
		    struct read_ctl *ctl,
		    int (*read_one)(void *state, const struct read_req *req,
				    const struct read_ctl *ctl,
				    struct snapshot *s, struct gh_err *err))
{
	const char *why;

	for (size_t i = 0; i < n; i++) {
		struct read_job *j = &jobs[i];

		if ((why = read_ctl__stop(ctl))) {
			j->rc = read_ctl__err(why, j->req.pid, &j->err);
			continue;
		}
		j->rc = read_one(state, &j->req, ctl, j->s, &j->err);
	}
}
