/* filter.c - judging a process by the request's filters. The container
 * filter reads the container ID off the cgroup path (proc/container.c):
 * a prefix of the ID, as `docker ps` shortens it, selects it. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "collect/filter.h"
#include "proc/container.h"

/* glibc's regcomp copies a repeated part once per count: "a{99}" is 99
 * copies of "a", "a+" two, and nesting multiplies ("((a{99}){99}){99}",
 * "a+++...+": millions of nodes, gigabytes). A name is at most 15
 * bytes, so no useful filter needs that: patterns whose compiled size,
 * estimated as regcomp expands them, passes MAX_NODES, or whose
 * repetitions nest past MAX_NESTING, are refused. */
#define MAX_NODES   20000
#define MAX_DEPTH   64
#define MAX_NESTING 2

/* The end of the bracket expression that starts at s ('['). */
static const char *skip_bracket(const char *s)
{
	s++;
	if (*s == '^')
		s++;
	if (*s == ']')
		s++;
	for (; *s && *s != ']'; s++)
		if (*s == '[' && (s[1] == ':' || s[1] == '.' || s[1] == '=')) {
			const char *end = strchr(s + 2, s[1]);

			if (end && end[1] == ']')
				s = end + 1;
		}
	return *s ? s : s - 1;
}

/* The copies the interval at s ('{') makes, or 0 when s starts none:
 * "{m}", "{m,}" (m), "{m,n}" (n); glibc also reads "{,n}" as "{0,n}"
 * and "{,}" as "*", and "{}" compiles (1, counted as a repetition all
 * the same); *end: its last byte. */
static double interval_copies(const char *s, const char **end)
{
	const char *e = s + 1;
	double m = 0, n = 0;
	char *num;

	if (*e >= '0' && *e <= '9') {
		m = n = strtod(e, &num);
		e = num;
	}
	if (*e == ',') {
		e++;
		n = 0;
		if (*e >= '0' && *e <= '9') {
			n = strtod(e, &num);
			e = num;
		}
	}
	if (*e != '}')
		return 0;
	*end = e;
	return m > n ? m : n > 1 ? n : 1;
}

/* A group being sized: its alternatives so far, the current one, and the
 * last atom of that (what a repetition repeats); how deeply repetitions
 * nest in that atom, and in the group. */
struct sizing {
	double alts, cur, last;
	int last_depth, depth;
};

/* A repetition of the last atom: copies of it (1 for * and ?). */
static void repeat(struct sizing *g, double copies)
{
	double grown = g->last * (copies > 1 ? copies : 1) + 1;

	g->cur += grown - g->last;
	g->last = grown;
	if (++g->last_depth > g->depth)
		g->depth = g->last_depth;
}

static void atom(struct sizing *g, double size, int depth)
{
	g->last = size;
	g->cur += size;
	g->last_depth = depth;
	if (depth > g->depth)
		g->depth = depth;
}

/* Past the bounds: regcomp's tree size for re, roughly, over MAX_NODES,
 * or repetitions nested past MAX_NESTING ("(a+)+" is 2, "a++" too):
 * their epsilon closures take regcomp seconds to work out. */
static bool too_big(const char *re)
{
	struct sizing st[MAX_DEPTH] = {{0}};
	const char *end;
	size_t d = 0;
	double k;

	for (const char *s = re; *s; s++) {
		struct sizing *g = &st[d];

		if (*s == '(' && d + 1 < MAX_DEPTH) {
			st[++d] = (struct sizing){0};
			continue;
		}
		if (*s == ')' && d > 0) {
			d--;
			atom(&st[d], g->alts + g->cur + 1, g->depth);
		} else if (*s == '|') {
			g->alts += g->cur + 1;
			g->cur = g->last = 0;
			g->last_depth = 0;
		} else if (*s == '*' || *s == '?') {
			repeat(g, 1);
		} else if (*s == '+') {
			repeat(g, 2);
		} else if (*s == '{' && (k = interval_copies(s, &end)) > 0) {
			repeat(g, k);
			s = end;
		} else {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '[')
				s = skip_bracket(s);
			atom(g, 1, 0);
		}
		if (st[d].alts + st[d].cur > MAX_NODES ||
		    st[d].depth > MAX_NESTING)
			return true;
	}
	return false;
}

int filter__init(struct filter *f, const struct gh_select *sel,
		 struct gh_err *err)
{
	char why[256];
	int rc;

	memset(f, 0, sizeof(*f));
	f->cgroup = sel->cgroup;
	f->container = sel->container;
	if (!sel->comm)
		return 0;
	if (too_big(sel->comm))
		return err_set(
			err, GH_E_USAGE,
			"bad process-name filter '%.64s': its "
			"repetitions ({m,n}, +, *) nest too deeply or "
			"count too high to compile quickly; a name is at "
			"most 15 characters: use fewer, smaller ones",
			sel->comm);
	rc = regcomp(&f->comm, sel->comm, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, &f->comm, why, sizeof(why));
		return err_set(err, GH_E_USAGE,
			       "bad process-name filter '%s': %s; give an "
			       "extended regular expression",
			       sel->comm, why);
	}
	f->has_comm = true;
	return 0;
}

void filter__fini(struct filter *f)
{
	if (f->has_comm)
		regfree(&f->comm);
	f->has_comm = false;
}

bool filter__wants_comm(const struct filter *f)
{
	return f->has_comm;
}

bool filter__wants_cgroup(const struct filter *f)
{
	return f->cgroup || f->container;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool filter__match(const struct filter *f, const char *comm, const char *cgroup)
{
	struct container c;

	if (f->has_comm && (!comm || regexec(&f->comm, comm, 0, NULL, 0)))
		return false;
	if (!filter__wants_cgroup(f))
		return true;
	if (!cgroup || (f->cgroup && !has_prefix(cgroup, f->cgroup)))
		return false;
	if (!f->container)
		return true;
	container_of(cgroup, &c);
	return c.id[0] && has_prefix(c.id, f->container);
}
