/* v0_2.h - the 0.2.0 layouts of the structs that 0.3.0 changed (each
 * options struct gained sz; gh_request and gh_watch_opts held gh_select
 * and gh_bounds by value), and the 0.2.0 entry points that take them:
 * what a program built against 0.2.0's goheap.h passes, kept working by
 * compat.c. Field for field as 0.2.0 declared them (tests/abi holds that
 * header); never to change. */
#ifndef GH_COMPAT_V0_2_H
#define GH_COMPAT_V0_2_H

#include "goheap.h"

struct gh_write_opts_0_2 {
	enum gh_format format;
	enum gh_value index;
	size_t top_n;
	bool labels;
	const char *const *comments;
	size_t ncomments;
};

struct gh_collector_opts_0_2 {
	enum gh_backend backend;
	unsigned workers;
	bool keep_stacks;
	size_t max_binaries;
	size_t max_kept_bytes;
	void (*debug)(void *arg, const char *line);
	void *debug_arg;
};

struct gh_select_0_2 {
	const int *pids;
	size_t npids;
	bool pids_filter;
	const char *comm;
	const char *cgroup;
	const char *container;
	bool exclude_self;
	const char *runtime;
};

struct gh_bounds_0_2 {
	uint64_t max_buckets;
	uint32_t max_stack_depth;
	uint64_t max_read_bytes;
	uint64_t max_target_ms;
};

struct gh_request_0_2 {
	struct gh_select_0_2 select;
	struct gh_bounds_0_2 bounds;
	const struct gh_write_opts_0_2 *render;
	size_t nrender;
	bool keep_samples;
	int (*sink)(void *arg, const struct gh_profile *p, struct gh_sink *out);
	void *sink_arg;
	bool count_only;
	uint64_t timeout_ms;
	void (*opened)(void *arg, size_t nresults);
	void *opened_arg;
	void (*result)(void *arg, struct gh_result *r);
	void *result_arg;
};

struct gh_oom_watch_opts_0_2 {
	void (*victim)(void *arg, const struct gh_oom *oom,
		       struct gh_result *r);
	void *arg;
	size_t max_processes;
	uint32_t ring_bytes;
	void (*debug)(void *arg, const char *line);
	void *debug_arg;
};

struct gh_watch_opts_0_2 {
	struct gh_select_0_2 select;
	uint64_t interval_ms;
	uint64_t rss_above;
	double cgroup_above;
	const char *pressure;
	uint64_t growth_bytes;
	uint64_t growth_window_ms;
	bool at_peak;
	uint64_t every_ms;
	bool no_oom;
	uint64_t cooldown_ms;
	size_t keep_files;
	uint64_t keep_bytes;
	size_t leak_window;
	const char *output_dir;
	struct gh_bounds_0_2 bounds;
	uint64_t timeout_ms;
	void (*written)(void *arg, const struct gh_watch_event *ev);
	void (*problem)(void *arg, int pid, const struct gh_err *err);
	void *arg;
	uint32_t oom_ring_bytes;
};

/* The 0.2.0 entry points, exported as NAME@GOHEAP_0 (0.2.0's version
 * node) beside 0.3.0's NAME@@GOHEAP_0.3.0: each converts its arguments
 * and calls the new one, with 0.2.0's behaviour. No program links them
 * anew (the linker binds new programs to the default version). */
#define GH_COMPAT_0_2 GH_API GH_DEPRECATED("0.2.0's ABI: use goheap.h's")

GH_COMPAT_0_2 int
compat_collector__new_0_2(const struct gh_collector_opts_0_2 *o,
			  struct gh_collector **out, struct gh_err *err);
GH_COMPAT_0_2 int compat_collector__collect_0_2(struct gh_collector *c,
						const struct gh_request_0_2 *rq,
						struct gh_results **out,
						struct gh_err *err);
GH_COMPAT_0_2 int compat_profile__write_0_2(const struct gh_profile *p, FILE *f,
					    const struct gh_write_opts_0_2 *o,
					    struct gh_err *err);
GH_COMPAT_0_2 int
compat_oom_watch__new_0_2(const struct gh_oom_watch_opts_0_2 *o,
			  struct gh_oom_watch **out, struct gh_err *err);
GH_COMPAT_0_2 int compat_watch__new_0_2(struct gh_collector *c,
					const struct gh_watch_opts_0_2 *o,
					struct gh_watch **out,
					struct gh_err *err);

struct gh_output;

/* 0.2.0 exports that 0.3.0 keeps for the command only (cli/cli.h),
 * hidden: exported again under GOHEAP_0 alone, for 0.2.0's programs. */
GH_COMPAT_0_2 int compat_size__parse_0_2(const char *s, uint64_t *bytes);
GH_COMPAT_0_2 int compat_duration__parse_0_2(const char *s, uint64_t *ms);
GH_COMPAT_0_2 void compat_json__quote_0_2(FILE *f, const char *s);
GH_COMPAT_0_2 int compat_cgroup__path_0_2(const char *path, char *out,
					  size_t size, struct gh_err *err);
GH_COMPAT_0_2 int compat_output__open_0_2(const char *path,
					  struct gh_output **out,
					  struct gh_err *err);
GH_COMPAT_0_2 FILE *compat_output__file_0_2(struct gh_output *o);
GH_COMPAT_0_2 int compat_output__commit_0_2(struct gh_output *o,
					    struct gh_err *err);
GH_COMPAT_0_2 void compat_output__abort_0_2(struct gh_output *o);
GH_COMPAT_0_2 void compat_output__cleanup_0_2(void);

/* Export impl as name@GOHEAP_0, 0.2.0's version node. */
#define COMPAT_0_2(impl, name) __asm__(".symver " #impl "," #name "@GOHEAP_0")

#endif
