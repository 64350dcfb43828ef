/* fuzz_proc.c - the /proc/PID text parsers (user/proc/proc.c): the input
 * is a file's text, given as a stream in memory to each parser in turn -
 * stat, status, maps, cgroup - as the readers of /proc give them the
 * file. Parsed maps go on to the load-bias lookup that uses them. */
#include <stdint.h>

#include "fuzz.h"

#include "proc/proc.h"

/* The input as a stream of its own (read-only: data is not written). */
static FILE *text(const uint8_t *data, size_t size)
{
	return fmemopen((void *)(uintptr_t)data, size, "r");
}

static void maps(FILE *f)
{
	struct procmaps m;
	struct gh_err err;
	uint64_t bias;

	if (proc_read_maps(f, 1, &m, &err) == 0 && m.n)
		proc_file_bias(1, &m, &m.v[m.n - 1], m.v[0].start,
			       m.v[0].offset, &bias, &err);
	procmaps__free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char cgroup[256], tiny[4], state;
	uint64_t ticks;
	FILE *f;

	if ((f = text(data, size))) {
		proc_read_stat(f, &state, &ticks);
		fclose(f);
	}
	if ((f = text(data, size))) {
		proc_read_tgid(f);
		fclose(f);
	}
	if ((f = text(data, size))) {
		maps(f);
		fclose(f);
	}
	if ((f = text(data, size))) {
		proc_read_cgroup(f, cgroup, sizeof(cgroup));
		fclose(f);
	}
	/* A path longer than the caller's buffer is cut, never overrun. */
	if ((f = text(data, size))) {
		proc_read_cgroup(f, tiny, sizeof(tiny));
		fclose(f);
	}
	return 0;
}
