/* mhd.c - see mhd.h. The soname is the one the build found (MHD_SONAME,
 * from the Makefile), so the prototypes in mhd.h are that ABI's. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cmd/serve/mhd.h"

#ifndef MHD_SONAME
#error "MHD_SONAME: the Makefile names the libmicrohttpd soname"
#endif

struct mhd_api mhd;

/* Each pointer of mhd with the symbol it comes from. */
#define SYM(f)                                                                 \
	{                                                                      \
		&mhd.f, "MHD_" #f                                              \
	}

int mhd__open(char *why, size_t size)
{
	const struct {
		void *slot;
		const char *name;
	} syms[] = {
		SYM(start_daemon),
		SYM(quiesce_daemon),
		SYM(stop_daemon),
		SYM(lookup_connection_value),
		SYM(create_response_from_buffer),
		SYM(add_response_header),
		SYM(queue_response),
		SYM(destroy_response),
		SYM(suspend_connection),
		SYM(resume_connection),
	};
	void *h = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(why, size,
			 "serve: libmicrohttpd could not be opened (%s); "
			 "install the package that has %s (Debian's "
			 "libmicrohttpd12)",
			 dlerror(), MHD_SONAME);
		return -1;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f) {
			snprintf(why, size,
				 "serve: %s has no %s; install the package "
				 "that has %s (Debian's libmicrohttpd12)",
				 MHD_SONAME, syms[i].name, MHD_SONAME);
			dlclose(h);
			return -1;
		}
		/* POSIX: a function's address passes through void *. */
		memcpy(syms[i].slot, &f, sizeof(f));
	}
	return 0;
}
