/* indexpage.c - /, a short HTML page: the endpoints, and a row per Go
 * runtime of each process of the last sweep with links to its profiles.
 * Every text from a process (names, paths, reasons) is escaped: any local
 * user chooses a process's name. */
#include <time.h>

#include "cmd/serve/escape.h"
#include "cmd/serve/pages.h"

static void cell(FILE *f, const char *s)
{
	fputs("<td>", f);
	esc_html(f, s);
	fputs("</td>", f);
}

static void links(FILE *f, const struct snap_row *r)
{
	char prefix[64];

	if (r->nruntimes > 1)
		snprintf(prefix, sizeof(prefix), "/pid/%d/runtime/%zu", r->pid,
			 r->runtime);
	else
		snprintf(prefix, sizeof(prefix), "/pid/%d", r->pid);
	if (r->data)
		fprintf(f,
			"<td><a href=\"%s/debug/pprof/heap\">heap</a> "
			"<a href=\"%s/debug/pprof/allocs\">allocs</a></td>",
			prefix, prefix);
	else
		cell(f, r->reason);
}

void index_write(FILE *f, const struct snap *s)
{
	char when[64];
	time_t t = (time_t)s->taken_unix;
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC",
		 gmtime_r(&t, &tm));
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	      "<title>goheap-bpf</title></head><body>\n"
	      "<h1>goheap-bpf serve</h1>\n<p><a href=\"/metrics\">/metrics</a> "
	      "<a href=\"/processes\">/processes</a> "
	      "<a href=\"/targets\">/targets</a> "
	      "<a href=\"/healthz\">/healthz</a></p>\n",
	      f);
	fprintf(f, "<p>Go runtimes found by the sweep of %s (%.0f ms):</p>\n",
		when, s->duration_s * 1000);
	fputs("<table>\n<tr><th>PID</th><th>runtime</th><th>name</th>"
	      "<th>Go</th><th>container</th><th>status</th>"
	      "<th>in use (bytes)</th><th>profiles</th></tr>\n",
	      f);
	for (size_t i = 0; i < s->n; i++) {
		const struct snap_row *r = &s->v[i];

		fprintf(f, "<tr><td>%d</td><td>%zu of %zu</td>", r->pid,
			r->runtime, r->nruntimes);
		cell(f, r->comm);
		cell(f, r->go_version);
		cell(f, r->container_id);
		cell(f, snap_status_name(r->status));
		if (r->data)
			fprintf(f, "<td>%lld</td>",
				(long long)r->total[GH_INUSE_SPACE]);
		else
			fputs("<td></td>", f);
		links(f, r);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n</body></html>\n", f);
}
