/* reader.c - gh_reader: takes snapshots of targets with one backend (BPF
 * task iterator, perf-event trigger, process_vm_readv), chosen by the user
 * or, for AUTO, the first that works; times each read and checks that the
 * process is the same one before and after it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "profile/view.h"
#include "read/backend.h"
#include "read/perf.h"
#include "read/procmem.h"
#include "target/target.h"

/* A list longer than this is cut (partial): 16M buckets is far beyond any
 * real heap profile (a 1M-bucket profile already holds ~300 MiB of
 * buckets in the target), and bounds the collector's memory. */
#define GH_MAX_BUCKETS (16u << 20)
#define GH_READ_TRIES  3

/* In AUTO's order. */
static const struct backend_ops *const backends[] = {
	&backend_iter,
	&backend_perf,
	&backend_procmem,
};
#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

struct gh_reader {
	bool verbose;
	bool keep_stacks; /* see gh_reader__keep_stacks */
	bool fallback;	  /* AUTO: a failing backend hands over to the next */
	size_t cur;	  /* index into backends */
	void *state;	  /* the current backend's handle */
	char notes[GH_ERR_MSG_MAX];
};

static void add_note(struct gh_reader *r, const char *name, const char *msg)
{
	size_t n = strlen(r->notes);

	snprintf(r->notes + n, sizeof(r->notes) - n, "%s%s: %s", n ? "; " : "",
		 name, msg);
}

/* Open backends from index i on (only i unless falling back) until one
 * opens. The error of the first failure is kept, with every note. */
static int open_from(struct gh_reader *r, size_t i, struct gh_err *err)
{
	struct gh_err first = {GH_OK, ""}, e;

	for (; i < NBACKENDS; i++) {
		if (!backends[i]->open(&r->state, r->verbose, &e)) {
			r->cur = i;
			return 0;
		}
		add_note(r, backends[i]->name, e.msg);
		if (first.code == GH_OK)
			first = e;
		if (!r->fallback)
			break;
	}
	if (!r->fallback)
		return err_set(err, first.code, "%s", first.msg);
	return err_set(err, first.code, "no backend could read: %s", r->notes);
}

/* The table position of backend, or NBACKENDS when this build lacks it. */
static size_t backend_index(enum gh_backend backend)
{
	static const char *const names[] = {
		[GH_BACKEND_ITER] = "iter",
		[GH_BACKEND_PERF] = "perf",
		[GH_BACKEND_PROCMEM] = "procmem",
	};
	size_t i;

	for (i = 0; i < NBACKENDS; i++)
		if ((unsigned)backend < sizeof(names) / sizeof(names[0]) &&
		    names[backend] &&
		    !strcmp(backends[i]->name, names[backend]))
			return i;
	return NBACKENDS;
}

int gh_reader__open(struct gh_reader **out, enum gh_backend backend,
		    bool verbose, struct gh_err *err)
{
	struct gh_reader *r = calloc(1, sizeof(*r));
	size_t first = 0;

	*out = NULL;
	if (!r)
		return err_set(err, GH_E_FAILED, "out of memory");
	r->verbose = verbose;
	r->fallback = backend == GH_BACKEND_AUTO;
	if (!r->fallback && (first = backend_index(backend)) == NBACKENDS) {
		free(r);
		return err_set(err, GH_E_UNSUPPORTED,
			       "this build has no such backend");
	}
	if (open_from(r, first, err)) {
		free(r);
		return -1;
	}
	*out = r;
	return 0;
}

void gh_reader__free(struct gh_reader *r)
{
	if (!r)
		return;
	if (r->state)
		backends[r->cur]->free(r->state);
	free(r);
}

const char *gh_reader__backend(const struct gh_reader *r)
{
	return backends[r->cur]->name;
}

