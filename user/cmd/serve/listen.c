/* listen.c - --listen ADDR:PORT into a listening socket (listen.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd/parse.h"
#include "cmd/serve/listen.h"

/* spec into an address; -1 when it is not IPv4:PORT or [IPv6]:PORT. */
static int parse_spec(const char *spec, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	const char *colon = strrchr(spec, ':');
	char host[INET6_ADDRSTRLEN + 2];
	size_t n;
	long port;

	if (!colon || parse_long(colon + 1, 0, 65535, &port))
		return -1;
	n = (size_t)(colon - spec);
	if (n < 2 || n >= sizeof(host))
		return -1;
	memset(ss, 0, sizeof(*ss));
	if (spec[0] == '[' && spec[n - 1] == ']') {
		memcpy(host, spec + 1, n - 2);
		host[n - 2] = '\0';
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*v6);
		return inet_pton(AF_INET6, host, &v6->sin6_addr) == 1 ? 0 : -1;
	}
	memcpy(host, spec, n);
	host[n] = '\0';
	v4->sin_family = AF_INET;
	v4->sin_port = htons((uint16_t)port);
	*len = sizeof(*v4);
	return inet_pton(AF_INET, host, &v4->sin_addr) == 1 ? 0 : -1;
}

/* What the socket is bound to, as l->addr, and whether it is loopback. */
static void describe(struct listener *l)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN];

	if (getsockname(l->fd, (struct sockaddr *)&ss, &len))
		return;
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
		snprintf(l->addr, sizeof(l->addr), "[%s]:%u", host,
			 ntohs(v6->sin6_port));
		l->loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
	} else {
		struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
		snprintf(l->addr, sizeof(l->addr), "%s:%u", host,
			 ntohs(v4->sin_port));
		l->loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
	}
}

int listen_open(const char *spec, struct listener *l, char *why, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1;

	*l = (struct listener){.fd = -1};
	if (parse_spec(spec, &ss, &len)) {
		snprintf(why, size,
			 "invalid --listen '%s': want a numeric address and "
			 "a port, as 127.0.0.1:6061 or [::1]:6061",
			 spec);
		return -1;
	}
	l->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l->fd < 0 ||
	    setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (ss.ss_family == AF_INET6 &&
	     setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(l->fd, (struct sockaddr *)&ss, len) ||
	    listen(l->fd, SOMAXCONN)) {
		int e = errno;

		snprintf(why, size, "cannot listen on %s: %s%s", spec,
			 strerror(e),
			 e == EADDRINUSE ? "; another server has it: pick "
					   "another port with --listen"
			 : e == EACCES	 ? "; ports below 1024 need "
					   "CAP_NET_BIND_SERVICE: pick another"
			 : e == EADDRNOTAVAIL
				 ? "; no interface of this host has that "
				   "address"
				 : "");
		if (l->fd >= 0)
			close(l->fd);
		l->fd = -1;
		return -1;
	}
	describe(l);
	return 0;
}
