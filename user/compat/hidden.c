/* hidden.c - the 0.2.0 exports that 0.3.0 keeps for the command alone
 * (cli/cli.h: hidden in libgoheap.so), exported again under GOHEAP_0 only,
 * so that 0.2.0's programs find them and new ones cannot link them. In
 * libgoheap.so only. */
#include "cli/cli.h"
#include "compat/v0_2.h"

int compat_size__parse_0_2(const char *s, uint64_t *bytes)
{
	return gh_size__parse(s, bytes);
}
COMPAT_0_2(compat_size__parse_0_2, gh_size__parse);

int compat_duration__parse_0_2(const char *s, uint64_t *ms)
{
	return gh_duration__parse(s, ms);
}
COMPAT_0_2(compat_duration__parse_0_2, gh_duration__parse);

void compat_json__quote_0_2(FILE *f, const char *s)
{
	gh_json__quote(f, s);
}
COMPAT_0_2(compat_json__quote_0_2, gh_json__quote);

int compat_cgroup__path_0_2(const char *path, char *out, size_t size,
			    struct gh_err *err)
{
	return gh_cgroup__path(path, out, size, err);
}
COMPAT_0_2(compat_cgroup__path_0_2, gh_cgroup__path);

int compat_output__open_0_2(const char *path, struct gh_output **out,
			    struct gh_err *err)
{
	return gh_output__open(path, out, err);
}
COMPAT_0_2(compat_output__open_0_2, gh_output__open);

FILE *compat_output__file_0_2(struct gh_output *o)
{
	return gh_output__file(o);
}
COMPAT_0_2(compat_output__file_0_2, gh_output__file);

int compat_output__commit_0_2(struct gh_output *o, struct gh_err *err)
{
	return gh_output__commit(o, err);
}
COMPAT_0_2(compat_output__commit_0_2, gh_output__commit);

void compat_output__abort_0_2(struct gh_output *o)
{
	gh_output__abort(o);
}
COMPAT_0_2(compat_output__abort_0_2, gh_output__abort);

void compat_output__cleanup_0_2(void)
{
	gh_output__cleanup();
}
COMPAT_0_2(compat_output__cleanup_0_2, gh_output__cleanup);
