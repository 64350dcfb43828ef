/* fuzz_cgroup.c - what a sweep reads off a process to select and label
 * it: the container and pod of a cgroup path (user/proc/container.c), and
 * the request's filters (user/collect/filter.c: a name regex, a cgroup
 * prefix, a container ID prefix) judged on a name and a cgroup path.
 *
 * Input: byte 0 says which filters are set (bit 0 name, bit 1 cgroup,
 * bit 2 container); then four NUL-terminated strings: the name regex (at
 * most 32 bytes used), the cgroup prefix, the container prefix, the
 * process name (at most 15 bytes, as the kernel's comm); the rest is the
 * cgroup path. Checked: a container ID, runtime and pod UID are found
 * only in the path, the runtime is one of the known ones, and a process
 * that passes the container filter has a container ID with that
 * prefix. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "collect/filter.h"
#include "proc/container.h"

/* The next NUL-terminated string of the input, at most max bytes kept. */
static char *next_string(struct input *in, size_t max)
{
	const uint8_t *p = in->p;
	size_t n = 0;
	char *s;

	while (n < in->n && p[n])
		n++;
	s = strndup((const char *)p, n < max ? n : max);
	in->p += n < in->n ? n + 1 : n;
	in->n -= n < in->n ? n + 1 : n;
	if (!s)
		abort();
	return s;
}

static void check_container(const char *path)
{
	static const char *const runtimes[] = {"",	     "docker",
					       "containerd", "cri-o",
					       "podman",     "systemd-nspawn"};
	struct container c;
	bool known = false;

	container_of(path, &c);
	if (strnlen(c.id, sizeof(c.id)) == sizeof(c.id) ||
	    strnlen(c.pod_uid, sizeof(c.pod_uid)) == sizeof(c.pod_uid))
		abort();
	if ((c.id[0] && !strstr(path, c.id)) || (c.runtime[0] && !c.id[0]))
		abort();
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		known |= strcmp(c.runtime, runtimes[i]) == 0;
	if (!known)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	uint8_t which = in_u8(&in);
	char *re = next_string(&in, 32), *cg = next_string(&in, 4096),
	     *ct = next_string(&in, 128), *comm = next_string(&in, 15),
	     *path = next_string(&in, 4096);
	struct gh_select sel = {.sz = sizeof(struct gh_select),
				.comm = which & 1 ? re : NULL,
				.cgroup = which & 2 ? cg : NULL,
				.container = which & 4 ? ct : NULL};
	struct container c;
	struct filter f;
	struct gh_err err;

	check_container(path);
	if (!filter__init(&f, &sel, &err)) {
		if (filter__match(&f, comm, path) && sel.container) {
			container_of(path, &c);
			if (strncmp(c.id, ct, strlen(ct)))
				abort();
		}
		filter__fini(&f);
	}
	free(re);
	free(cg);
	free(ct);
	free(comm);
	free(path);
	return 0;
}
