/* symcache.c - see symcache.h. A heap profile repeats the same few
 * thousand PCs across all its buckets, so each is resolved once. */
#include <stdlib.h>
#include <string.h>

#include "gobin/symcache.h"

void symcache__init(struct symcache *c, struct pcln *pcln,
		    bool hide_internal_runtime)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->mu, NULL);
	c->pcln = pcln;
	c->hide_internal_runtime = hide_internal_runtime;
}

void symcache__free(struct symcache *c)
{
	u64map__free(&c->map);
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
	pthread_mutex_destroy(&c->mu);
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* hideRuntime in runtime/pprof/protomem.go: FuncForPC at the return PC. */
static bool is_runtime_func(const struct symcache *c, uint64_t pc)
{
	const char *name = pcln__funcname_for_pc(c->pcln, pc);

	return name && (starts_with(name, "runtime.") ||
			(c->hide_internal_runtime &&
			 starts_with(name, "internal/runtime/")));
}

/* allFrames in runtime/pprof/proto.go, for one PC. */
static void resolve(const struct symcache *c, uint64_t pc, struct pcframe *out)
{
	struct goframe f;

	memset(out, 0, sizeof(*out));
	out->hide = is_runtime_func(c, pc);
	if (!pcln__frame(c->pcln, pc, &f)) {
		/* No function: Go makes up Frame{PC: pc-1} and marks the
		 * lookup failed. */
		out->function = out->file = "";
		out->frame_pc = pc - 1;
		out->func_nil = out->failed = true;
		return;
	}
	out->function = f.function;
	out->file = f.file;
	out->line = f.line;
	out->start_line = f.start_line;
	out->entry = f.entry;
	out->frame_pc = pc > f.entry ? pc - 1 : pc;
	out->func_nil = f.inlined;
	out->goexit = strcmp(f.function, "runtime.goexit") == 0;
	out->failed = !*f.function || !*f.file || f.line == 0;
}

/* The entry for pc, added if new; NULL when out of memory. Under mu. */
static struct pcframe *lookup(struct symcache *c, uint64_t pc)
{
	uint32_t i;

	if (u64map__get(&c->map, pc, NULL, NULL, &i))
		return &c->v[i];
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 1024;
		void *nv = realloc(c->v, ncap * sizeof(*c->v));

		if (!nv)
			return NULL;
		c->v = nv;
		c->cap = ncap;
	}
	if (u64map__put(&c->map, pc, (uint32_t)c->n))
		return NULL;
	resolve(c, pc, &c->v[c->n]);
	return &c->v[c->n++];
}

int symcache__get(struct symcache *c, uint64_t pc, struct pcframe *out)
{
	struct pcframe *f;

	pthread_mutex_lock(&c->mu);
	f = lookup(c, pc);
	if (f)
		*out = *f;
	pthread_mutex_unlock(&c->mu);
	return f ? 0 : -1;
}
