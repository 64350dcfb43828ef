/* fuzz_pprof.c - the pprof reader (user/pprofin/) and what the
 * diff command does with what it reads (user/profile/diff.c, growthrank.c,
 * user/write/growthtab.c): the input is a pprof file's bytes, gzip or not.
 * A profile that reads is diffed against itself, its stacks ranked and
 * the table written, and the diff written as a pprof and read back,
 * which must succeed: the library reads whatever it writes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

#include "goheap.h"

static void round_trip(const struct gh_profile *d)
{
	const struct gh_write_opts w = {.sz = sizeof(struct gh_write_opts),
					.format = GH_FORMAT_PPROF};
	struct gh_profile *back = NULL;
	struct gh_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	if (gh_profile__write(d, f, &w, &err) == 0) {
		fflush(f);
		if (gh_profile__read(buf, len, &back, &err)) {
			fprintf(stderr, "a written diff does not read: %s\n",
				err.msg);
			abort();
		}
	}
	fclose(f);
	free(buf);
	gh_profile__free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gh_profile *p = NULL, *d = NULL;
	struct gh_growth *g = NULL;
	struct gh_err err;
	FILE *null;

	if (gh_profile__read(data, size, &p, &err))
		return 0;
	if (gh_profile__diff(p, p, &d, &err) == 0 &&
	    gh_profile__growth(d, &g, &err) == 0 &&
	    (null = fopen("/dev/null", "w"))) {
		gh_growth__write(g, null, 0, &err);
		fclose(null);
	}
	if (d)
		round_trip(d);
	gh_growth__free(g);
	gh_profile__free(d);
	gh_profile__free(p);
	return 0;
}
