/* gprofile.c - gh_goroutines__write: a process's goroutine profile as
 * runtime/pprof's debug=0 profile (gproto.c), or its debug=1 or debug=2
 * text, read from outside through the
 * BPF task iterator (giter.c) or with process_vm_readv (read/procmem.c's
 * peek: no BPF), never a stop or a write; auto takes iter first, as the
 * heap's auto does, and procmem where iter fails (but for the process
 * being gone). The runtime read is the one opts.runtime names: the
 * executable's, or a Go c-shared library's (its own variables, load bias
 * and pclntab), in a Go program or a C one. The layout of a g comes from
 * gobin/glayout.c, the fetching from the backend. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/optsize.h"
#include "gobin/bincache.h"
#include "goroutine/giter.h"
#include "goroutine/gleak.h"
#include "goroutine/gprofile.h"
#include "goroutine/gproto.h"
#include "goroutine/gsnap.h"
#include "goroutine/gstates.h"
#include "goroutine/gtext.h"
#include "target/target.h"

#define DEFAULT_MAX   1000000
#define GH_GR_PERMFIX "run as root or with CAP_SYS_PTRACE"

static int var_addr(const struct target *t, const char *name, uint64_t *a,
		    bool need, struct gh_err *err)
{
	if (gobin__symbol(t->go, name, a) == 0) {
		*a += t->bias;
		return 0;
	}
	*a = 0;
	if (!need)
		return 0;
	return err_set(err, GH_E_UNSUPPORTED,
		       "process %d: its goroutines cannot be read: %s is not "
		       "known (%s); read a build with its symbol table (not "
		       "-ldflags=-s)",
		       t->pid, name, gobin__why(t->go, name));
}

static int setup(const struct target *t, const struct gh_goroutine_opts *o,
		 const struct gfetch *fetch, struct gsnap_env *e,
		 struct gh_err *err)
{
	const struct layout *lay = t->go->layout;

	memset(e, 0, sizeof(*e));
	e->u.L = glayout__for(lay->minor, err);
	if (!e->u.L)
		return -1;
	e->u.pcln = t->go->pcln;
	e->u.bias = t->bias;
#ifdef __aarch64__
	e->u.uses_lr = true;
#endif
	e->u.funcid_wrapper = lay->funcid_wrapper;
	e->u.funcid_sigpanic = lay->funcid_sigpanic;
	e->u.funcid_gopanic = lay->funcid_gopanic;
	e->u.funcid_panicwrap = lay->funcid_panicwrap;
	e->u.funcid_cgocallback = lay->funcid_cgocallback;
	e->u.fetch = fetch;
	e->max_goroutines = o->max_goroutines ? o->max_goroutines : DEFAULT_MAX;
	e->want_trace = o->debug == 2;
	if (var_addr(t, "runtime.allglen", &e->allglen, true, err) ||
	    var_addr(t, "runtime.allgptr", &e->allgptr, true, err))
		return -1;
	return var_addr(t,
			e->u.L->fing == GFING_BOOL ? "runtime.fingRunning"
						   : "runtime.fingStatus",
			&e->fing_var, false, err);
}

/* debug=0: the profile built (gproto.c) and written by the pprof
 * encoder; partial as the read was. */
static int write_proto(struct target *t, const struct gsnap *s, FILE *f,
		       struct gh_err *err)
{
	struct gh_write_opts wo = {.sz = sizeof(wo), .format = GH_FORMAT_PPROF};
	struct gh_profile *p;
	int rc;

	if (gproto_build(t, s, &p, err))
		return -1;
	rc = gh_profile__write(p, f, &wo, err);
	gh_profile__free(p);
	if (rc == 0 && s->partial)
		rc = err_set(err, GH_E_PARTIAL, "%s", s->reason);
	return rc;
}

/* s: t's goroutines, read by the backend o asks for (auto: iter, then
 * procmem where iter cannot run), counted into o->counts; w: iter's
 * program and deadline (NULL: its own). */
