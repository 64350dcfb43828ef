/* goroutines.c - --profile goroutine --pid PID[,PID...]: the goroutine
 * profile of each Go runtime of each process (the executable's and each
 * Go c-shared library's, or the one --runtime names, listed as the heap's
 * --pid lists them: one collector request, stopped once the processes
 * are opened), as its own /debug/pprof/goroutine (--format pprof),
 * ?debug=1 (--format legacy) or ?debug=2 (--format goroutines) would
 * write it, as a top table or JSON (the profile read with
 * gh_goroutines__read, written by gh_profile__write), or its leak view
 * (--format leak), to stdout or to --output (FILE.N, FILE.PID[.N] as for
 * the heap), or one line saying why there is none. With --verbose, what
 * the read counted. The exit status is the first failure's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/pid/pidout.h"
#include "cmd/run.h"
#include "cmd/say.h"

static void counts(const char *prefix, int pid,
		   const struct gh_goroutine_counts *c, enum gh_backend used)
{
	fprintf(stderr,
		"goheap-bpf: %sprocess %d: %zu goroutines listed, %zu in the "
		"profile (%zu running: no stack), %zu system, %zu dead; left "
		"out: %zu moved while read, %zu failed a check; backend %s\n",
		prefix, pid, c->listed, c->samples, c->running, c->system,
		c->dead, c->changed, c->broken, gh_backend__name(used));
}

/* The profile in a gh_profile's formats (top, json, jsonl): read, then
 * written as the heap's are. */
static int read_and_write(const struct opts *o, int pid,
			  const struct gh_goroutine_opts *go, const char *path,
			  struct gh_err *err)
{
	struct gh_profile *p = NULL;
	struct gh_err werr = {GH_OK, ""};
	int rc = gh_goroutines__read(pid, go, &p, err);

	if (!p)
		return rc;
	if (pid_write_one(o, path, p, &werr)) {
		*err = werr;
		rc = -1;
	}
	gh_profile__free(p);
	return rc;
}

/* The texts, the leak view and the pprof profile, written as read. */
static int write_text(int pid, const struct gh_goroutine_opts *go,
		      const char *path, struct gh_err *err)
{
	struct gh_output *out;
	int rc;

	if (gh_output__open(path, &out, err))
		return -1;
	rc = gh_goroutines__write(pid, go, gh_output__file(out), err);
	if (rc && err->code != GH_E_PARTIAL) {
		gh_output__abort(out);
		return -1;
	}
	return gh_output__commit(out, err) ? -1 : rc;
}

/* The goroutine profile of the runtime who names (a listed result's
 * header: its process, its number of how many, its file). */
static enum gh_status one(const struct opts *o, const struct gh_profile *who,
			  bool several)
{
	struct gh_goroutine_counts c = {0};
	enum gh_backend used = GH_BACKEND_AUTO;
	char rt[24], prefix[GH_PATH_MAX + 64] = "";
	GH_OPTS(gh_goroutine_opts, go, .debug = o->goroutine_debug,
		.max_goroutines = o->max_goroutines, .counts = &c,
		.backend = o->backend, .used = &used,
		.bpf_log = o->verbose ? say_debug_line : NULL,
		.view = o->goroutine_leak == 2 ? GH_GVIEW_LEAK_JSON
			: o->goroutine_leak    ? GH_GVIEW_LEAK
					       : GH_GVIEW_PROFILE,
		.min_wait_ns = (int64_t)o->min_wait_ms * 1000000,
		.top_n = o->w.top_n, .runtime = rt);
	bool as_profile = !o->goroutine_leak && !o->goroutine_debug &&
			  o->w.format != GH_FORMAT_PPROF;
	struct gh_err err = {GH_OK, ""};
	char *path = pid_output_path(o, who, several);
	int rc;

	snprintf(rt, sizeof(rt), "%zu", who->runtime);
	if (who->nruntimes > 1)
		snprintf(prefix, sizeof(prefix),
			 "Go runtime %zu (%s): ", who->runtime,
			 who->runtime_file);
	if (!path) {
		say(prefix, "out of memory");
		return GH_E_FAILED;
	}
	rc = as_profile ? read_and_write(o, who->pid, &go, path, &err)
			: write_text(who->pid, &go, path, &err);
	free(path);
	if (rc && err.code != GH_E_PARTIAL) {
		say(prefix, err.msg);
		return err.code ? err.code : GH_E_FAILED;
	}
	if (o->verbose)
		counts(prefix, who->pid, &c, used);
	if (rc) {
		fprintf(stderr, "goheap-bpf: partial profile written: %s\n",
			err.msg);
		return GH_E_PARTIAL;
	}
	return GH_OK;
}

/* The processes are opened: their runtimes are all that is wanted. */
static void opened_then_stop(void *arg, size_t nresults)
{
	(void)nresults;
	gh_collector__cancel(arg);
}

/* Every Go runtime of the processes (the one --runtime names), a result
 * each whose header says which, as the heap's --pid selects them; a
 * process without one gives a result saying why (runtime 0). */
static int list_runtimes(const struct opts *o, struct gh_collector *c,
			 struct gh_results **res, struct gh_err *err)
{
	struct gh_select sel = o->select;
	struct gh_request rq = {.sz = sizeof(rq),
				.select = &sel,
				.count_only = true,
				.opened = opened_then_stop,
				.opened_arg = c};

	sel.pids = o->pids;
	sel.npids = o->npids;
	sel.runtime = o->runtime;
	return gh_collector__collect(c, &rq, res, err);
}

int run_goroutines(const struct opts *o, struct gh_collector *c)
{
	enum gh_status st = GH_OK, s;
	struct gh_err err = {GH_OK, ""};
	struct gh_results *res = NULL;
	size_t n = 0;

	if (list_runtimes(o, c, &res, &err)) {
		say("", err.msg);
		return err.code ? err.code : GH_E_FAILED;
	}
	for (size_t i = 0; i < res->n; i++)
		n += res->v[i].profile->runtime > 0;
	if (pid_check_stdout(o, n)) {
		gh_results__free(res);
		return GH_E_USAGE;
	}
	for (size_t i = 0; i < res->n; i++) {
		const struct gh_result *r = &res->v[i];

		if (r->profile->runtime) {
			s = one(o, r->profile, res->n > 1);
		} else {
			say("", r->err.msg);
			s = r->err.code;
		}
		/* The first failure decides; partial only when nothing
		 * failed. */
		if (s != GH_OK && (st == GH_OK || st == GH_E_PARTIAL))
			st = s;
	}
	gh_results__free(res);
	return st;
}
