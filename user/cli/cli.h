/* cli.h - the command-line layer the front ends share: the library's
 * helpers that only a command needs (flag values, output files, JSON
 * strings, cgroup paths typed at a shell). Not in goheap.h and never
 * installed: embedders do not see them. They are the library's own
 * functions, compiled with it: hidden in libgoheap.so (a program built
 * against 0.2.0, when goheap.h declared them, finds them under GOHEAP_0,
 * user/compat/), global in libgoheap.a, which the command links. The
 * other declarations of the headers below are the library's own, local
 * in libgoheap.a: the command cannot link them. */
#ifndef GH_CLI_CLI_H
#define GH_CLI_CLI_H

#include "base/units.h"	    /* gh_size__parse, gh_duration__parse */
#include "outfile/output.h" /* gh_output__* */
#include "proc/cgmount.h"   /* gh_cgroup__path */
#include "write/jsonenc.h"  /* gh_json__quote */

#endif
