/* gtext.c - the goroutine profile as text.
 *
 * debug=1 is runtime/pprof's printCountProfile: one key per distinct
 * stack and label set ("@ 0x.. 0x.." and "\n# labels: {...}"), counted,
 * sorted by count (most first) then by key as strings (keysByCount),
 * each followed by printStackRecord's frames (runtime.CallersFrames of
 * the PCs: leading runtime frames and runtime.goexit hidden), all through
 * text/tabwriter(1, 8, 1, '\t', 0).
 *
 * debug=2 is runtime.Stack(all): per goroutine the goroutineheader line
 * ("goroutine N [reason, M minutes]:"), the frames traceback prints
 * (showframe: no runtime.* but exported ones, no elided wrappers; all of
 * them when that leaves none), each "name(args)" (printArgs: gargs.c;
 * "..." for an inlined call) then "\tfile:line +0x..", and "created by F
 * [in goroutine P]". What it cannot show: synctest bubbles; and the
 * goroutine that would be calling runtime.Stack, which does not exist. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/u64map.h"
#include "goroutine/gtext.h"
#include "profile/frames.h"
#include "write/tabwriter.h"

static void __attribute__((format(printf, 2, 3)))
put(struct pbuf *b, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(line)) {
		char *big = malloc((size_t)n + 1);

		if (!big) {
			b->failed = true;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		pbuf__bytes(b, big, (size_t)n);
		free(big);
		return;
	}
	pbuf__bytes(b, line, n < 0 ? 0 : (size_t)n);
}

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* printCountProfile's key of a sample, in only the bytes it needs (one
 * per distinct key). */
static char *key_of(const struct gsample *g)
{
	struct pbuf b = {0};
	char *s;

	put(&b, "@");
	for (size_t i = 0; i < g->npcs; i++)
		put(&b, " %#" PRIx64, g->pcs[i]);
	if (g->labels)
		put(&b, "\n# labels: %s", g->labels);
	pbuf__bytes(&b, "", 1);
	s = b.failed ? NULL : strdup((const char *)b.data);
	pbuf__free(&b);
	return s;
}

static int by_count(const void *x, const void *y)
{
	const struct gkey *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->text, b->text);
}

/* The sample's frames (framer: runtime.CallersFrames' one frame per PC). */
static int frames_of(struct framer *fr, const struct gtext_env *e,
		     const struct gsample *g, size_t *n)
{
	uint64_t stk[256];
	size_t k = g->npcs < 256 ? g->npcs : 256;

	for (size_t i = 0; i < k; i++)
		stk[i] = g->pcs[i] - e->bias;
	return framer__frames(fr, stk, k, n);
}

/* printStackRecord(w, stk, allFrames). */
static void print_stack(struct pbuf *b, const struct pframe *v, size_t n,
			bool hide_internal, bool all)
{
	bool show = all;

	for (size_t i = 0; i < n; i++) {
		const char *name = v[i].function;

		if (!*name) {
			show = true;
			put(b, "#\t%#" PRIx64 "\n", v[i].pc);
			continue;
		}
		if (!strcmp(name, "runtime.goexit") ||
		    (!show &&
		     (starts(name, "runtime.") ||
		      (hide_internal && starts(name, "internal/runtime/")))))
			continue;
		show = true;
		put(b, "#\t%#" PRIx64 "\t%s+%#" PRIx64 "\t%s:%" PRId64 "\n",
		    v[i].pc, name, v[i].pc - v[i].entry, v[i].file, v[i].line);
	}
	if (!show) {
		print_stack(b, v, n, hide_internal, true);
		return;
	}
	put(b, "\n");
}

static int flush(struct pbuf *b, FILE *f)
{
	int rc = 0;

	if (b->failed)
		rc = (errno = ENOMEM, -1);
	else if (fwrite(b->data, 1, b->len, f) != b->len)
		rc = -1;
	pbuf__free(b);
	return rc;
}

void gkeys_free(struct gkey *k, size_t n)
{
	for (size_t i = 0; k && i < n; i++)
		free(k[i].text);
	free(k);
}

struct gkey_probe {
	const struct gsnap *s;
	const struct gkey *k;
	const struct gsample *g;
};

/* The same key: the same stack and labels, which in a snapshot means
 * the same pointers (its store keeps one copy of each, gintern.h). */
