/* tabwriter.c - text/tabwriter's Writer (tabwriter.go), step for step,
 * for padding with tabs and no flags; see tabwriter.h. */
#include <stdlib.h>
#include <string.h>

#include "write/tabwriter.h"

#define ESCAPE 0xff /* tabwriter.Escape */

/* utf8.RuneCount: each invalid byte, or cut sequence, counts as one. */
static size_t rune_count(const uint8_t *p, size_t n)
{
	size_t count = 0, i = 0, size;
	uint8_t c, lo, hi;

	while (i < n) {
		count++;
		c = p[i];
		if (c < 0xc2 || c > 0xf4) {
			i++; /* ASCII, or a byte no sequence starts with */
			continue;
		}
		size = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
		if (i + size > n || p[i + 1] < lo || p[i + 1] > hi ||
		    (size > 2 && (p[i + 2] < 0x80 || p[i + 2] > 0xbf)) ||
		    (size > 3 && (p[i + 3] < 0x80 || p[i + 3] > 0xbf)))
			size = 1;
		i += size;
	}
	return count;
}

/* Room for entry n of *v (*cap entries of size bytes); false, and w
 * failed, when out of memory. */
static bool room(struct tabwriter *w, void **v, size_t n, size_t *cap,
		 size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 16;
	void *nv;

	if (n < *cap)
		return true;
	nv = realloc(*v, ncap * size);
	if (!nv) {
		w->failed = true;
		return false;
	}
	*v = nv;
	*cap = ncap;
	return true;
}

static void add_line(struct tabwriter *w)
{
	if (!room(w, (void **)&w->lines, w->nlines, &w->lcap,
		  sizeof(*w->lines)))
		return;
	if (w->nlines == w->lused)
		w->lines[w->lused++] = (struct twline){0};
	w->lines[w->nlines++].n = 0;
}

static void reset(struct tabwriter *w)
{
	w->buf.len = 0;
	w->pos = w->rpos = 0;
	w->cell = (struct twcell){0};
	w->escaped = false;
	w->nlines = 0;
	w->nwidths = 0;
	add_line(w);
}

void tabwriter__init(struct tabwriter *w, struct pbuf *out, int64_t minwidth,
		     int64_t tabwidth, int64_t padding)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->minwidth = minwidth;
	w->tabwidth = tabwidth;
	w->padding = padding;
	reset(w);
}

void tabwriter__free(struct tabwriter *w)
{
	for (size_t i = 0; i < w->lused; i++)
		free(w->lines[i].c);
	free(w->lines);
	free(w->widths);
	free(w->stack);
	pbuf__free(&w->buf);
	memset(w, 0, sizeof(*w));
}

/* ---- formatting ---- */

static void put(struct tabwriter *w, const void *s, size_t n)
{
	pbuf__bytes(w->out, s, n);
}

/* writePadding with tabs: cellw rounded up to a tab stop. */
static void write_padding(struct tabwriter *w, int64_t textw, int64_t cellw)
{
	static const char tabs[8] = "\t\t\t\t\t\t\t\t";
	int64_t n;

	if (w->tabwidth == 0)
		return; /* tabs have no width: no padding */
	cellw = (cellw + w->tabwidth - 1) / w->tabwidth * w->tabwidth;
	n = cellw - textw;
	for (n = (n + w->tabwidth - 1) / w->tabwidth; n > 0; n -= 8)
		put(w, tabs, n < 8 ? (size_t)n : 8);
}

static void write_lines(struct tabwriter *w, size_t line0, size_t line1)
{
	for (size_t i = line0; i < line1; i++) {
		const struct twline *l = &w->lines[i];

		for (size_t j = 0; j < l->n; j++) {
			const struct twcell *c = &l->c[j];

			put(w, w->buf.data + w->rpos, c->size);
			w->rpos += c->size;
			if (j < w->nwidths)
				write_padding(w, c->width, w->widths[j]);
		}
		if (i + 1 == w->nlines) {
			/* the last line: what there is of its cell */
			put(w, w->buf.data + w->rpos, w->cell.size);
			w->rpos += w->cell.size;
		} else {
			put(w, "\n", 1);
		}
	}
}

