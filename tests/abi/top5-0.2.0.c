/* top5.c - an example of the goheap library: snapshot one Go process and
 * print its five largest in-use stacks, leaf first, as
 *
 *   BYTES OBJECTS
 *   	function file:line
 *   	...
 *
 * Samples with the same stack are added up, as goheap-bpf's JSON entries
 * are. Build it against the installed library:
 *
 *   cc -o top5 top5.c $(pkg-config --cflags --libs goheap)
 *   sudo ./top5 PID
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <goheap.h>

#define SHOWN 5

/* A stack and what its samples hold in use. */
struct entry {
	const struct gh_sample *s; /* the first sample with this stack */
	long long bytes, objects;
};

static bool same_stack(const struct gh_sample *x, const struct gh_sample *y)
{
	return x->nlocs == y->nlocs &&
	       (!x->nlocs ||
		!memcmp(x->locs, y->locs, x->nlocs * sizeof(*x->locs)));
}

/* Samples sorted by stack, equal stacks in profile order. */
static int by_stack(const void *a, const void *b)
{
	const struct gh_sample *x = *(const struct gh_sample *const *)a;
	const struct gh_sample *y = *(const struct gh_sample *const *)b;

	if (x->nlocs != y->nlocs)
		return x->nlocs < y->nlocs ? -1 : 1;
	if (x->nlocs) {
		int c = memcmp(x->locs, y->locs, x->nlocs * sizeof(*x->locs));

		if (c)
			return c;
	}
	return x < y ? -1 : x > y;
}

static int by_bytes(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->objects != y->objects)
		return x->objects > y->objects ? -1 : 1;
	return x->s < y->s ? -1 : x->s > y->s;
}

static void print_stack(const struct gh_profile *p, const struct gh_sample *s)
{
	for (uint32_t i = 0; i < s->nlocs; i++) {
		const struct gh_location *l = &p->locations[s->locs[i]];

		if (!l->nlines)
			printf("\t0x%llx\n", (unsigned long long)l->address);
		for (uint32_t j = 0; j < l->nlines; j++) {
			const struct gh_function *f =
				&p->functions[l->lines[j].function];

			printf("\t%s %s:%lld\n", f->name, f->filename,
			       (long long)l->lines[j].line);
		}
	}
}

/* Merge p's samples by stack, rank them by in-use bytes, print SHOWN. */
static int print_top(const struct gh_profile *p)
{
	const struct gh_sample **v = calloc(p->nsamples + 1, sizeof(*v));
	struct entry *e = calloc(p->nsamples + 1, sizeof(*e));
	size_t i, n = 0;

	if (!v || !e)
		return -1;
	for (i = 0; i < p->nsamples; i++)
		v[i] = &p->samples[i];
	qsort(v, p->nsamples, sizeof(*v), by_stack);
	for (i = 0; i < p->nsamples; i++) {
		if (!n || !same_stack(e[n - 1].s, v[i]))
			e[n++] = (struct entry){v[i], 0, 0};
		e[n - 1].bytes += v[i]->value[GH_INUSE_SPACE];
		e[n - 1].objects += v[i]->value[GH_INUSE_OBJECTS];
	}
	qsort(e, n, sizeof(*e), by_bytes);
	for (i = 0; i < n && i < SHOWN && e[i].bytes; i++) {
		printf("%lld %lld\n", e[i].bytes, e[i].objects);
		print_stack(p, e[i].s);
	}
	free(v);
	free(e);
	return 0;
}

int main(int argc, char **argv)
{
	int pid = argc == 2 ? atoi(argv[1]) : 0;
	struct gh_request rq = {.keep_samples = true};
	struct gh_collector *c;
	struct gh_results *r;
	struct gh_err err;
	int st;

	if (pid <= 0) {
		fprintf(stderr, "usage: top5 PID\n");
		return 2;
	}
	rq.select.pids = &pid;
	rq.select.npids = 1;
	if (gh_collector__new(NULL, &c, &err) ||
	    gh_collector__collect(c, &rq, &r, &err)) {
		fprintf(stderr, "top5: %s\n", err.msg);
		return err.code;
	}
	st = gh_results__status(r);
	if (st && st != GH_E_PARTIAL)
		fprintf(stderr, "top5: %s\n", r->v[0].err.msg);
	else if (print_top(r->v[0].profile))
		st = GH_E_FAILED;
	gh_results__free(r);
	gh_collector__free(c);
	return st;
}
