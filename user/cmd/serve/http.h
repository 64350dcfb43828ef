/* http.h - the server's HTTP side, on libmicrohttpd: one polling thread
 * that routes each request (route.c), answers what needs no collector at
 * once (errors, /healthz, pages from a sweep younger than --refresh), and
 * suspends the others until the jobs thread has made their reply; one
 * log line per request on stderr. */
#ifndef GH_CMD_HTTP_H
#define GH_CMD_HTTP_H

#include <stddef.h>

#include "cmd/serve/server.h"

struct MHD_Daemon;

/* Serve on srv->l.fd; NULL with a one-line reason in why. */
struct MHD_Daemon *http_start(struct server *srv, char *why, size_t size);
/* Accept no more connections (the listening socket stays open until
 * http_stop); requests under way go on. */
void http_quiesce(struct MHD_Daemon *d);
/* Close every connection and end the polling thread. No request may be
 * waiting for the jobs thread. */
void http_stop(struct MHD_Daemon *d);

#endif