/* Does line i have a cell in column (one that is not its last)? */
static bool in_column(const struct tabwriter *w, size_t i, size_t column)
{
	return column + 1 < w->lines[i].n;
}

static bool push(struct tabwriter *w, size_t line0, size_t line1)
{
	if (!room(w, (void **)&w->stack, w->nstack, &w->scap,
		  sizeof(*w->stack)))
		return false;
	w->stack[w->nstack++] = (struct twframe){line0, line0, line1};
	return true;
}

/* format(0, 0, len(lines)): each frame is one call of Go's recursive
 * format, for the column that is its depth; a child frame is the block
 * of the column to its right. */
static void format(struct tabwriter *w)
{
	if (!push(w, 0, w->nlines))
		return;
	while (w->nstack) {
		struct twframe *f = &w->stack[w->nstack - 1];
		size_t column = w->nwidths, end;
		int64_t width = w->minwidth;

		while (f->at < f->line1 && !in_column(w, f->at, column))
			f->at++;
		if (f->at >= f->line1) {
			/* the lines left, then back to the caller, which
			 * resumes after the block (its loop's this++) */
			write_lines(w, f->line0, f->line1);
			if (--w->nstack) {
				w->nwidths--;
				f = &w->stack[w->nstack - 1];
				f->line0 = f->at;
				f->at++;
			}
			continue;
		}
		write_lines(w, f->line0, f->at);
		f->line0 = f->at;
		for (end = f->at; end < f->line1 && in_column(w, end, column);
		     end++)
			if (w->lines[end].c[column].width + w->padding > width)
				width = w->lines[end].c[column].width +
					w->padding;
		if (!room(w, (void **)&w->widths, w->nwidths, &w->wcap,
			  sizeof(*w->widths)))
			return;
		w->widths[w->nwidths++] = width;
		f->at = end;
		if (!push(w, f->line0, end))
			return;
	}
}

/* ---- reading ---- */

static void append(struct tabwriter *w, const char *s, size_t n)
{
	pbuf__bytes(&w->buf, s, n);
	w->cell.size += n;
}

static void update_width(struct tabwriter *w)
{
	w->cell.width +=
		(int64_t)rune_count(w->buf.data + w->pos, w->buf.len - w->pos);
	w->pos = w->buf.len;
}

/* The cell ends; the number of cells of its line now. */
static size_t terminate_cell(struct tabwriter *w)
{
	struct twline *l = &w->lines[w->nlines - 1];

	if (!room(w, (void **)&l->c, l->n, &l->cap, sizeof(*l->c)))
		return 0;
	l->c[l->n++] = w->cell;
	w->cell = (struct twcell){0};
	return l->n;
}

static void end_escape(struct tabwriter *w)
{
	update_width(w);
	w->cell.width -= 2; /* the two Escape bytes */
	w->pos = w->buf.len;
	w->escaped = false;
}

void tabwriter__flush(struct tabwriter *w)
{
	w->failed |= w->buf.failed;
	if (w->failed)
		return;
	if (w->cell.size > 0) {
		if (w->escaped)
			end_escape(w);
		terminate_cell(w);
	}
	format(w);
	reset(w);
}

void tabwriter__write(struct tabwriter *w, const char *s, size_t len)
{
	size_t n = 0, ncells;

	for (size_t i = 0; i < len && !w->failed; i++) {
		uint8_t ch = (uint8_t)s[i];

		if (w->escaped) {
			if (ch == ESCAPE) {
				append(w, s + n, i + 1 - n);
				n = i + 1;
				end_escape(w);
			}
			continue;
		}
		if (ch == ESCAPE) {
			append(w, s + n, i - n);
			update_width(w);
			n = i; /* the Escape byte stays in the cell */
			w->escaped = true;
			continue;
		}
		if (ch != '\t' && ch != '\v' && ch != '\n' && ch != '\f')
			continue;
		append(w, s + n, i - n);
		update_width(w);
		n = i + 1;
		ncells = terminate_cell(w);
		if (ch == '\n' || ch == '\f') {
			add_line(w);
			/* A line of one cell cannot shape the lines after
			 * it; '\f' always flushes. */
			if (ch == '\f' || ncells == 1)
				tabwriter__flush(w);
		}
	}
	append(w, s + n, len - n);
}
