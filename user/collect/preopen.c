/* preopen.c - the BPF object a request will read with, loaded on a thread
 * of its own while the request's processes are opened. The two are
 * independent, and a request that loads the object pays both: the
 * verifier, and libbpf's parse of the kernel's BTF where it loads the
 * object (10-70 ms), on one side, each
 * target's ELF, symbols and pclntab (3-5 ms for one process, more for a
 * sweep) on the other; on two CPUs the shorter hides behind the longer. */
#include "base/clock.h"
#include "collect/collector.h"
#include "read/backend.h"

/* The slot a request of kind kind opens first when it is read, or -1 when
 * it loads no BPF object (procmem) or the slot was tried already:
 * backends[] index, or nbackends for the goroutine walk's program. With
 * a debug callback, none: its lines come from the caller's thread
 * (gh_collector_opts.debug). */
static long first_load(const struct gh_collector *c, enum gh_kind kind)
{
	size_t b;

	if (c->o.backend == GH_BACKEND_PROCMEM || c->o.debug)
		return -1;
	if (kind == GH_KIND_GOROUTINE)
		return c->gpass.tried ? -1 : (long)nbackends;
	b = collector__first_backend(c);
	if (c->slots[b].tried || backends[b] == &backend_procmem)
		return -1;
	return (long)b;
}

static void *open_slot(void *arg)
{
	struct preopen *p = arg;
	uint64_t t0 = clock_mono_ns();

	if (p->slot == (long)nbackends)
		collector__gpass(p->c, NULL);
	else
		collector__backend(p->c, (size_t)p->slot, NULL);
	p->ns = clock_mono_ns() - t0;
	return NULL;
}

void collector__preopen(struct gh_collector *c, enum gh_kind kind,
			struct preopen *p)
{
	p->c = c;
	p->slot = first_load(c, kind);
	p->running =
		p->slot >= 0 && !pthread_create(&p->th, NULL, open_slot, p);
}

void collector__preopen_join(struct preopen *p)
{
	if (!p->running)
		return;
	pthread_join(p->th, NULL);
	p->running = false;
	p->c->read_ns += p->ns; /* time in a backend: the request's read_ms */
}
