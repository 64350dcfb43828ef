/* layout.c - the layout of every struct the library fills or a caller's
 * callback hands back (offset and size of each field, size of each
 * struct) and the values of the public enums, one line each, for the
 * goheap.h it is built with: tests/abi/run.sh builds it against 0.2.0's
 * header and against today's and requires the same lines (goheap.h's
 * growth rule: these never change within a soname). Fields renamed since
 * 0.2.0 (same place, same type) are named by their 0.2.0 name. */
#include <stddef.h>
#include <stdio.h>

#include <goheap.h>

#ifdef GH_OPTS /* 0.3.0 and later */
#define TIME	 time_ns
#define DURATION duration_ns
#else
#define TIME	 time_nanos
#define DURATION duration_nanos
#endif

#define F(T, f)                                                                \
	printf("%s.%s %zu %zu\n", #T, #f, offsetof(struct T, f),               \
	       sizeof(((struct T *)0)->f))
#define S(T)	printf("sizeof %s %zu\n", #T, sizeof(struct T))
#define E(name) printf("%s %d\n", #name, (int)(name))

int main(void)
{
	S(gh_err);
	F(gh_err, code);
	F(gh_err, msg);
	S(gh_mapping);
	F(gh_mapping, start);
	F(gh_mapping, limit);
	F(gh_mapping, offset);
	F(gh_mapping, file);
	F(gh_mapping, build_id);
	F(gh_mapping, has_functions);
	S(gh_function);
	F(gh_function, name);
	F(gh_function, filename);
	F(gh_function, start_line);
	S(gh_line);
	F(gh_line, function);
	F(gh_line, line);
	S(gh_location);
	F(gh_location, address);
	F(gh_location, mapping);
	F(gh_location, nlines);
	F(gh_location, lines);
	S(gh_sample);
	F(gh_sample, nlocs);
	F(gh_sample, locs);
	F(gh_sample, value);
	F(gh_sample, bytes_label);
	F(gh_sample, has_bytes_label);
	F(gh_sample, base);
	S(gh_profile);
	F(gh_profile, pid);
	F(gh_profile, comm);
	F(gh_profile, exe);
	F(gh_profile, runtime_file);
	F(gh_profile, runtime);
	F(gh_profile, nruntimes);
	F(gh_profile, cgroup);
	F(gh_profile, container_id);
	F(gh_profile, container_runtime);
	F(gh_profile, pod_uid);
	F(gh_profile, go_version);
	F(gh_profile, build_id);
	F(gh_profile, trigger);
	F(gh_profile, status);
	F(gh_profile, status_reason);
	F(gh_profile, backend);
	F(gh_profile, backend_notes);
	F(gh_profile, TIME);
	F(gh_profile, DURATION);
	F(gh_profile, duration_ms);
	F(gh_profile, read_bytes);
	F(gh_profile, target_cpu_ns);
	F(gh_profile, nbuckets);
	F(gh_profile, nbuckets_inuse);
	F(gh_profile, gc_cycles);
	F(gh_profile, total);
	F(gh_profile, top_site);
	F(gh_profile, top_site_bytes);
	F(gh_profile, period);
	F(gh_profile, samples);
	F(gh_profile, nsamples);
	F(gh_profile, locations);
	F(gh_profile, nlocations);
	F(gh_profile, functions);
	F(gh_profile, nfunctions);
	F(gh_profile, mappings);
	F(gh_profile, nmappings);
	F(gh_profile, x);
	S(gh_growth_row);
	F(gh_growth_row, delta);
	F(gh_growth_row, now);
	F(gh_growth_row, sample);
	F(gh_growth_row, site);
	F(gh_growth_row, file);
	F(gh_growth_row, line);
	S(gh_growth);
	F(gh_growth, rows);
	F(gh_growth, n);
	F(gh_growth, total);
	S(gh_sink);
	F(gh_sink, sample);
	F(gh_sink, reset);
	F(gh_sink, ctx);
	S(gh_result);
	F(gh_result, pid);
	F(gh_result, err);
	F(gh_result, profile);
	S(gh_results);
	F(gh_results, v);
	F(gh_results, n);
	F(gh_results, bpf_loads);
	F(gh_results, iter_passes);
	F(gh_results, binaries_parsed);
	F(gh_results, binaries_cached);
	F(gh_results, examined);
	F(gh_results, not_go);
	F(gh_results, open_ms);
	F(gh_results, read_ms);
	F(gh_results, duration_ms);
	F(gh_results, kept_bytes);
	S(gh_oom);
	F(gh_oom, pid);
	F(gh_oom, comm);
	F(gh_oom, cgroup);
	F(gh_oom, memcg_usage_bytes);
	F(gh_oom, memcg_limit_bytes);
	F(gh_oom, total_vm_bytes);
	F(gh_oom, oom_score_adj);
	F(gh_oom, uid);
	F(gh_oom, early_kills);
	F(gh_oom, TIME);
	S(gh_memstat);
	F(gh_memstat, rss);
	F(gh_memstat, pss);
	F(gh_memstat, cgroup_version);
	F(gh_memstat, cgroup_dir);
	F(gh_memstat, cgroup_usage);
	F(gh_memstat, cgroup_limit);
	S(gh_leak);
	F(gh_leak, site);
	F(gh_leak, file);
	F(gh_leak, line);
	F(gh_leak, inuse_bytes);
	F(gh_leak, growth_bytes);
	F(gh_leak, snapshots);
	S(gh_watch_event);
	F(gh_watch_event, pid);
	F(gh_watch_event, comm);
	F(gh_watch_event, runtime);
	F(gh_watch_event, trigger);
	F(gh_watch_event, fired);
	F(gh_watch_event, reason);
	F(gh_watch_event, TIME);
	F(gh_watch_event, rss);
	F(gh_watch_event, pss);
	F(gh_watch_event, cgroup_version);
	F(gh_watch_event, cgroup_dir);
	F(gh_watch_event, cgroup_usage);
	F(gh_watch_event, cgroup_limit);
	F(gh_watch_event, pressure);
	F(gh_watch_event, inuse_space);
	F(gh_watch_event, status);
	F(gh_watch_event, pprof_file);
	F(gh_watch_event, json_file);
	F(gh_watch_event, oom);
	F(gh_watch_event, leaks);
	F(gh_watch_event, nleaks);
	E(GH_E_TIMEOUT);
	E(GH_NVALUES);
	E(GH_INUSE_SPACE);
	E(GH_SNAP_MIXED);
	E(GH_FORMAT_LEGACY);
	E(GH_BACKEND_PROCMEM);
	E(GH_TRIGGER_OOM);
	E(GH_WATCH_LEAKS);
	E(GH_ERR_MSG_MAX);
	E(GH_PATH_MAX);
	return 0;
}
