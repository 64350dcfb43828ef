/* huatuo.h - the entries of Huatuo's Go heap snapshot (ccfos/huatuo
 * memsnapshot: Entry), one per distinct allocation stack, summed as a
 * profile's samples arrive and put in the document's order once it is
 * built (huatuo.c); json.c writes them. */
#ifndef GH_WRITE_HUATUO_H
#define GH_WRITE_HUATUO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "goheap.h"

#define HUATUO_NONE UINT32_MAX

/* One frame of a location: a line of its function, or its bare PC. */
struct huatuo_frame {
	const struct gh_function *fn; /* NULL: unsymbolized location */
	int64_t line;
	uint64_t pc;
};

typedef bool (*huatuo_frame_fn)(void *ctx, const struct huatuo_frame *fr);

/* Call fn for each frame of location l: every line, or its bare PC when it
 * has none; none when it names a missing function (no sample that has it
 * is let in). True when fn did (stop). */
bool huatuo_location__frames(const struct gh_profile *p,
			     const struct gh_location *l, huatuo_frame_fn fn,
			     void *ctx);

struct huatuo_entries;

/* NULL when out of memory. */
struct huatuo_entries *huatuo_entries__new(void);
/* Back to no entries. */
void huatuo_entries__reset(struct huatuo_entries *es);
void huatuo_entries__free(struct huatuo_entries *es);

/* Sum s into its entry (alloc: its alloc_ values, else its inuse_ ones).
 * A sample that refers to nothing of p is not let in, and marks es (see
 * huatuo_entries__bad_refs). -1 when out of memory. */
int huatuo_entries__add(struct huatuo_entries *es, const struct gh_profile *p,
			const struct gh_sample *s, bool alloc);
/* Whether a sample referred to a missing location or function. */
bool huatuo_entries__bad_refs(const struct huatuo_entries *es);

/* No more samples: the entries to write, those with something, by bytes,
 * objects descending, then name, then first-sample order, cut to top_n
 * (0: all). -1 when out of memory. */
int huatuo_entries__order(struct huatuo_entries *es, const struct gh_profile *p,
			  size_t top_n);
/* After huatuo_entries__order: how many entries to write, the i-th of
 * them, and whether top_n cut some. */
size_t huatuo_entries__shown(const struct huatuo_entries *es);
uint32_t huatuo_entries__at(const struct huatuo_entries *es, size_t i);
bool huatuo_entries__cut(const struct huatuo_entries *es);

int64_t huatuo_entries__bytes(const struct huatuo_entries *es, uint32_t e);
int64_t huatuo_entries__objects(const struct huatuo_entries *es, uint32_t e);
/* Entry e's leaf location (HUATUO_NONE for an empty stack), and in *node
 * its callers (HUATUO_NONE: none). */
uint32_t huatuo_entries__leaf(const struct huatuo_entries *es, uint32_t e,
			      uint32_t *node);
/* The location at *node, leaf side first; *node becomes its caller. */
uint32_t huatuo_entries__caller(const struct huatuo_entries *es,
				uint32_t *node);

/* What each location of a profile gives the name of an entry that has
 * it: its first frame outside the runtime (NULL: none), and its first
 * frame. An unsymbolized location's frame is its PC, in pc. */
struct huatuo_names {
	const char **own, **first;
	char (*pc)[20];
};

/* p's names; -1 when out of memory (free them all the same). */
int huatuo_names__build(struct huatuo_names *ln, const struct gh_profile *p);
void huatuo_names__free(struct huatuo_names *ln);

/* Entry e's name: its first frame outside the runtime ("runtime.",
 * "internal/runtime/"), leaf first, else its first frame; "" for an empty
 * stack. */
const char *huatuo_entries__name(const struct huatuo_entries *es,
				 const struct huatuo_names *ln, uint32_t e);

#endif
