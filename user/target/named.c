/* named.c - which of a process's Go runtimes a name means: its number
 * ("2", from 1) or the file holding it (full path or file name), as
 * gh_select.runtime and gh_goroutine_opts.runtime name one. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "target/target.h"

bool target__named(const struct target *t, const char *name)
{
	const char *file = t->file, *base = strrchr(file, '/');
	char *end;
	long n;

	if (!name)
		return true;
	n = strtol(name, &end, 10);
	if (end != name && !*end && n > 0)
		return (size_t)n == t->index;
	return strcmp(name, file) == 0 || (base && strcmp(name, base + 1) == 0);
}

int target__pick(struct target *const *ts, size_t n, const char *name,
		 size_t *i, struct gh_err *err)
{
	size_t k = 0;

	*i = 0;
	if (!name)
		return 0;
	for (size_t j = 0; j < n; j++)
		if (target__named(ts[j], name)) {
			*i = j;
			k++;
		}
	if (k == 1)
		return 0;
	return err_set(err, GH_E_USAGE,
		       "runtime '%s' names %s of the %zu Go runtimes of "
		       "process %d; give a number from 1 to %zu or the full "
		       "path of the file",
		       name, k ? "several" : "none", n, ts[0]->pid, n);
}
