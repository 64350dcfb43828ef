/* sweep.c - every Go process on the host (--all), in one request whose
 * results are handed over as they finish, to a writer thread (so that
 * writing one window's files overlaps reading the next): each becomes a
 * summary row, a JSON line (--format jsonl), a pprof file and an index
 * line (--output-dir), and nothing of it is kept but the row. The profile
 * is the request's kind (--profile: heap, allocs, block, mutex,
 * goroutine). A process that yields no profile (block, mutex: one that
 * never turned it on) is a row and one line on stderr, never the end of
 * the sweep. Exit status: 0 when every result has a complete profile,
 * GH_E_PARTIAL when some have one, else the first failure's. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/run.h"
#include "cmd/say.h"
#include "cmd/selectflags.h"
#include "cmd/sweep/handoff.h"
#include "cmd/sweep/progress.h"
#include "cmd/sweep/table.h"
#include "cmd/verbose.h"

struct sweep {
	const struct opts *o;
	struct gh_request *rq;
	FILE *out; /* the table or the JSON lines; NULL with no such output */
	struct gh_profile_dir *dir;
	struct table rows;
	struct progress pg;
	struct handoff queue; /* results, to the writer thread */
	size_t done, profiled, partial;
	enum gh_status first_failure;
	bool failed; /* out of memory, or an output not written */
	/* the request's own hook, called from ours */
	void (*opened)(void *arg, size_t n);
	void *opened_arg;
};

static void note_failure(struct sweep *s, enum gh_status code)
{
	if (s->first_failure == GH_OK)
		s->first_failure = code;
}

static void on_opened(void *arg, size_t n)
{
	struct sweep *s = arg;

	s->pg.total = n;
	if (s->opened)
		s->opened(s->opened_arg, n);
}

/* "pid 1234 (api): " or "pid 1234 (api) Go runtime 2: " */
static void who(const struct gh_result *r, char *buf, size_t size)
{
	const struct gh_profile *p = r->profile;

	if (p->nruntimes > 1)
		snprintf(buf, size, "pid %d (%s) Go runtime %zu: ", r->pid,
			 p->comm, p->runtime);
	else
		snprintf(buf, size, "pid %d (%s): ", r->pid, p->comm);
}

/* Why r has no complete profile, on stderr. */
static void tell(struct sweep *s, const struct gh_result *r, const char *msg)
{
	char prefix[128];

	progress__clear(&s->pg);
	who(r, prefix, sizeof(prefix));
	say(prefix, msg);
}

static void write_line(struct sweep *s, const struct gh_result *r)
{
	struct gh_write_opts w = s->o->w;
	struct gh_err err;

	w.format = GH_FORMAT_JSONL;
	if (r->err.code != GH_E_USAGE &&
	    gh_profile__write(r->profile, s->out, &w, &err)) {
		tell(s, r, err.msg);
		note_failure(s, err.code);
		s->failed = true;
	}
}

/* r's runtime's runtime.NumGoroutine(), for the table: read by the
 * collector right after its profile's buckets; -1 where it could not be
 * (a stripped build, a process gone or not Go). Of a goroutine profile:
 * the goroutines it holds. */
static int64_t goroutines_of(const struct sweep *s, const struct gh_result *r)
{
	struct gh_runtime_stats rs = {.sz = sizeof(rs)};
	struct gh_err err;

	if (s->o->w.format == GH_FORMAT_JSONL || !r->profile)
		return -1;
	if (s->rows.kind == GH_KIND_GOROUTINE)
		return r->err.code == GH_OK || r->err.code == GH_E_PARTIAL
			       ? r->profile->total[0]
			       : -1;
	if (gh_profile__runtime_stats(r->profile, &rs, &err) ||
	    !(rs.has & GH_RT_GOROUTINES))
		return -1;
	return (int64_t)rs.goroutines;
}

/* On the writer thread: what r becomes. */
static void take(struct sweep *s, const struct gh_result *r)
{
	const struct gh_profile *p = r->profile;
	bool data = r->err.code == GH_OK || r->err.code == GH_E_PARTIAL;
	struct gh_err err;

	progress__step(&s->pg, ++s->done);
	if (s->o->verbose && data)
		verbose_profile(p);
	if (s->out && s->o->w.format == GH_FORMAT_JSONL)
		write_line(s, r);
	if (s->dir && gh_profile_dir__add(s->dir, r, &err)) {
		tell(s, r, err.msg);
		note_failure(s, err.code);
		data = false;
	}
	if (table__add(&s->rows, r, goroutines_of(s, r)))
		s->failed = true;
	if (!data) {
		if (r->err.code != GH_OK)
			tell(s, r, r->err.msg);
		note_failure(s, r->err.code ? r->err.code : GH_E_OUTPUT);
	} else if (r->err.code == GH_E_PARTIAL || p->status == GH_SNAP_MIXED) {
		tell(s, r, p->status_reason);
		s->partial += r->err.code == GH_E_PARTIAL;
		s->profiled += r->err.code == GH_OK;
	} else {
		s->profiled++;
	}
}

static void on_result(void *arg, struct gh_result *r)
{
	struct sweep *s = arg;

	handoff__put(&s->queue, r);
}

