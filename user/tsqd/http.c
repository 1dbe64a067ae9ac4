// SPDX-License-Identifier: GPL-2.0
/* A minimal HTTP/1.0 server for two read-only resources. One request a
 * connection, served to completion within the event loop: the answers are
 * small and local, and a timeout bounds what a stuck client can cost.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "http.h"
#include "errmsg.h"

#define REQ_MAX		4096

int http_listen(const char *spec, char *err, size_t errlen)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	char host[64];
	const char *colon = strrchr(spec, ':');
	char *end;
	unsigned long port;
	size_t hl;
	int fd, one = 1;

	if (!colon || colon == spec)
		return tsq_errf(err, errlen, "--listen %s: want ADDR:PORT", spec), -EINVAL;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || colon[1] < '0' || colon[1] > '9' || !port || port > 65535)
		return tsq_errf(err, errlen, "--listen %s: bad port", spec), -EINVAL;
	hl = colon - spec;
	if (hl >= sizeof(host))
		return tsq_errf(err, errlen, "--listen %s: bad address", spec), -EINVAL;
	memcpy(host, spec, hl);
	host[hl] = '\0';
	if (host[0] == '[' && host[hl - 1] == ']') {
		host[hl - 1] = '\0';
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		if (inet_pton(AF_INET6, host + 1, &in6->sin6_addr) != 1)
			return tsq_errf(err, errlen, "--listen %s: bad IPv6 address", spec), -EINVAL;
	} else {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		if (inet_pton(AF_INET, host, &in4->sin_addr) != 1)
			return tsq_errf(err, errlen, "--listen %s: bad IPv4 address", spec), -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return tsq_errf(err, errlen, "--listen %s: %s", spec, strerror(errno)), -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, ss.ss_family == AF_INET ?
		 sizeof(*in4) : sizeof(*in6)) || listen(fd, 16)) {
		int e = errno;

		close(fd);
		return tsq_errf(err, errlen, "--listen %s: %s", spec, strerror(e)), -e;
	}
	return fd;
}

static void reply(int fd, const char *status, const char *type, const char *body,
		  size_t len)
{
	char head[256];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n", status, type, len);

	if (write(fd, head, n) != n)
		return;
	while (len) {
		ssize_t w = write(fd, body, len);

		if (w <= 0)
			return;
		body += w;
		len -= w;
	}
}

void http_serve_one(int lfd, http_handler h, void *ctx)
{
	struct timeval tv = { .tv_sec = 1 };
	char req[REQ_MAX + 1], path[256];
	size_t got = 0, blen = 0;
	char *body = NULL;
	const char *type;
	FILE *f;
	int fd;

	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (got < REQ_MAX) {
		ssize_t r = read(fd, req + got, REQ_MAX - got);

		if (r <= 0)
			break;
		got += r;
		req[got] = '\0';
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	req[got] = '\0';
	if (sscanf(req, "GET %255s HTTP/", path) != 1) {
		reply(fd, "400 Bad Request", "text/plain", "bad request\n", 12);
		goto out;
	}
	f = open_memstream(&body, &blen);
	if (!f) {
		reply(fd, "500 Internal Server Error", "text/plain", "no memory\n", 10);
		goto out;
	}
	type = h(path, f, ctx);
	fclose(f);
	if (type)
		reply(fd, "200 OK", type, body, blen);
	else
		reply(fd, "404 Not Found", "text/plain", "not found: try /metrics or /stats.json\n", 39);
	free(body);
out:
	close(fd);
}