static int snap_read(struct target *t, const struct gh_goroutine_opts *o,
		     const struct gprofile_with *w, struct gsnap_env *e,
		     struct gsnap *s, struct gh_err *err)
{
	struct gfetch fetch = {.read = gfetch_pid_read, .ctx = &t->pid};

	if (setup(t, o, &fetch, e, err))
		return -1;
	if (o->backend == GH_BACKEND_ITER || o->backend == GH_BACKEND_AUTO) {
		const struct backend_env env = {o->bpf_log, o->bpf_log_arg};
		struct giter_opts io = {.pid = t->pid, .env = &env};

		if (w) {
			io.pass = w->pass;
			io.deadline_ns = w->deadline_ns;
		}
		struct gh_err ierr = {GH_OK, ""};

		if (giter_read(s, e, &io, &ierr) == 0) {
			if (o->used)
				*o->used = GH_BACKEND_ITER;
			goto read;
		}
		if (o->backend == GH_BACKEND_ITER || ierr.code == GH_E_GONE) {
			*err = ierr;
			return -1;
		}
		e->u.fetch = &fetch; /* auto: procmem, as if asked */
	}
	if (o->used)
		*o->used = GH_BACKEND_PROCMEM;
	if (gsnap__read(s, e) < 0) {
		if (errno == EPERM)
			return err_set(err, GH_E_PERM,
				       "process %d: reading its memory is not "
				       "allowed; " GH_GR_PERMFIX,
				       t->pid);
		if (errno == ESRCH)
			return err_set(err, GH_E_GONE,
				       "process %d exited while read; run "
				       "again on a live process",
				       t->pid);
		return err_set(err, GH_E_FAILED,
			       "process %d: its goroutine list cannot be read "
			       "(%s); check that it is a live Go program",
			       t->pid, strerror(errno));
	}
read:
	e->u.fetch = NULL; /* fetch is this frame's */
	if (o->counts) {
		struct gh_goroutine_counts *c = o->counts;

		c->listed = s->allglen;
		c->samples = s->n;
		c->running = s->running;
		c->changed = s->changed;
		c->broken = s->broken + s->nolabels;
		c->system = s->system;
		c->dead = s->dead;
	}
	return 0;
}

static int read_and_write(struct target *t, const struct gh_goroutine_opts *o,
			  FILE *f, struct gh_err *err)
{
	struct gtext_env te;
	struct gsnap_env e;
	struct gsnap s;
	int rc;

	if (snap_read(t, o, NULL, &e, &s, err))
		return -1;
	if (o->debug == 0 && o->view == GH_GVIEW_PROFILE) {
		rc = write_proto(t, &s, f, err);
		gsnap__free(&s);
		return rc;
	}
	te = (struct gtext_env){&t->bin->sc, e.u.pcln, t->go->layout, e.u.L,
				t->bias};
	if (o->view != GH_GVIEW_PROFILE) {
		struct gleak_opts lo = {t->pid, t->go->version, o->min_wait_ns,
					o->top_n,
					o->view == GH_GVIEW_LEAK_JSON};

		rc = gleak_write(&te, &s, &lo, f);
	} else
		rc = o->debug == 2 ? gtext_debug2(&te, &s, f)
				   : gtext_debug1(&te, &s, f);
	if (rc < 0)
		err_set(err, errno == ENOMEM ? GH_E_FAILED : GH_E_OUTPUT,
			"the goroutine profile could not be written (%s); "
			"check the output's file system",
			strerror(errno));
	else if (s.partial)
		rc = err_set(err, GH_E_PARTIAL, "%s", s.reason);
	gsnap__free(&s);
	return rc;
}

/* The goroutines of s by state, kept with p for its JSON. */
static int attach_states(struct gh_profile *p, const struct gsnap *s,
			 const struct glayout *L, struct gh_err *err)
{
	struct gstates *st = calloc(1, sizeof(*st));

	if (!st || gstates__count(s, L, st)) {
		free(st);
		return err_set(err, GH_E_FAILED,
			       "out of memory counting goroutines by state");
	}
	p->x->states = st;
	return 0;
}

