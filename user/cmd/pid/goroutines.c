/* goroutines.c - --profile goroutine --pid PID[,PID...]: each process's
 * goroutine profile as its own /debug/pprof/goroutine (--format pprof),
 * ?debug=1 (--format legacy) or ?debug=2 (--format goroutines) would
 * write it, as a top table or JSON (the profile read with
 * gh_goroutines__read, written by gh_profile__write), or its leak view
 * (--format leak), to stdout or to --output (FILE.PID when several), or
 * one line saying why there is none. With --verbose, what the read
 * counted. The exit status is the first failure's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/run.h"
#include "cmd/say.h"

static void counts(int pid, const struct gh_goroutine_counts *c,
		   enum gh_backend used)
{
	fprintf(stderr,
		"goheap-bpf: process %d: %zu goroutines listed, %zu in the "
		"profile (%zu running: no stack), %zu system, %zu dead; left "
		"out: %zu moved while read, %zu failed a check; backend %s\n",
		pid, c->listed, c->samples, c->running, c->system, c->dead,
		c->changed, c->broken, gh_backend__name(used));
}

/* The profile in a gh_profile's formats (top, json, jsonl): read, then
 * written as the heap's are. */
static int read_and_write(const struct opts *o, int pid,
			  const struct gh_goroutine_opts *go, FILE *f,
			  struct gh_err *err)
{
	struct gh_profile *p = NULL;
	struct gh_err werr = {GH_OK, ""};
	int rc = gh_goroutines__read(pid, go, &p, err);

	if (!p)
		return rc;
	if (gh_profile__write(p, f, &o->w, &werr)) {
		*err = werr;
		rc = -1;
	}
	gh_profile__free(p);
	return rc;
}

static enum gh_status one(const struct opts *o, int pid)
{
	struct gh_goroutine_counts c = {0};
	enum gh_backend used = GH_BACKEND_AUTO;
	GH_OPTS(gh_goroutine_opts, go, .debug = o->goroutine_debug,
		.max_goroutines = o->max_goroutines, .counts = &c,
		.backend = o->backend, .used = &used,
		.bpf_log = o->verbose ? say_debug_line : NULL,
		.view = o->goroutine_leak == 2 ? GH_GVIEW_LEAK_JSON
			: o->goroutine_leak    ? GH_GVIEW_LEAK
					       : GH_GVIEW_PROFILE,
		.min_wait_ns = (int64_t)o->min_wait_ms * 1000000,
		.top_n = o->w.top_n);
	bool as_profile = !o->goroutine_leak && !o->goroutine_debug &&
			  o->w.format != GH_FORMAT_PPROF;
	struct gh_err err = {GH_OK, ""};
	struct gh_output *out;
	char *path = NULL;
	int rc;

	if (!o->output || !strcmp(o->output, "-") || o->npids == 1)
		path = strdup(o->output ? o->output : "-");
	else if (asprintf(&path, "%s.%d", o->output, pid) < 0)
		path = NULL;
	if (!path) {
		say("", "out of memory");
		return GH_E_FAILED;
	}
	rc = gh_output__open(path, &out, &err);
	free(path);
	if (rc) {
		say("", err.msg);
		return err.code;
	}
	rc = as_profile
		     ? read_and_write(o, pid, &go, gh_output__file(out), &err)
		     : gh_goroutines__write(pid, &go, gh_output__file(out),
					    &err);
	if (rc && err.code != GH_E_PARTIAL) {
		gh_output__abort(out);
		say("", err.msg);
		return err.code ? err.code : GH_E_FAILED;
	}
	if (gh_output__commit(out, &err)) {
		say("", err.msg);
		return err.code;
	}
	if (o->verbose)
		counts(pid, &c, used);
	if (rc) {
		fprintf(stderr, "goheap-bpf: partial profile written: %s\n",
			err.msg);
		return GH_E_PARTIAL;
	}
	return GH_OK;
}

int run_goroutines(const struct opts *o)
{
	enum gh_status st = GH_OK, s;

	for (size_t i = 0; i < o->npids; i++) {
		s = one(o, o->pids[i]);
		/* The first failure decides; partial only when nothing
		 * failed. */
		if (s != GH_OK && (st == GH_OK || st == GH_E_PARTIAL))
			st = s;
	}
	return st;
}