static void *writer(void *arg)
{
	struct sweep *s = arg;
	struct gh_result r;

	while (handoff__get(&s->queue, &r)) {
		take(s, &r);
		gh_profile__free(r.profile);
	}
	return NULL;
}

/* The terminal's width when f is one (COLUMNS first); 0: do not cut. */
static int width_of(FILE *f)
{
	const char *cols = getenv("COLUMNS");
	struct winsize ws;

	if (!isatty(fileno(f)))
		return 0;
	if (cols && atoi(cols) > 0)
		return atoi(cols);
	if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col;
	return 80;
}

/* The request for a sweep: what each result is built for. */
static void prepare(struct sweep *s, struct gh_write_opts render[2])
{
	struct gh_request *rq = s->rq;
	size_t n = 0;

	if (s->o->w.format == GH_FORMAT_JSONL) {
		render[n] = s->o->w;
		render[n++].format = GH_FORMAT_JSONL;
	}
	if (s->o->output_dir)
		render[n++] = (struct gh_write_opts){
			.sz = sizeof(struct gh_write_opts),
			.format = GH_FORMAT_PPROF,
			.index = s->o->w.index, /* allocs: alloc_space */
			.labels = true};
	rq->render = render;
	rq->nrender = n;
	s->opened = rq->opened;
	s->opened_arg = rq->opened_arg;
	rq->opened = on_opened;
	rq->opened_arg = s;
	rq->result = on_result;
	rq->result_arg = s;
}

/* The exit status: every result profiled, some, or none. */
static int status_of(const struct sweep *s, const struct gh_results *res)
{
	if (s->failed && s->first_failure == GH_OK)
		return GH_E_FAILED;
	if (!s->done) {
		fprintf(stderr,
			"goheap-bpf: no Go process found (%zu process%s "
			"examined%s)\n",
			res->examined, res->examined == 1 ? "" : "es",
			s->o->npids || select_filtered(&s->o->select)
				? " that passed the filters"
				: "");
		return GH_E_NOTGO;
	}
	if (s->profiled == s->done)
		return GH_OK;
	if (s->profiled + s->partial > 0)
		return GH_E_PARTIAL;
	return s->first_failure;
}

static int open_outputs(struct sweep *s, struct gh_output **out)
{
	struct gh_err err;

	*out = NULL;
	if (s->o->output_dir &&
	    gh_profile_dir__open(s->o->output_dir, &s->dir, &err)) {
		say("", err.msg);
		return err.code;
	}
	/* With --output-dir, the summary goes to stdout as well. */
	if (gh_output__open(s->o->output, out, &err)) {
		say("", err.msg);
		gh_profile_dir__abort(s->dir);
		return err.code;
	}
	s->out = gh_output__file(*out);
	return 0;
}

/* Put the table out, commit every output. */
static void close_outputs(struct sweep *s, struct gh_output *out)
{
	struct gh_err err;

	if (s->o->w.format != GH_FORMAT_JSONL &&
	    table__print(&s->rows, s->out, width_of(s->out))) {
		say("", "out of memory printing the summary");
		s->failed = true;
	}
	if (s->dir && gh_profile_dir__commit(s->dir, &err)) {
		say("", err.msg);
		note_failure(s, err.code);
		s->failed = true;
	}
	if (gh_output__commit(out, &err)) {
		say("", err.msg);
		note_failure(s, err.code);
		s->failed = true;
	}
}

/* Collect with the writer thread taking the results. */
static int err_set_nomem(struct gh_err *err)
{
	*err = (struct gh_err){GH_E_FAILED, "out of memory"};
	return -1;
}

static int collect(struct sweep *s, struct gh_collector *c,
		   struct gh_results **res, struct gh_err *err)
{
	pthread_t th;
	int rc;

	if (handoff__init(&s->queue))
		return err_set_nomem(err);
	if (pthread_create(&th, NULL, writer, s)) {
		handoff__destroy(&s->queue);
		return err_set_nomem(err);
	}
	rc = gh_collector__collect(c, s->rq, res, err);
	handoff__close(&s->queue);
	pthread_join(th, NULL);
	handoff__destroy(&s->queue);
	return rc;
}

int run_sweep(const struct opts *o, struct gh_collector *c,
	      struct gh_request *rq)
{
	struct sweep s = {.o = o,
			  .rq = rq,
			  .rows = {.kind = rq->kind, .index = (int)o->w.index}};
	struct gh_write_opts render[2];
	struct gh_results *res = NULL;
	struct gh_output *out;
	struct gh_err err = {GH_OK, ""};
	int st;

	if ((st = open_outputs(&s, &out)))
		return st;
	prepare(&s, render);
	progress__start(&s.pg);
	if (collect(&s, c, &res, &err)) {
		progress__clear(&s.pg);
		say("", err.msg);
		gh_output__abort(out);
		gh_profile_dir__abort(s.dir);
		table__free(&s.rows);
		return err.code ? err.code : GH_E_FAILED;
	}
	progress__clear(&s.pg);
	if (o->verbose)
		verbose_results(res, s.done);
	close_outputs(&s, out);
	st = status_of(&s, res);
	gh_results__free(res);
	table__free(&s.rows);
	return st;
}
