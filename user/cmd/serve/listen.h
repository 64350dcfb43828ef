/* listen.h - the server's listening socket, made from --listen ADDR:PORT
 * by the server itself, so that a failure (address in use, no such
 * address, a privileged port) is one line naming its cause, and port 0
 * reports the port it got. */
#ifndef GH_CMD_LISTEN_H
#define GH_CMD_LISTEN_H

#include <stdbool.h>
#include <stddef.h>

struct listener {
	int fd;
	char addr[64]; /* as bound: "127.0.0.1:6061", "[::1]:6061" */
	bool loopback; /* 127.0.0.0/8 or ::1 */
};

/* Bind and listen on spec ("IPv4:PORT" or "[IPv6]:PORT", numeric). 0, or
 * -1 with a one-line reason (naming the fix) in why. */
int listen_open(const char *spec, struct listener *l, char *why, size_t size);

#endif
