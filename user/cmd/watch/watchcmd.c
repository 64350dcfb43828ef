/* watchcmd.c - `goheap-bpf watch`: the flags, one collector (its BPF program
 * loaded once, stacks kept between reads), the watch (the library's
 * gh_watch, OOM kills included), and the signals. A handler only writes
 * a byte to a pipe the watch polls and tells the watch (async-signal-safe
 * calls): SIGHUP looks for the processes again; SIGINT or SIGTERM stop it
 * once the snapshot being written is whole, and a second one ends the
 * process at once, its temporary files removed. Either way it ends by
 * that signal. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/run.h"
#include "cmd/say.h"
#include "cmd/selectflags.h"
#include "cmd/watch/watchopts.h"

static int wake[2] = {-1, -1};
static struct gh_watch *volatile watching;
static volatile sig_atomic_t ending;
/* A SIGHUP before the watch exists: its first scan may already have run
 * (a process started since would wait a whole interval), so the watch
 * looks again once it exists. */
static volatile sig_atomic_t hup_early;

static void on_signal(int sig)
{
	int saved = errno;

	if (!watching) {
		/* still starting: nothing to finish */
		if (sig == SIGHUP) {
			hup_early = 1;
		} else {
			gh_output__cleanup();
			signal(sig, SIG_DFL);
			raise(sig);
		}
	} else if (sig == SIGHUP) {
		gh_watch__rescan(watching);
	} else if (ending) {
		gh_output__cleanup();
		signal(sig, SIG_DFL);
		raise(sig);
	} else {
		ending = sig;
		gh_watch__stop(watching);
	}
	if (write(wake[1], "", 1) < 0) {
		/* full: a wake-up is pending already */
	}
	errno = saved;
}

/* A signal ignored from the start stays ignored (nohup's SIGHUP). */
static int catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal}, was;

	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK))
		return -1;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &was) &&
		    was.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	return 0;
}

static void drain(void)
{
	char buf[64];

	while (read(wake[0], buf, sizeof(buf)) > 0)
		;
}

/* Each likely leak of a snapshot, on stderr. */
static void say_leaks(const struct gh_watch_event *ev)
{
	char line[GH_ERR_MSG_MAX + 700];

	for (size_t i = 0; i < ev->nleaks; i++) {
		const struct gh_leak *l = &ev->leaks[i];

		snprintf(line, sizeof(line),
			 "pid %d (%s): likely leak #%zu: %s (%s:%lld): %lld "
			 "bytes in use, %lld more over %u snapshots",
			 ev->pid, ev->comm, i + 1, l->site, l->file,
			 (long long)l->line, (long long)l->inuse_bytes,
			 (long long)l->growth_bytes, l->snapshots);
		say("", line);
	}
}

/* One line on stdout per snapshot written, and its likely leaks on
 * stderr; an OOM kill, which ends a process, is said on stderr too. */
static void written(void *arg, const struct gh_watch_event *ev)
{
	char line[GH_ERR_MSG_MAX + 700];

	(void)arg;
	printf("%s pid %d (%s): %s: %s -> %s\n", gh_trigger__name(ev->trigger),
	       ev->pid, ev->comm, ev->reason, ev->pprof_file, ev->json_file);
	fflush(stdout);
	say_leaks(ev);
	if (ev->trigger != GH_TRIGGER_OOM)
		return;
	snprintf(line, sizeof(line), "pid %d (%s) %s: its heap profile is %s",
		 ev->pid, ev->comm, ev->reason, ev->pprof_file);
	say("", line);
}

/* A process's problem, or (pid 0) the watch's own. */
static void problem(void *arg, int pid, const struct gh_err *err)
{
	char prefix[64] = "";

	(void)arg;
	if (pid)
		snprintf(prefix, sizeof(prefix), "pid %d: ", pid);
	say(prefix, err->msg);
}

static int loop(struct gh_watch *w, bool verbose)
{
	struct gh_err err;
	size_t was = (size_t)-1;
	int rc;

	while (!(rc = gh_watch__step(w, wake[0], &err))) {
		drain();
		if (!verbose || gh_watch__targets(w) == was)
			continue;
		was = gh_watch__targets(w);
		fprintf(stderr, "goheap-bpf: watching %zu process%s\n", was,
			was == 1 ? "" : "es");
	}
	if (rc < 0) {
		say("", err.msg);
		return err.code ? err.code : GH_E_FAILED;
	}
	return 0;
}

int run_watch(int argc, char **argv)
{
	static struct watch_cli o;
	struct gh_collector_opts co = {.sz = sizeof(struct gh_collector_opts),
				       .keep_stacks = true};
	struct gh_collector *c;
	struct gh_watch *w;
	struct gh_err err;
	int st;

	watch_opts_parse(argc, argv, &o);
	co.backend = o.backend;
	o.w.written = written;
	o.w.problem = problem;
	if (catch_signals() || gh_collector__new(&co, &c, &err)) {
		say("", "cannot start: out of memory or descriptors");
		return GH_E_FAILED;
	}
	if (gh_watch__new(c, &o.w, &w, &err)) {
		say("", err.msg);
		gh_collector__free(c);
		return err.code ? err.code : GH_E_FAILED;
	}
	if (select_filtered(&o.select) && !gh_watch__targets(w))
		select_say_none(&o.select,
				"watching for one to start (-v says when)");
	watching = w;
	if (hup_early)
		gh_watch__rescan(w);
	st = loop(w, o.verbose);
	watching = NULL;
	gh_watch__free(w);
	gh_collector__free(c);
	if (ending) {
		signal(ending, SIG_DFL);
		raise(ending);
	}
	return st;
}
