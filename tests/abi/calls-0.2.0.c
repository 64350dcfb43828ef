/* calls-0.2.0.c - a program written against 0.2.0's goheap.h (built
 * against tests/abi/goheap-0.2.0.h) whose calls fail, without BPF or a
 * target, with a message that only a field given at its 0.2.0 place can
 * cause: each of the 0.2.0 entry points whose structs changed (user/compat/)
 * must hand the library the caller's values. Exits 1 naming the first
 * call that does not, 0 when all do. */
#include <stdio.h>
#include <string.h>

#include <goheap.h>

static int bad;

/* rc must be -1 with status code and a message holding want. */
static void expect(const char *call, int rc, const struct gh_err *err,
		   enum gh_status code, const char *want)
{
	if (rc == -1 && err->code == code && strstr(err->msg, want))
		return;
	fprintf(stderr,
		"calls-0.2.0: %s: %d, status %d '%s'; want status %d "
		"and '%s'\n",
		call, rc, err->code, err->msg, code, want);
	bad = 1;
}

int main(void)
{
	struct gh_collector_opts bad_backend = {.workers = 1, .backend = 99};
	struct gh_collector_opts co = {.backend = GH_BACKEND_PROCMEM};
	struct gh_write_opts w = {.format = GH_FORMAT_JSON, .index = 9};
	struct gh_request render = {.render = &w, .nrender = 1};
	struct gh_request comm = {.select = {.comm = "goheap("}};
	struct gh_profile p = {.pid = 1};
	struct gh_oom_watch_opts oo = {.max_processes = 1, .ring_bytes = 1000};
	struct gh_watch_opts wo = {.select = {.runtime = "1"},
				   .cgroup_above = 150,
				   .output_dir = "/nonexistent"};
	struct gh_collector *c = NULL;
	struct gh_oom_watch *ow = NULL;
	struct gh_watch *wa = NULL;
	struct gh_results *r = NULL;
	struct gh_err err;

	expect("gh_collector__new", gh_collector__new(&bad_backend, &c, &err),
	       &err, GH_E_USAGE, "unknown backend 99");
	if (gh_collector__new(&co, &c, &err)) {
		fprintf(stderr, "calls-0.2.0: gh_collector__new: %s\n",
			err.msg);
		return 1;
	}
	expect("gh_collector__collect (render)",
	       gh_collector__collect(c, &render, &r, &err), &err, GH_E_USAGE,
	       "render list names an unknown format or sample index");
	expect("gh_collector__collect (select)",
	       gh_collector__collect(c, &comm, &r, &err), &err, GH_E_USAGE,
	       "bad process-name filter 'goheap('");
	expect("gh_profile__write", gh_profile__write(&p, stdout, &w, &err),
	       &err, GH_E_USAGE, "unknown sample index 9");
	expect("gh_oom_watch__new", gh_oom_watch__new(&oo, &ow, &err), &err,
	       GH_E_USAGE, "ring_bytes must be a power of two");
	expect("gh_watch__new", gh_watch__new(c, &wo, &wa, &err), &err,
	       GH_E_USAGE, "a cgroup share of 150%");
	gh_collector__free(c);
	return bad;
}