static bool same_key(void *ctx, uint32_t v)
{
	const struct gkey_probe *p = ctx;
	const struct gsample *f = &p->s->v[p->k[v].first];

	return f->pcs == p->g->pcs && f->npcs == p->g->npcs &&
	       f->labels == p->g->labels;
}

int gkeys_count(const struct gsnap *s, struct gkey **out, size_t *n)
{
	struct gkey_probe p = {s, NULL, NULL};
	struct u64map m = {0};
	struct gkey *k = NULL;
	size_t nk = 0, cap = 0, i;
	uint32_t v;

	*out = NULL;
	*n = 0;
	/* Distinct keys counted by identity (the map of the original),
	 * each one's text made once: memory by stacks, not goroutines. */
	for (i = 0; i < s->n; i++) {
		const struct gsample *g = &s->v[i];
		uint64_t h =
			(uint64_t)(uintptr_t)g->pcs * 0x9e3779b97f4a7c15ULL ^
			(uint64_t)(uintptr_t)g->labels;

		p.k = k;
		p.g = g;
		if (u64map__get(&m, h, same_key, &p, &v) == 1) {
			k[v].count++;
			continue;
		}
		if (nk == cap) {
			struct gkey *nkp;

			cap = cap ? 2 * cap : 64;
			nkp = realloc(k, cap * sizeof(*k));
			if (!nkp)
				goto nomem;
			k = nkp;
		}
		k[nk] = (struct gkey){NULL, 1, i};
		if (u64map__put(&m, h, (uint32_t)nk))
			goto nomem;
		nk++;
	}
	u64map__free(&m);
	for (i = 0; i < nk; i++)
		if (!(k[i].text = key_of(&s->v[k[i].first]))) {
			gkeys_free(k, nk);
			return errno = ENOMEM, -1;
		}
	if (nk) /* k is NULL without goroutines: not qsort's */
		qsort(k, nk, sizeof(*k), by_count);
	*out = k;
	*n = nk;
	return 0;
nomem:
	u64map__free(&m);
	gkeys_free(k, nk);
	return errno = ENOMEM, -1;
}

int gtext_debug1(const struct gtext_env *e, const struct gsnap *s, FILE *f)
{
	struct pbuf text = {0}, out = {0};
	struct tabwriter tw;
	struct framer fr;
	struct gkey *k;
	size_t nk, nf, i;
	int rc = 0;

	if (gkeys_count(s, &k, &nk))
		return -1;
	framer__init(&fr, e->sc, e->bias, e->layout->frame_names);
	put(&text, "goroutine profile: total %zu\n", s->n);
	for (i = 0; rc == 0 && i < nk; i++) {
		put(&text, "%zu %s\n", k[i].count, k[i].text);
		if (frames_of(&fr, e, &s->v[k[i].first], &nf) < 0) {
			rc = (errno = ENOMEM, -1);
			break;
		}
		print_stack(&text, fr.v, nf, e->layout->hide_internal_runtime,
			    false);
	}
	framer__free(&fr);
	gkeys_free(k, nk);
	if (rc == 0 && !text.failed) {
		tabwriter__init(&tw, &out, 1, 8, 1);
		tabwriter__write(&tw, (const char *)text.data, text.len);
		tabwriter__flush(&tw);
		out.failed |= tw.failed;
		tabwriter__free(&tw);
		rc = flush(&out, f);
	} else {
		pbuf__free(&out);
		rc = -1;
	}
	pbuf__free(&text);
	return rc;
}

/* traceback.go showframe (GOTRACEBACK=single, the default) of a name. */
static bool show_name(const struct gtext_env *e, const char *name, bool first)
{
	if (e->L->cleanup_fn && (!strcmp(name, e->L->finalizer_fn) ||
				 !strcmp(name, e->L->cleanup_fn)))
		return true;
	if (!strcmp(name, "runtime.gopanic") && !first)
		return true;
	if (!strchr(name, '.'))
		return false;
	if (!starts(name, "runtime."))
		return true;
	/* isExportedRuntime */
	return name[8] >= 'A' && name[8] <= 'Z';
}

static bool elided_wrapper(const struct gtext_env *e, const struct gtframe *t)
{
	const struct layout *L = e->layout;

	return t->funcid == L->funcid_wrapper &&
	       t->callee != L->funcid_gopanic &&
	       t->callee != L->funcid_sigpanic &&
	       t->callee != L->funcid_panicwrap;
}

/* traceback2's frames of one goroutine (v: their names and lines, one
 * per frame of g's trace); how many were printed. */
