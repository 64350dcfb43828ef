/* exch.c - a request's time left (exch.h). */
#include <stdatomic.h>

#include "cmd/cmdclock.h"
#include "cmd/serve/exch.h"

uint64_t exch__time_left(struct exch *x)
{
	uint64_t now = now_ns();

	if (atomic_load(&x->srv->cut)) {
		reply__text(&x->reply, 503, "the server is stopping");
		return 0;
	}
	if (now < x->deadline_ns)
		return (x->deadline_ns - now + 999999) / 1000000;
	reply__text(&x->reply, 503,
		    "the collector was busy past this request's deadline "
		    "(--request-timeout); retry later");
	reply__header(&x->reply, "Retry-After", "1");
	return 0;
}
