/* frames.c - see frames.h. The steps are runtime.(*Frames).Next's
 * (runtime/symtab.go) and funcNameForPrint's (runtime/traceback.go). */
#include <stdlib.h>
#include <string.h>

#include "profile/frames.h"

void framer__init(struct framer *f, struct symcache *sc, uint64_t bias,
		  enum frame_names names)
{
	memset(f, 0, sizeof(*f));
	f->sc = sc;
	f->bias = bias;
	f->names = names;
}

void framer__free(struct framer *f)
{
	for (size_t i = 0; i < f->npnames; i++)
		free(f->pnames[i]);
	free(f->pnames);
	u64map__free(&f->printed);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* name[0..a) "[...]" mid[0..m) tail: a generic name's type lists elided. */
static char *elided(const char *name, size_t a, const char *mid, size_t m,
		    const char *tail)
{
	size_t t = strlen(tail);
	char *s = malloc(a + 5 + m + (m ? 5 : 0) + t + 1), *p = s;

	if (!s)
		return NULL;
	memcpy(p, name, a);
	p += a;
	memcpy(p, "[...]", 5);
	p += 5;
	if (m) {
		memcpy(p, mid, m);
		memcpy(p + m, "[...]", 5);
		p += m + 5;
	}
	memcpy(p, tail, t + 1);
	return s;
}

/* funcNamePiecesForPrint from 1.27: in "f[A].m[B]" (a generic type's
 * method's two lists inside the outer brackets) both lists are elided;
 * balanced brackets in between are not looked into. 1 and *rbr, *lbr
 * (the interior's "]" and "[" around ".m") for two lists, 0 for one, -1
 * for a malformed name, printed whole. */
static int two_lists(const char *in, size_t len, size_t *rbr, size_t *lbr)
{
	long depth = 1, r = -1, l = -1;

	for (size_t k = 0; k < len; k++) {
		if (in[k] == '[') {
			if (++depth != 1)
				continue;
			l = (long)k;
			break;
		}
		if (in[k] == ']') {
			if (--depth < 0)
				break;
			if (depth)
				continue;
			r = (long)k;
		}
	}
	if (depth != 1)
		return -1;
	if (r >= 0 && l > r) {
		*rbr = (size_t)r;
		*lbr = (size_t)l;
		return 1;
	}
	return r == -1 && l == -1 ? 0 : -1;
}

/* Frame.Function of the symbol name: a new string, or NULL when it is
 * name itself. *nomem on allocation failure. A name with "[" but no "]"
 * after it, on which the runtime's loop would run off the string, is
 * printed whole. */
static char *for_print(const char *name, enum frame_names style, bool *nomem)
{
	const char *i = strchr(name, '['), *j = strrchr(name, ']'), *in;
	size_t rbr, lbr, len;
	char *s = NULL;
	int two = 0;

	if (style == FRAME_NAMES_RAW || !i || !j || j <= i)
		return NULL;
	in = i + 1;
	len = (size_t)(j - in);
	if (style == FRAME_NAMES_TWO_LISTS && memchr(in, '[', len))
		two = two_lists(in, len, &rbr, &lbr);
	if (two == 0)
		s = elided(name, (size_t)(i - name), NULL, 0, j + 1);
	else if (two == 1)
		s = elided(name, (size_t)(i - name), in + rbr + 1,
			   lbr - rbr - 1, j + 1);
	else
		return NULL;
	*nomem = !s;
	return s;
}

/* The name as Frame.Function spells it; NULL when out of memory. */
static const char *printed(struct framer *f, const char *name)
{
	uint64_t key = (uint64_t)(uintptr_t)name;
	bool nomem = false;
	uint32_t i;
	char *s;

	if (u64map__get(&f->printed, key, NULL, NULL, &i))
		return i ? f->pnames[i - 1] : name;
	s = for_print(name, f->names, &nomem);
	if (nomem)
		return NULL;
	if (s && f->npnames == f->pcap) {
		size_t cap = f->pcap ? f->pcap * 2 : 64;
		void *v = realloc(f->pnames, cap * sizeof(*f->pnames));

		if (!v) {
			free(s);
			return NULL;
		}
		f->pnames = v;
		f->pcap = cap;
	}
	if (s)
		f->pnames[f->npnames++] = s;
	/* 0: the name itself; i: pnames[i - 1] */
	if (u64map__put(&f->printed, key, s ? (uint32_t)f->npnames : 0))
		return NULL;
	return s ? s : name;
}

int framer__frames(struct framer *f, const uint64_t *stk, size_t n,
		   size_t *nout)
{
	struct pcframe pf;
	size_t m = 0;

	if (n > f->cap) {
		void *v = realloc(f->v, n * sizeof(*f->v));

		if (!v)
			return -1;
		f->v = v;
		f->cap = n;
	}
	for (size_t k = 0; k < n; k++) {
		struct pframe *fr = &f->v[m];

		if (symcache__get(f->sc, stk[k], &pf))
			return -1;
		if (!pf.entry)
			continue; /* in no function: Frames.Next skips it */
		fr->pc = pf.frame_pc + f->bias;
		fr->entry = pf.entry + f->bias;
		fr->function = printed(f, pf.function);
		fr->file = pf.file;
		fr->line = pf.line;
		if (!fr->function)
			return -1;
		m++;
	}
	*nout = m;
	return 0;
}