static size_t print_frames(struct pbuf *b, const struct gtext_env *e,
			   const struct pframe *v, const struct gsample *g,
			   bool all)
{
	size_t shown = 0;

	for (size_t i = 0; i < g->ntrace; i++) {
		const struct gtframe *t = &g->trace[i];
		uint64_t entry = t->entry + e->bias;

		if (!all && (elided_wrapper(e, t) ||
			     !show_name(e, v[i].function, shown == 0)))
			continue;
		shown++;
		put(b, "%s(%s)\n\t%s:%" PRId64, v[i].function,
		    t->inlined || !t->args ? "..." : t->args, v[i].file,
		    v[i].line);
		if (!t->inlined && t->frame_pc > entry)
			put(b, " +%#" PRIx64, t->frame_pc - entry);
		put(b, "\n");
	}
	return shown;
}

/* The trace's frames through the framer: lookup PCs as return PCs. */
static int trace_frames(struct framer *fr, const struct gsample *g, size_t *n)
{
	uint64_t stk[256];
	size_t k = g->ntrace < 256 ? g->ntrace : 256;

	for (size_t i = 0; i < k; i++)
		stk[i] = g->trace[i].pc + 1;
	return framer__frames(fr, stk, k, n);
}

static void created_by(struct pbuf *b, const struct gtext_env *e,
		       const struct gsample *g)
{
	uint64_t pc = g->g.gopc;
	struct gofunc f;
	struct goframe gf;

	if (g->g.goid == 1 || !pc ||
	    !pcln__func_at(e->pcln, pc - e->bias, &f) ||
	    !show_name(e, f.name, false) ||
	    !pcln__frame(e->pcln, pc - e->bias, &gf))
		return;
	put(b, "created by %s", f.name);
	if (e->L->created_in_goroutine && g->g.parent_goid)
		put(b, " in goroutine %" PRIu64, g->g.parent_goid);
	put(b, "\n\t%s:%" PRId64, gf.file, gf.line);
	if (pc - e->bias > f.entry)
		put(b, " +%#" PRIx64, pc - e->bias - f.entry);
	put(b, "\n");
}

/* goroutineheader. */
static void header(struct pbuf *b, const struct gtext_env *e,
		   const struct gsnap *s, const struct gsample *g)
{
	const struct grec *r = &g->g;
	const char *status = glayout__status(e->L, r->status);
	int64_t waitfor = 0;

	if ((r->status == GST_WAITING ||
	     (e->L->has_leaked && r->status == GST_LEAKED)) &&
	    r->waitreason)
		status = glayout__waitreason(e->L, r->waitreason);
	if ((r->status == GST_WAITING || r->status == GST_SYSCALL) &&
	    r->waitsince)
		waitfor = gsnap__since(s, r->waitsince) / 60000000000LL;
	put(b, "goroutine %" PRIu64 " [%s", r->goid, status);
	if (e->L->has_leaked && r->status == GST_LEAKED)
		put(b, " (leaked)");
	if (r->scan)
		put(b, " (scan)");
	if (waitfor >= 1)
		put(b, ", %" PRId64 " minutes", waitfor);
	if (r->lockedm)
		put(b, ", locked to thread");
	put(b, "]%s:\n", g->header_labels ? g->header_labels : "");
}

int gtext_debug2(const struct gtext_env *e, const struct gsnap *s, FILE *f)
{
	struct pbuf b = {0};
	struct framer fr;
	size_t nf;
	int rc = 0;

	framer__init(&fr, e->sc, e->bias, e->layout->frame_names);
	for (size_t i = 0; i < s->n; i++) {
		const struct gsample *g = &s->v[i];

		if (i)
			put(&b, "\n");
		header(&b, e, s, g);
		if (g->running) {
			put(&b, "\tgoroutine running on other thread; stack "
				"unavailable\n");
		} else {
			if (trace_frames(&fr, g, &nf) < 0) {
				rc = (errno = ENOMEM, -1);
				break;
			}
			/* framer gives one frame per PC, or none for a PC
			 * in no function: then they do not line up. */
			if (nf != g->ntrace)
				put(&b, "\t(stack not symbolized)\n");
			else if (!print_frames(&b, e, fr.v, g, false))
				print_frames(&b, e, fr.v, g, true);
		}
		created_by(&b, e, g);
	}
	framer__free(&fr);
	if (rc) {
		pbuf__free(&b);
		return rc;
	}
	return flush(&b, f);
}
