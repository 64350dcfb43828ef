/* tabwriter.h - Go's text/tabwriter, as runtime/pprof's legacy text uses
 * it (tabwriter.NewWriter(w, minwidth 1, tabwidth 8, padding 1, '\t', 0)):
 * cells end at '\t', '\v', '\n' or '\f'; a column block is a run of
 * lines that each have a cell in that column, as wide as its widest cell
 * (in runes, as utf8.RuneCount counts them) plus the padding, padded with
 * tabs; text between two 0xff bytes (tabwriter.Escape) is one run,
 * counted without them; a line of one cell, and '\f', flush. Only what
 * that call uses: padding with tabs, no flags. */
#ifndef GH_WRITE_TABWRITER_H
#define GH_WRITE_TABWRITER_H

#include <stdint.h>

#include "write/pbuf.h"

struct twcell {
	size_t size;   /* bytes of text */
	int64_t width; /* in runes, escapes' 0xff bytes not counted */
};

struct twline {
	struct twcell *c;
	size_t n, cap;
};

/* format()'s recursion, one frame a column, kept on the heap: a line's
 * cells, and so the depth, come from the target's symbol names. */
struct twframe {
	size_t line0, at, line1;
};

struct tabwriter {
	int64_t minwidth, tabwidth, padding;
	struct pbuf *out;
	struct pbuf buf;      /* cells' text, tabs and line breaks left out */
	size_t pos;	      /* buf's runes are counted up to here */
	size_t rpos;	      /* buf is written out up to here */
	struct twcell cell;   /* the cell being read */
	bool escaped;	      /* inside 0xff ... 0xff */
	struct twline *lines; /* [nlines, lused) kept for their cells */
	size_t nlines, lused, lcap;
	int64_t *widths;
	size_t nwidths, wcap;
	struct twframe *stack;
	size_t nstack, scap;
	bool failed; /* out of memory: out is incomplete */
};

/* A writer into out (pbuf's sticky failure for out of memory). */
void tabwriter__init(struct tabwriter *w, struct pbuf *out, int64_t minwidth,
		     int64_t tabwidth, int64_t padding);
void tabwriter__write(struct tabwriter *w, const char *s, size_t n);
/* Write out everything buffered (Writer.Flush). */
void tabwriter__flush(struct tabwriter *w);
/* Free what w holds (not out). */
void tabwriter__free(struct tabwriter *w);

#endif
