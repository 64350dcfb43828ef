/* listpage.c - the listing endpoints (/metrics, /processes, /targets, /):
 * the sweep they need, taken on the jobs thread when the last one is
 * older than --refresh, and the page made from it. */
#include "cmd/serve/listpage.h"
#include "cmd/serve/pages.h"

void listing_render(struct exch *x, const struct snap *s)
{
	struct stats_view st;
	const char *type = "application/json";
	FILE *f = reply__open(&x->reply);

	if (!f)
		return;
	switch (x->route.ep) {
	case EP_METRICS:
		stats__read(&x->srv->stats, &st);
		metrics_write(f, s, &st);
		type = "text/plain; version=0.0.4; charset=utf-8";
		break;
	case EP_PROCESSES:
		processes_write(f, s);
		break;
	case EP_TARGETS:
		targets_write(f, s, x->host[0] ? x->host : x->srv->l.addr);
		break;
	default:
		index_write(f, s);
		type = "text/html; charset=utf-8";
	}
	reply__close(&x->reply, f, 200, type);
}

void listing_page(struct exch *x)
{
	struct server *srv = x->srv;
	uint64_t left = exch__time_left(x);
	struct gh_err err;
	struct snap *s;

	if (!left)
		return;
	s = cache__sweep(&srv->cache, srv->c, &srv->filters, left, &srv->stats,
			 &err);
	if (!s) {
		reply__text(&x->reply, 500, "the sweep of the host failed: %s",
			    err.msg);
		return;
	}
	listing_render(x, s);
	snap__put(s);
}