const char *gh_reader__notes(const struct gh_reader *r)
{
	return r->notes;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The counters are consistent only if no GC cycle ended (mProfCycle moved)
 * while the list was walked; Go reads them under its profile lock, we read
 * again instead. */
static bool cycle_moved(const struct gh_snapshot *s)
{
	uint32_t bit = 1u << GH_VAR_CYCLE;

	return !(s->var_err & bit) && !(s->var_err_end & bit) &&
	       s->vars[GH_VAR_CYCLE] != s->vars_end[GH_VAR_CYCLE];
}

/* One walk into a fresh snapshot, streamed into view v when given. */
static int read_once(struct gh_reader *r, const struct gh_target *t,
		     const struct read_req *req, struct view *v,
		     struct gh_snapshot **out, struct gh_err *err)
{
	struct gh_snapshot *s = snapshot__new();
	double t0 = now_ms();

	*out = NULL;
	if (!s)
		return err_set(err, GH_E_FAILED, "out of memory");
	if (v) {
		view__restart(v);
		snapshot__set_sink(s, view__add, view__restart, v);
		/* The profile is built on a second CPU while the walk runs. */
		if (snapshot__sink_on_thread(s)) {
			gh_snapshot__free(s);
			return err_set(err, GH_E_FAILED,
				       "cannot start the profile builder's "
				       "thread: %s",
				       strerror(errno));
		}
	}
	if (backends[r->cur]->read(r->state, req, s, err) ||
	    gh_target__check_alive(t, err)) {
		gh_snapshot__free(s);
		return -1;
	}
	if (snapshot__sync(s)) {
		gh_snapshot__free(s);
		return err_set(err, GH_E_FAILED,
			       "out of memory building the profile");
	}
	s->read_ms = now_ms() - t0;
	*out = s;
	return 0;
}

/* AUTO: a backend that opened but cannot read this target (a perf event
 * that never fires, say) hands over to the next one. */
static int read_with_fallback(struct gh_reader *r, const struct gh_target *t,
			      const struct read_req *req, struct view *v,
			      struct gh_snapshot **out, struct gh_err *err)
{
	while (read_once(r, t, req, v, out, err)) {
		if (!r->fallback || err->code == GH_E_GONE ||
		    r->cur + 1 >= NBACKENDS)
			return -1;
		add_note(r, backends[r->cur]->name, err->msg);
		backends[r->cur]->free(r->state);
		r->state = NULL;
		if (open_from(r, r->cur + 1, err))
			return -1;
	}
	return 0;
}

void gh_reader__keep_stacks(struct gh_reader *r, bool keep)
{
	r->keep_stacks = keep;
}

static void fill_req(const struct gh_reader *r, const struct gh_target *t,
		     struct read_req *req)
{
	int i;

	memset(req, 0, sizeof(*req));
	req->pid = t->pid;
	req->mbuckets = t->mbuckets;
	req->nstk_max = t->bin->layout->nstk_max;
	req->rec_bytes = t->bin->layout->rec_bytes;
	req->max_buckets = GH_MAX_BUCKETS;
	req->keep_stacks = r->keep_stacks;
	for (i = 0; i < GH_NVARS; i++)
		req->vars[i] = t->vars[i];
}

/* Read until no GC cycle ended mid-walk (at most GH_READ_TRIES times). */
static int read_settled(struct gh_reader *r, const struct gh_target *t,
			struct view *v, struct gh_snapshot **out,
			struct gh_err *err)
{
	struct read_req req;
	int i;

	*out = NULL;
	fill_req(r, t, &req);
	if (gh_target__check_alive(t, err))
		return -1;
	for (i = 0; i < GH_READ_TRIES; i++) {
		gh_snapshot__free(*out);
		if (read_with_fallback(r, t, &req, v, out, err))
			return -1;
		if (!cycle_moved(*out))
			return 0;
	}
	snapshot__set_partial(*out,
			      "a GC cycle ended during each of %d reads; "
			      "counters may mix two cycles",
			      GH_READ_TRIES);
	return 0;
}

int gh_reader__snapshot(struct gh_reader *r, const struct gh_target *t,
			struct gh_snapshot **out, struct gh_err *err)
{
	return read_settled(r, t, NULL, out, err);
}

int gh_reader__profile(struct gh_reader *r, const struct gh_target *t,
		       bool stream, struct gh_profile **out, struct gh_err *err)
{
	struct gh_snapshot *s = NULL;
	struct view *v;
	int rc;

	*out = NULL;
	if (view__new(t, stream, &v, err))
		return -1;
	rc = read_settled(r, t, v, &s, err);
	if (!rc)
		rc = view__finish(v, s, out, err);
	gh_snapshot__free(s);
	view__free(v);
	return rc;
}
