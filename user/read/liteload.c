/* liteload.c - see liteload.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <bpf/skel_internal.h>

#include "base/err.h"
#include "read/bpfenv.h"
#include "read/liteload.h"

/* The verifier's log of a failed load, for -v: what libbpf keeps at most
 * for its own. */
#define LOG_BYTES (16u << 20)

/* The verifier's words on a failed load, line by line to env's debug
 * callback: the load again, with a log. */
static void load_log(const struct litespec *s, const void *arg, uint32_t ncpus,
		     const struct backend_env *env)
{
	struct bpf_loader_ctx *ctx;
	void *skel;
	char *log;

	if (!env->debug || !(log = calloc(1, LOG_BYTES)))
		return;
	if ((skel = s->open(arg, ncpus))) {
		ctx = skel;
		ctx->log_level = 1;
		ctx->log_size = LOG_BYTES;
		ctx->log_buf = (uint64_t)(uintptr_t)log;
		s->load(skel);
		s->destroy(skel);
	}
	bpfenv_debug_lines(env, log);
	free(log);
}

int liteload(const struct litespec *s, const void *arg,
	     const struct backend_env *env, void **skel, struct gh_err *err)
{
	const struct bpfload_spec explain = {.probe = s->probe,
					     .any_failure = true};
	int ncpus = libbpf_num_possible_cpus(), rc;

	*skel = NULL;
	if (ncpus <= 0)
		errno = ncpus ? -ncpus : EINVAL;
	else
		*skel = s->open(arg, (uint32_t)ncpus);
	if (!*skel)
		return err_set(err, GH_E_FAILED,
			       "opening the BPF object failed: %s",
			       strerror(errno));
	rc = s->load(*skel);
	if (!rc)
		return 0;
	load_log(s, arg, (uint32_t)ncpus, env);
	return bpfload_explain(&explain, rc, err);
}
