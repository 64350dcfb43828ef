/* rtstats.c - gh_runtime_stats__read and target__read_runtime_stats: a
 * process's (or one of its runtimes') counters (goroutines, by state too,
 * GC cycles, live heap and goal, GOMAXPROCS, GOGC, the memory limit) read
 * from outside with process_vm_readv: any runtime (the executable's or a
 * c-shared library's, by its own variables and load bias);
 * gh_runtime_stats__read reads a process's first (the executable's, else
 * its first library's). The variables come from the symbol table: a
 * stripped binary's are not recovered. */
#include <errno.h>
#include <string.h>

#include "base/err.h"
#include "gobin/bincache.h"
#include "goroutine/rtread.h"
#include "profile/rtkept.h"
#include "target/target.h"

#define GH_RT_PERMFIX "run as root or with CAP_SYS_PTRACE"
/* The goroutines whose statuses are read before 1.26 (include/goheap.h:
 * the goroutine profile's own bound). */
#define GH_RT_GSTATES_MAX 1000000

static int rt_var(const struct target *t, const char *name, uint64_t *a,
		  struct gh_err *err)
{
	if (gobin__symbol(t->go, name, a) == 0) {
		*a += t->bias;
		return 0;
	}
	return err_set(err, GH_E_UNSUPPORTED,
		       "process %d: its runtime counters cannot be read: %s "
		       "is not known (%s); read a build with its symbol table "
		       "(not -ldflags=-s)",
		       t->pid, name, gobin__why(t->go, name));
}

int target__read_runtime_stats(struct target *t, struct gh_runtime_stats *o,
			       struct gh_err *err)
{
	struct gfetch fetch = {.read = gfetch_pid_read,
			       .ctx = &t->pid,
			       .gather = gfetch_pid_gather};
	const struct rtcounters *R;
	const struct glayout *L;
	struct rtvars v = {.s.max_goroutines = GH_RT_GSTATES_MAX};

	R = rtcounters__for(t->go->layout->minor, err);
	L = R ? glayout__for(t->go->layout->minor, err) : NULL;
	if (!L)
		return -1;
	v.s.g_status = L->atomicstatus;
	v.s.g_m = L->m;
	if (rt_var(t, "runtime.gcController", &v.gc_controller, err) ||
	    rt_var(t, "runtime.memstats", &v.memstats, err) ||
	    rt_var(t, "runtime.sched", &v.s.sched, err) ||
	    rt_var(t, "runtime.allp", &v.s.allp, err) ||
	    rt_var(t, "runtime.allglen", &v.s.allglen, err) ||
	    rt_var(t, "runtime.allgptr", &v.s.allgptr, err) ||
	    rt_var(t, "runtime.gomaxprocs", &v.gomaxprocs, err))
		return -1;
	if (rtstats_read(R, &fetch, &v, o) == 0)
		return 0;
	if (errno == EPERM)
		return err_set(err, GH_E_PERM,
			       "process %d: reading its memory is not allowed; "
			       "" GH_RT_PERMFIX,
			       t->pid);
	if (errno == ESRCH)
		return err_set(err, GH_E_GONE,
			       "process %d exited while read; run again on a "
			       "live process",
			       t->pid);
	if (errno == EAGAIN)
		return err_set(err, GH_E_PARTIAL,
			       "process %d: a GC cycle ended during each of "
			       "its counters' reads; read again",
			       t->pid);
	return err_set(err, GH_E_FAILED,
		       "process %d: its runtime counters cannot be read (%s); "
		       "check that it is a live Go program",
		       t->pid, strerror(errno));
}

int gh_runtime_stats__read(int pid, struct gh_runtime_stats *out,
			   struct gh_err *err)
{
	struct gh_runtime_stats o = {.sz = sizeof(o)};
	struct bincache *bc;
	struct target **ts;
	size_t n, sz;
	int rc;

	if (!out || out->sz < sizeof(out->sz) + sizeof(out->has))
		return err_set(err, GH_E_USAGE,
			       "gh_runtime_stats__read: out is NULL or its sz "
			       "is %zu: set it to sizeof(struct "
			       "gh_runtime_stats)",
			       out ? out->sz : 0);
	sz = out->sz < sizeof(o) ? out->sz : sizeof(o);
	bc = bincache__new(4);
	if (!bc)
		return err_set(err, GH_E_FAILED, "out of memory");
	rc = target__open_all(pid, bc, &ts, &n, err);
	if (rc == 0) {
		rc = target__read_runtime_stats(ts[0], &o, err);
		target__free_all(ts, n);
	}
	bincache__free(bc);
	if (rc == 0)
		runtime_stats__copy(out, &o, sz);
	return rc;
}
