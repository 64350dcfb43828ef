/* fuzz_memstat.c - the watch's parsers of text from outside: the input is
 * a file's text, given as a stream in memory to the smaps_rollup and
 * mounts parsers (user/watch/memstat.c) and to the mountinfo one
 * (user/proc/cgmount.c), and as a string to the cgroup
 * value parser, the pressure trigger spec and the size and duration
 * parsers (user/watch/memevent.c, user/base/units.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "base/units.h"
#include "proc/cgmount.h"
#include "watch/memevent.h"
#include "watch/memstat.h"

static FILE *text(const uint8_t *data, size_t size)
{
	return fmemopen((void *)(uintptr_t)data, size, "r");
}

/* The input as a C string, cut at its first NUL. */
static void strings(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct psi_spec spec;
	uint64_t v;

	if (!s)
		return;
	memcpy(s, data, size);
	s[size] = '\0';
	memstat_parse_value(s, &v);
	psi_spec__parse(s, &spec, NULL);
	units_size(s, &v);
	units_duration_us(s, &v);
	free(s);
}

/* The input as /proc/self/mountinfo, asked for a cgroup under a mount
 * point and for one beside the mounts. */
static void mountinfo(const uint8_t *data, size_t size)
{
	static const char *const paths[] = {"/sys/fs/cgroup/memory/x",
					    "/sys/fs/cgroup/x"};
	char out[GH_PATH_MAX];
	FILE *f;

	for (size_t i = 0; i < 2; i++)
		if ((f = text(data, size))) {
			cgmount_resolve(f, paths[i], out, sizeof(out), NULL);
			fclose(f);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memcg_roots *r = malloc(sizeof(*r));
	uint64_t rss, pss;
	FILE *f;

	if ((f = text(data, size))) {
		memstat_read_rollup(f, &rss, &pss);
		fclose(f);
	}
	if (r && (f = text(data, size))) {
		memstat_read_mounts(f, r);
		fclose(f);
	}
	free(r);
	mountinfo(data, size);
	strings(data, size);
	return 0;
}
