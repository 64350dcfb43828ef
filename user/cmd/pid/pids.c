/* pids.c - the named processes (--pid): each Go runtime's profile in the
 * chosen format, to stdout or to --output (FILE.N, FILE.PID[.N] when
 * there are several), or one line on stderr saying why there is none. The
 * exit status is the first failure's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/pid/pidout.h"
#include "cmd/run.h"
#include "cmd/say.h"
#include "cmd/verbose.h"

char *pid_output_path(const struct opts *o, const struct gh_profile *p,
		      bool several_files)
{
	char *path;
	int rc;

	if (!o->output || strcmp(o->output, "-") == 0 || !several_files)
		return strdup(o->output ? o->output : "-");
	if (o->npids > 1)
		rc = p->runtime > 1
			     ? asprintf(&path, "%s.%d.%zu", o->output, p->pid,
					p->runtime)
			     : asprintf(&path, "%s.%d", o->output, p->pid);
	else if (p->runtime > 1)
		rc = asprintf(&path, "%s.%zu", o->output, p->runtime);
	else
		return strdup(o->output);
	return rc < 0 ? NULL : path;
}

int pid_write_one(const struct opts *o, const char *path,
		  const struct gh_profile *p, struct gh_err *err)
{
	struct gh_output *out;
	FILE *f;

	if (gh_output__open(path, &out, err))
		return -1;
	f = gh_output__file(out);
	if (o->w.format == GH_FORMAT_TOP && p->nruntimes > 1)
		fprintf(f, "Go runtime %zu of %zu: %s\n", p->runtime,
			p->nruntimes, p->runtime_file);
	if (gh_profile__write(p, f, &o->w, err)) {
		gh_output__abort(out);
		return -1;
	}
	return gh_output__commit(out, err);
}

static bool is_json(enum gh_format f)
{
	return f == GH_FORMAT_JSON || f == GH_FORMAT_JSONL;
}

/* Render result r: its profile, or why there is none. Its status. */
static enum gh_status one_result(const struct opts *o,
				 const struct gh_result *r, bool several)
{
	const struct gh_profile *p = r->profile;
	struct gh_err err = r->err;
	char prefix[GH_PATH_MAX + 64] = "";
	char *path = pid_output_path(o, p, several);
	bool data = r->err.code == GH_OK || r->err.code == GH_E_PARTIAL;

	if (p->nruntimes > 1)
		snprintf(prefix, sizeof(prefix),
			 "Go runtime %zu (%s): ", p->runtime, p->runtime_file);
	if (!path) {
		say(prefix, "out of memory");
		return GH_E_FAILED;
	}
	if (o->verbose && data)
		verbose_profile(p);
	if (data && pid_write_one(o, path, p, &err)) {
		free(path);
		say(prefix, err.msg);
		return err.code ? err.code : GH_E_FAILED;
	}
	/* JSON consumers get a document even without a profile. */
	if (!data && is_json(o->w.format) && r->err.code != GH_E_USAGE)
		pid_write_one(o, path, p, &err);
	free(path);
	if (!data) {
		say(prefix, r->err.msg);
		return r->err.code;
	}
	if (p->status == GH_SNAP_MIXED)
		say(prefix, p->status_reason);
	if (r->err.code == GH_E_PARTIAL) {
		fprintf(stderr, "goheap-bpf: partial profile written: %s\n",
			p->status_reason);
		return GH_E_PARTIAL;
	}
	return GH_OK;
}

int pid_check_stdout(const struct opts *o, size_t n)
{
	if (n < 2 || o->w.format != GH_FORMAT_PPROF ||
	    (o->output && strcmp(o->output, "-") != 0))
		return 0;
	if (o->npids == 1)
		fprintf(stderr,
			"goheap-bpf: process %d holds %zu Go runtimes, each "
			"with its own profile; write them to files with "
			"--output FILE (FILE, FILE.2, ...) or pick one with "
			"--runtime N\n",
			o->pids[0], n);
	else
		fprintf(stderr,
			"goheap-bpf: %zu profiles of %zu processes; write "
			"them to files with --output FILE (FILE.PID, ...)\n",
			n, o->npids);
	return -1;
}

/* The results with a profile to write. */
static size_t with_data(const struct gh_results *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += r->v[i].err.code == GH_OK ||
		     r->v[i].err.code == GH_E_PARTIAL;
	return n;
}

int run_pids(const struct opts *o, struct gh_collector *c,
	     struct gh_request *rq)
{
	struct gh_results *res = NULL;
	struct gh_err err = {GH_OK, ""};
	enum gh_status st = GH_OK, one;

	rq->render = &o->w;
	rq->nrender = 1;
	if (gh_collector__collect(c, rq, &res, &err)) {
		say("", err.msg);
		return err.code ? err.code : GH_E_FAILED;
	}
	if (o->verbose)
		verbose_results(res, res->n);
	if (pid_check_stdout(o, with_data(res))) {
		st = GH_E_USAGE;
	} else {
		for (size_t i = 0; i < res->n; i++) {
			one = one_result(o, &res->v[i], res->n > 1);
			/* The first failure decides; partial only when
			 * nothing failed. */
			if (one != GH_OK && (st == GH_OK || st == GH_E_PARTIAL))
				st = one;
		}
	}
	gh_results__free(res);
	return st;
}
