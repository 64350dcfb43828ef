/* watchdir.c - a watch's output directory (watchdir.h), each snapshot's
 * context in its files as watchevent.c writes it. Every file goes
 * through gh_output (all or nothing, the output-file rules, removed by
 * gh_output__cleanup when a signal ends the process): the pprof file,
 * then the JSON document, then index.jsonl, so the index never names a
 * file that is not whole. The list of what is kept lives in memory;
 * files of an earlier watch in the same directory are left alone. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "outfile/output.h"
#include "outfile/profdir.h"
#include "watch/watchdir.h"
#include "watch/watchevent.h"
#include "write/jsonenc.h"

struct wentry {
	int pid;
	size_t runtime;
	bool peak;
	uint64_t bytes; /* its files */
	char pprof[320], json[320];
	char goroutines[340]; /* its goroutine profile; "": none */
	char *line;	      /* its index line */
};

struct watchdir {
	char *dir;
	size_t keep_files;
	uint64_t keep_bytes;
	struct wentry *v;
	size_t n, cap;
};

int watchdir__open(const char *dir, size_t keep_files, uint64_t keep_bytes,
		   struct watchdir **out, struct gh_err *err)
{
	struct watchdir *d;

	*out = NULL;
	if (profdir_make(dir, err))
		return -1;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->dir = strdup(dir))) {
		free(d);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	d->keep_files = keep_files;
	d->keep_bytes = keep_bytes;
	*out = d;
	return 0;
}

void watchdir__free(struct watchdir *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].line);
	free(d->v);
	free(d->dir);
	free(d);
}

/* Write one file of the snapshot; *bytes grows by its size. */
static int write_file(struct watchdir *d, const char *name,
		      const struct gh_profile *p,
		      const struct gh_watch_event *ev, bool json,
		      uint64_t *bytes, struct gh_err *err)
{
	char lines[WATCH_COMMENTS][WATCH_COMMENT_MAX]; /* 25 KiB */
	const char *comments[WATCH_COMMENTS];
	GH_OPTS(gh_write_opts, o, .format = GH_FORMAT_PPROF, .labels = true);
	struct gh_output *out;
	char path[GH_PATH_MAX + 400];
	FILE *f;
	long size;

	snprintf(path, sizeof(path), "%s/%s", d->dir, name);
	if (gh_output__open(path, &out, err))
		return -1;
	f = gh_output__file(out);
	if (json) {
		o = (struct gh_write_opts){.sz = sizeof(o),
					   .format = GH_FORMAT_JSON,
					   .index = GH_INUSE_SPACE};
		fputc('{', f);
		watch_event__json(f, ev);
		watch_event__json_leaks(f, ev);
		fputs(",\"profile\":", f);
	} else {
		o.ncomments = watch_event__comments(ev, lines, comments);
		o.comments = comments;
	}
	if (gh_profile__write(p, f, &o, err) || (json && fputs("}\n", f) < 0)) {
		gh_output__abort(out);
		return -1;
	}
	size = ftell(f);
	*bytes += size > 0 ? (uint64_t)size : 0;
	return gh_output__commit(out, err);
}

/* The index line of ev (and of its goroutine profile's file, "": none),
 * malloc'd. */
static char *index_line(const struct gh_watch_event *ev, const char *gfile,
			uint64_t bytes)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputc('{', f);
	watch_event__json(f, ev);
	fputs(",\"pprof\":", f);
	gh_json__quote(f, ev->pprof_file);
	fputs(",\"json\":", f);
	gh_json__quote(f, ev->json_file);
	if (gfile[0]) {
		fputs(",\"goroutine_pprof\":", f);
		gh_json__quote(f, gfile);
	}
	fprintf(f, ",\"bytes\":%" PRIu64 "}\n", bytes);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int write_index(struct watchdir *d, struct gh_err *err)
{
	char path[GH_PATH_MAX + 32];
	struct gh_output *out;
	FILE *f;

	snprintf(path, sizeof(path), "%s/index.jsonl", d->dir);
	if (gh_output__open(path, &out, err))
		return -1;
	f = gh_output__file(out);
	for (size_t i = 0; i < d->n; i++)
		fputs(d->v[i].line, f);
	return gh_output__commit(out, err);
}

static void unlink_entry(struct watchdir *d, const struct wentry *e)
{
	char path[GH_PATH_MAX + 400];

	snprintf(path, sizeof(path), "%s/%s", d->dir, e->pprof);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", d->dir, e->json);
	unlink(path);
	if (e->goroutines[0]) {
		snprintf(path, sizeof(path), "%s/%s", d->dir, e->goroutines);
		unlink(path);
	}
}

size_t watchdir_excess(const uint64_t *sizes, size_t n, size_t keep_files,
		       uint64_t keep_bytes)
{
	uint64_t total = 0;
	size_t drop = 0;

	for (size_t i = 0; i < n; i++)
		total += sizes[i];
	while (drop + 1 < n && ((keep_files && n - drop > keep_files) ||
				(keep_bytes && total > keep_bytes)))
		total -= sizes[drop++];
	return drop;
}

