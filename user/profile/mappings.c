/* mappings.c - the profile's mappings, as runtime/pprof's
 * parseProcSelfMaps builds them from the target's /proc/PID/maps:
 * executable entries with a path, " (deleted)" trimmed, and the GNU build
 * ID of each file read through /proc/PID/map_files (so files in other
 * mount namespaces, or deleted ones, still give theirs). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "profile/mappings.h"

static const char deleted[] = " (deleted)";

static char *trimmed_path(const char *path)
{
	size_t n = strlen(path), d = sizeof(deleted) - 1;

	if (n >= d && strcmp(path + n - d, deleted) == 0)
		n -= d;
	return strndup(path, n);
}

/* elfBuildID: "" for [vdso] and files that are not ELF or have none. */
static char *build_id_of(int pid, const struct procmap *m, struct buildids *ids)
{
	char path[128];

	if (m->path[0] == '[')
		return strdup("");
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 pid, m->start, m->end);
	return buildids__get(ids, path);
}

static bool wanted(const struct procmap *m)
{
	/* Executable only; anonymous entries have no path. */
	return m->perms[2] == 'x' && m->path[0] != '\0';
}

int mappings_build(int pid, const struct procmaps *maps, struct buildids *ids,
		   struct gh_profile *p, struct gh_err *err)
{
	size_t i, n = 0;

	p->mappings = calloc(maps->n ? maps->n : 1, sizeof(*p->mappings));
	if (!p->mappings)
		return err_set(err, GH_E_FAILED, "out of memory");
	for (i = 0; i < maps->n; i++) {
		const struct procmap *m = &maps->v[i];
		struct gh_mapping *o = &p->mappings[n];

		if (!wanted(m))
			continue;
		o->start = m->start;
		o->limit = m->end;
		o->offset = m->offset;
		o->file = trimmed_path(m->path);
		o->build_id = build_id_of(pid, m, ids);
		p->nmappings = ++n;
		if (!o->file || !o->build_id)
			return err_set(err, GH_E_FAILED, "out of memory");
	}
	return 0;
}
