/* say.c - the command's messages: the library names its fixes in its own
 * terms; the command's user needs the flags that apply them. */
#include <stdio.h>
#include <string.h>

#include "cmd/say.h"
#include "goheap.h"

static const char *const flag_words[][2] = {
	{"the iter backend (Linux 5.18+) or the procmem backend",
	 "--backend iter (Linux 5.18+) or --backend procmem"},
	{"use the iter or the procmem backend",
	 "use --backend iter or --backend procmem"},
	{"the verifier's log is in the debug output",
	 "rerun with --verbose for the verifier log"},
	{"watch without a pressure trigger", "watch without --pressure"},
	{"the selection's runtime names", "the --runtime given names"},
	{"or by the library's pprof format", "or goheap-bpf -f pprof"},
};

void say(const char *prefix, const char *msg)
{
	char buf[2 * GH_ERR_MSG_MAX], *at;
	size_t i, n;

	snprintf(buf, sizeof(buf), "%s", msg);
	for (i = 0; i < sizeof(flag_words) / sizeof(flag_words[0]); i++) {
		at = strstr(buf, flag_words[i][0]);
		if (!at)
			continue;
		n = strlen(flag_words[i][0]);
		memmove(at + strlen(flag_words[i][1]), at + n,
			strlen(at + n) + 1);
		memcpy(at, flag_words[i][1], strlen(flag_words[i][1]));
	}
	fprintf(stderr, "goheap-bpf: %s%s\n", prefix, buf);
}

void say_debug_line(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "%s\n", line);
}