/* Remove the oldest snapshots of (pid, runtime) beyond the bound. */
static void retain(struct watchdir *d, int pid, size_t runtime)
{
	uint64_t *sizes = malloc((d->n + 1) * sizeof(*sizes));
	size_t n = 0, drop, k = 0;

	if (!sizes)
		return;
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].pid == pid && d->v[i].runtime == runtime &&
		    !d->v[i].peak)
			sizes[n++] = d->v[i].bytes;
	drop = watchdir_excess(sizes, n, d->keep_files, d->keep_bytes);
	free(sizes);
	for (size_t i = 0; i < d->n; i++) {
		struct wentry *e = &d->v[i];

		if (drop && e->pid == pid && e->runtime == runtime &&
		    !e->peak) {
			unlink_entry(d, e);
			free(e->line);
			drop--;
			continue;
		}
		d->v[k++] = *e;
	}
	d->n = k;
}

/* "comm-pid[-N]": the profile directory's name without ".pb.gz". */
static int stem(const struct gh_profile *p, char *buf, size_t size)
{
	if (gh_profile_dir__name(p, buf, size))
		return -1;
	buf[strlen(buf) - strlen(".pb.gz")] = '\0';
	return 0;
}

static int name_files(const struct gh_profile *p, struct gh_watch_event *ev)
{
	char base[80], when[40], *c;

	if (stem(p, base, sizeof(base)))
		return -1;
	if (ev->trigger == GH_TRIGGER_PEAK) {
		snprintf(ev->pprof_file, sizeof(ev->pprof_file),
			 "%s-peak.pb.gz", base);
		snprintf(ev->json_file, sizeof(ev->json_file), "%s-peak.json",
			 base);
		return 0;
	}
	watch_event__time(ev, when, sizeof(when));
	while ((c = strpbrk(when, ":-")))
		memmove(c, c + 1, strlen(c));
	snprintf(ev->pprof_file, sizeof(ev->pprof_file), "%s-%s-%s.pb.gz", base,
		 when, gh_trigger__name(ev->trigger));
	snprintf(ev->json_file, sizeof(ev->json_file), "%s-%s-%s.json", base,
		 when, gh_trigger__name(ev->trigger));
	return 0;
}

/* ev's entry: a new one, or the process's at-peak one to replace. */
static struct wentry *entry_for(struct watchdir *d,
				const struct gh_watch_event *ev)
{
	if (ev->trigger == GH_TRIGGER_PEAK)
		for (size_t i = 0; i < d->n; i++)
			if (d->v[i].peak && d->v[i].pid == ev->pid &&
			    d->v[i].runtime == ev->runtime)
				return &d->v[i];
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		void *v = realloc(d->v, cap * sizeof(*d->v));

		if (!v)
			return NULL;
		d->v = v;
		d->cap = cap;
	}
	memset(&d->v[d->n], 0, sizeof(d->v[d->n]));
	return &d->v[d->n++];
}

/* The goroutine profile's name beside the pprof file's "X.pb.gz":
 * "X.goroutine.pb.gz". */
static void goroutines_name(const struct gh_watch_event *ev, char *buf,
			    size_t size)
{
	size_t n = strlen(ev->pprof_file) - strlen(".pb.gz");

	snprintf(buf, size, "%.*s.goroutine.pb.gz", (int)n, ev->pprof_file);
}

int watchdir__add(struct watchdir *d, const struct gh_profile *p,
		  const struct gh_profile *goroutines,
		  struct gh_watch_event *ev, struct gh_err *err)
{
	char gfile[340] = "";
	struct wentry *e;
	uint64_t bytes = 0;
	char *line;

	if (name_files(p, ev))
		return err_set(err, GH_E_OUTPUT, "file name too long");
	if (goroutines)
		goroutines_name(ev, gfile, sizeof(gfile));
	/* the goroutine profile first: one not written leaves nothing */
	if ((goroutines &&
	     write_file(d, gfile, goroutines, ev, false, &bytes, err)) ||
	    write_file(d, ev->pprof_file, p, ev, false, &bytes, err) ||
	    write_file(d, ev->json_file, p, ev, true, &bytes, err))
		return -1;
	line = index_line(ev, gfile, bytes);
	e = line ? entry_for(d, ev) : NULL;
	if (!e) {
		free(line);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	free(e->line);
	*e = (struct wentry){.pid = ev->pid,
			     .runtime = ev->runtime,
			     .peak = ev->trigger == GH_TRIGGER_PEAK,
			     .bytes = bytes,
			     .line = line};
	memcpy(e->pprof, ev->pprof_file, sizeof(e->pprof));
	memcpy(e->json, ev->json_file, sizeof(e->json));
	memcpy(e->goroutines, gfile, sizeof(e->goroutines));
	retain(d, ev->pid, ev->runtime);
	return write_index(d, err);
}
