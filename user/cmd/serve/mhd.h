/* mhd.h - libmicrohttpd, opened when serve starts rather than linked: the
 * library and the ten it brings (gnutls, nettle, p11-kit, ...) cost every
 * run of every command about 5 ms of loading and relocation before main,
 * a tenth of a one-shot read of a mid-sized process; only serve uses it. */
#ifndef GH_CMD_MHD_H
#define GH_CMD_MHD_H

#include <microhttpd.h>
#include <stddef.h>

/* The functions serve calls, with libmicrohttpd's own prototypes. */
struct mhd_api {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_quiesce_daemon) *quiesce_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_create_response_from_buffer)
		*create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_suspend_connection) *suspend_connection;
	__typeof__(MHD_resume_connection) *resume_connection;
};

/* Filled by mhd__open. */
extern struct mhd_api mhd;

/* Open the libmicrohttpd the command was built against (its soname) and
 * fill mhd; -1 with a one-line reason and fix in why. Once per process. */
int mhd__open(char *why, size_t size);

#endif
