/* entries.c - the 0.2.0 entry points whose arguments 0.3.0 changed
 * (options without sz, selection and bounds by value), for programs built
 * against 0.2.0: each builds 0.3.0's arguments from 0.2.0's and calls
 * 0.3.0's function. In libgoheap.so only (a static link is always of one
 * release). */
#include <stdlib.h>

#include "base/err.h"
#include "compat/v0_2.h"

static struct gh_write_opts write_opts(const struct gh_write_opts_0_2 *o)
{
	return (struct gh_write_opts){.sz = sizeof(struct gh_write_opts),
				      .format = o->format,
				      .index = o->index,
				      .top_n = o->top_n,
				      .labels = o->labels,
				      .comments = o->comments,
				      .ncomments = o->ncomments};
}

static struct gh_select select_of(const struct gh_select_0_2 *s)
{
	return (struct gh_select){.sz = sizeof(struct gh_select),
				  .pids = s->pids,
				  .npids = s->npids,
				  .pids_filter = s->pids_filter,
				  .comm = s->comm,
				  .cgroup = s->cgroup,
				  .container = s->container,
				  .exclude_self = s->exclude_self,
				  .runtime = s->runtime};
}

static struct gh_bounds bounds_of(const struct gh_bounds_0_2 *b)
{
	return (struct gh_bounds){.sz = sizeof(struct gh_bounds),
				  .max_buckets = b->max_buckets,
				  .max_stack_depth = b->max_stack_depth,
				  .max_read_bytes = b->max_read_bytes,
				  .max_target_ms = b->max_target_ms};
}

int compat_collector__new_0_2(const struct gh_collector_opts_0_2 *o,
			      struct gh_collector **out, struct gh_err *err)
{
	struct gh_collector_opts n;

	if (!o)
		return gh_collector__new(NULL, out, err);
	n = (struct gh_collector_opts){.sz = sizeof(n),
				       .backend = o->backend,
				       .workers = o->workers,
				       .keep_stacks = o->keep_stacks,
				       .max_binaries = o->max_binaries,
				       .max_kept_bytes = o->max_kept_bytes,
				       .debug = o->debug,
				       .debug_arg = o->debug_arg};
	return gh_collector__new(&n, out, err);
}
COMPAT_0_2(compat_collector__new_0_2, gh_collector__new);

int compat_collector__collect_0_2(struct gh_collector *c,
				  const struct gh_request_0_2 *rq,
				  struct gh_results **out, struct gh_err *err)
{
	struct gh_select sel = select_of(&rq->select);
	struct gh_bounds b = bounds_of(&rq->bounds);
	struct gh_write_opts *render = NULL;
	struct gh_request n;
	int rc;

	*out = NULL;
	if (rq->nrender && !(render = calloc(rq->nrender, sizeof(*render))))
		return err_set(err, GH_E_FAILED, "out of memory");
	for (size_t i = 0; i < rq->nrender; i++)
		render[i] = write_opts(&rq->render[i]);
	n = (struct gh_request){.sz = sizeof(n),
				.select = &sel,
				.bounds = &b,
				.render = render,
				.nrender = rq->nrender,
				.keep_samples = rq->keep_samples,
				.sink = rq->sink,
				.sink_arg = rq->sink_arg,
				.count_only = rq->count_only,
				.timeout_ms = rq->timeout_ms,
				.opened = rq->opened,
				.opened_arg = rq->opened_arg,
				.result = rq->result,
				.result_arg = rq->result_arg};
	rc = gh_collector__collect(c, &n, out, err);
	free(render);
	return rc;
}
COMPAT_0_2(compat_collector__collect_0_2, gh_collector__collect);

int compat_profile__write_0_2(const struct gh_profile *p, FILE *f,
			      const struct gh_write_opts_0_2 *o,
			      struct gh_err *err)
{
	struct gh_write_opts n = write_opts(o);

	return gh_profile__write(p, f, &n, err);
}
COMPAT_0_2(compat_profile__write_0_2, gh_profile__write);

int compat_oom_watch__new_0_2(const struct gh_oom_watch_opts_0_2 *o,
			      struct gh_oom_watch **out, struct gh_err *err)
{
	struct gh_oom_watch_opts n;

	if (!o)
		return gh_oom_watch__new(NULL, out, err);
	n = (struct gh_oom_watch_opts){.sz = sizeof(n),
				       .victim = o->victim,
				       .arg = o->arg,
				       .max_processes = o->max_processes,
				       .ring_bytes = o->ring_bytes,
				       .debug = o->debug,
				       .debug_arg = o->debug_arg};
	return gh_oom_watch__new(&n, out, err);
}
COMPAT_0_2(compat_oom_watch__new_0_2, gh_oom_watch__new);

/* gh_watch__new copies the selection and bounds it is given. */
int compat_watch__new_0_2(struct gh_collector *c,
			  const struct gh_watch_opts_0_2 *o,
			  struct gh_watch **out, struct gh_err *err)
{
	struct gh_select sel = select_of(&o->select);
	struct gh_bounds b = bounds_of(&o->bounds);
	struct gh_watch_opts n = {.sz = sizeof(n),
				  .select = &sel,
				  .interval_ms = o->interval_ms,
				  .rss_above = o->rss_above,
				  .cgroup_above = o->cgroup_above,
				  .pressure = o->pressure,
				  .growth_bytes = o->growth_bytes,
				  .growth_window_ms = o->growth_window_ms,
				  .at_peak = o->at_peak,
				  .every_ms = o->every_ms,
				  .no_oom = o->no_oom,
				  .cooldown_ms = o->cooldown_ms,
				  .keep_files = o->keep_files,
				  .keep_bytes = o->keep_bytes,
				  .leak_window = o->leak_window,
				  .output_dir = o->output_dir,
				  .bounds = &b,
				  .timeout_ms = o->timeout_ms,
				  .written = o->written,
				  .problem = o->problem,
				  .arg = o->arg,
				  .oom_ring_bytes = o->oom_ring_bytes};

	return gh_watch__new(c, &n, out, err);
}
COMPAT_0_2(compat_watch__new_0_2, gh_watch__new);