int gprofile_read(struct target *t, const struct gh_goroutine_opts *o,
		  const struct gprofile_with *w, struct gh_profile **out,
		  struct gh_err *err)
{
	struct gsnap_env e;
	struct gsnap s;
	int rc;

	*out = NULL;
	if (snap_read(t, o, w, &e, &s, err))
		return -1;
	rc = gproto_build(t, &s, out, err);
	if (rc == 0 && attach_states(*out, &s, e.u.L, err)) {
		gh_profile__free(*out);
		*out = NULL;
		rc = -1;
	}
	if (rc == 0 && s.partial)
		rc = err_set(err, GH_E_PARTIAL, "%s", s.reason);
	gsnap__free(&s);
	return rc;
}

/* o checked and loaded into *opts, pid's targets opened, *pick the one
 * opts->runtime names. */
static int open_checked(int pid, const struct gh_goroutine_opts *o,
			struct gh_goroutine_opts *opts, struct bincache **bc,
			struct target ***ts, size_t *n, size_t *pick,
			struct gh_err *err)
{
	if (OPTS_LOAD(opts, o, "gh_goroutine_opts", err))
		return -1;
	if (opts->backend == GH_BACKEND_PERF)
		return err_set(err, GH_E_UNSUPPORTED,
			       "the goroutine profile is not read by the perf "
			       "backend; use --backend iter or procmem");
	if (opts->debug < 0 || opts->debug > 2)
		return err_set(err, GH_E_USAGE,
			       "gh_goroutines: debug is %d: 0, 1 or 2",
			       opts->debug);
	if ((unsigned)opts->view > GH_GVIEW_LEAK_JSON || opts->min_wait_ns < 0)
		return err_set(err, GH_E_USAGE,
			       "gh_goroutines: view %d, min_wait_ns %lld: a "
			       "view of enum gh_goroutine_view, a wait >= 0",
			       (int)opts->view, (long long)opts->min_wait_ns);
	*bc = bincache__new(4);
	if (!*bc)
		return err_set(err, GH_E_FAILED, "out of memory");
	if (target__open_all(pid, *bc, ts, n, err)) {
		bincache__free(*bc);
		return -1;
	}
	if (target__pick(*ts, *n, opts->runtime, pick, err) == 0)
		return 0;
	target__free_all(*ts, *n);
	bincache__free(*bc);
	return -1;
}

int gh_goroutines__write(int pid, const struct gh_goroutine_opts *o, FILE *f,
			 struct gh_err *err)
{
	struct gh_goroutine_opts opts;
	struct bincache *bc;
	struct target **ts;
	size_t n, i;
	int rc;

	if (open_checked(pid, o, &opts, &bc, &ts, &n, &i, err))
		return -1;
	rc = read_and_write(ts[i], &opts, f, err);
	target__free_all(ts, n);
	bincache__free(bc);
	return rc;
}

int gh_goroutines__read(int pid, const struct gh_goroutine_opts *o,
			struct gh_profile **out, struct gh_err *err)
{
	struct gh_goroutine_opts opts;
	struct bincache *bc;
	struct target **ts;
	size_t n, i;
	int rc;

	*out = NULL;
	if (open_checked(pid, o, &opts, &bc, &ts, &n, &i, err))
		return -1;
	if (opts.view != GH_GVIEW_PROFILE) {
		bincache__free(bc);
		target__free_all(ts, n);
		return err_set(err, GH_E_USAGE,
			       "gh_goroutines__read reads the profile: the "
			       "leak views are gh_goroutines__write's");
	}
	rc = gprofile_read(ts[i], &opts, NULL, out, err);
	target__free_all(ts, n);
	bincache__free(bc);
	return rc;
}
