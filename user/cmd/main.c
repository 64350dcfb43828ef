/* main.c - the goheap-bpf command: parse the flags, make the collector,
 * hand it one request (named processes, or a sweep), and end as the
 * results say; the signals that end a run remove its temporary files.
 * `goheap-bpf serve` is the HTTP server instead (serve/), `goheap-bpf
 * watch` the watcher (watch/), and `goheap-bpf diff` compares two
 * profiles (diff/): main.c only picks the front end (run.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/run.h"
#include "cmd/say.h"
#include "cmd/testpause.h"
#include "cmd/warmheap.h"

/* A signal that ends the run: no temporary file may stay behind. Then
 * the same signal again, its default restored on entry (SA_RESETHAND),
 * ends the process once this returns, so that whoever started it sees
 * what ended it. BPF programs, links and perf events go with the
 * process's descriptors: nothing is pinned. */
static void on_signal(int sig)
{
	gh_output__cleanup();
	raise(sig);
}

/* A signal ignored from the start stays ignored: nohup's SIGHUP, a
 * script's background job's SIGINT. */
static void catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal,
			       .sa_flags = SA_RESETHAND},
			 was;
	size_t i;

	/* One handler at a time: the others wait, and end the process. */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &was) &&
		    was.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

/* Installed set-uid or set-gid, goheap-bpf would read every process's
 * heap and write files with its owner's rights for whoever runs it: a
 * privileged caller is the one who runs it with root or the capabilities
 * (goheap-bpf(8), PRIVILEGES), never one the file's mode makes. */
static bool set_id(void)
{
	if (getuid() == geteuid() && getgid() == getegid())
		return false;
	fprintf(stderr,
		"goheap-bpf: refusing to run set-uid or set-gid (real uid "
		"%u, effective %u; real gid %u, effective %u): it would give "
		"whoever runs it every process's heap; remove the bits "
		"(chmod u-s,g-s) and run it as root or with the capabilities "
		"it needs\n",
		(unsigned)getuid(), (unsigned)geteuid(), (unsigned)getgid(),
		(unsigned)getegid());
	return true;
}

int main(int argc, char **argv)
{
	static struct opts o;
	struct gh_collector_opts co = {.sz = sizeof(struct gh_collector_opts)};
	struct gh_request rq = {.sz = sizeof(struct gh_request)};
	struct gh_select sel;
	struct gh_collector *c = NULL;
	struct gh_err err = {GH_OK, ""};
	int st;

	if (set_id())
		return GH_E_PERM;
	if (argc > 1 && !strcmp(argv[1], "serve"))
		return run_serve(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "diff")) {
		catch_signals();
		return run_diff(argc - 1, argv + 1);
	}
	if (argc > 1 && !strcmp(argv[1], "watch"))
		return run_watch(argc - 1, argv + 1);
	opts__parse(argc, argv, &o);
	catch_signals();
	/* Where libbpf will parse the kernel's BTF: perf's load (the task
	 * iterators, the buckets' and the goroutine walk's, load without
	 * it). */
	if (!o.all && o.backend == GH_BACKEND_PERF)
		warm_heap();
	/* A goroutine --pid run lists its runtimes through the collector and
	 * reads each through gh_goroutines__write: the collector reads
	 * nothing, so it loads no BPF object either. */
	co.backend = o.goroutines && !o.all ? GH_BACKEND_PROCMEM : o.backend;
	if (o.verbose)
		co.debug = say_debug_line;
	sel = o.select;
	sel.pids = o.pids;
	sel.npids = o.npids;
	/* --all --pid: the PIDs are a filter of the sweep */
	sel.pids_filter = o.all;
	sel.runtime = o.runtime;
	rq.select = &sel;
	rq.opened = test_pause;
	rq.timeout_ms = o.timeout_ms;
	rq.bounds = &o.bounds;
	rq.kind = o.goroutines ? GH_KIND_GOROUTINE : o.kind;
	o.bounds.max_goroutines = o.max_goroutines;
	if (gh_collector__new(&co, &c, &err)) {
		say("", err.msg);
		return err.code ? err.code : GH_E_FAILED;
	}
	if (o.goroutines && !o.all)
		st = run_goroutines(&o, c);
	else if (o.all)
		st = run_sweep(&o, c, &rq);
	else
		st = run_pids(&o, c, &rq);
	gh_collector__free(c);
	return st;
}
