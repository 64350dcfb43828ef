/* mkbtf.c - writes this kernel's BTF, as goheap-bpf will read it through
 * GOHEAP_SYSFS_BTF, with oom:mark_victim in its (int pid) form (the
 * tracepoint's arguments before Linux commit 72ba14deb40a), so that
 * oom.sh's second pass runs OOM capture's program for that form on a
 * kernel that has the other.
 *
 *   mkbtf PATH
 */
#include <stdio.h>

#include "btfcopy.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkbtf PATH\n");
		return 2;
	}
	if (btf_copy_mark_victim_pid(argv[1])) {
		fprintf(stderr,
			"mkbtf: cannot write %s from the kernel's BTF\n",
			argv[1]);
		return 1;
	}
	return 0;
}
