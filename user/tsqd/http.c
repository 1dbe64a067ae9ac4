// SPDX-License-Identifier: GPL-2.0
/* A minimal HTTP/1.0 server for two read-only resources. One request a
 * connection. Connections are non-blocking and live in the server's own
 * epoll set, which the daemon's event loop watches as one fd: a client
 * that sends or reads slowly costs a slot, never the loop's time. Each
 * connection has HTTP_DEADLINE_MS in all, and at most HTTP_MAX_CONNS are
 * open; a new one closes the oldest, so a crowd of stuck clients cannot
 * keep a scrape out.
 *
 * With a token (http_set_token()), a request without
 * "Authorization: Bearer TOKEN" gets 401 before the handler runs: an
 * unauthorised client neither reads cgroup paths nor makes tsqd walk the
 * sockets. /healthz ("ok") needs no token: it says only that the loop runs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include "http.h"
#include "errmsg.h"

#define REQ_MAX		4096
#define EV_LISTEN	HTTP_MAX_CONNS
#define EV_TIMER	(HTTP_MAX_CONNS + 1)

struct conn {
	int fd;			/* -1: free slot */
	bool writing;		/* request read, answer being sent */
	long long deadline;	/* CLOCK_MONOTONIC ms */
	size_t got;
	char req[REQ_MAX + 1];
	char *out;		/* head and body */
	size_t out_len, out_off;
};

struct http_server {
	int lfd, ep, tfd;
	http_handler h;
	void *ctx;
	char *token;		/* NULL: no Authorization needed */
	size_t token_len;
	struct conn conns[HTTP_MAX_CONNS];
};

static int http_listen(const char *spec, char *err, size_t errlen)
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
		 sizeof(*in4) : sizeof(*in6)) || listen(fd, 2 * HTTP_MAX_CONNS)) {
		int e = errno;

		close(fd);
		return tsq_errf(err, errlen, "--listen %s: %s", spec, strerror(e)), -e;
	}
	return fd;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int ep_set(struct http_server *srv, int op, int fd, uint32_t events, uint32_t tag)
{
	struct epoll_event ev = { .events = events, .data.u32 = tag };

	return epoll_ctl(srv->ep, op, fd, &ev);
}

struct http_server *http_open(const char *spec, http_handler h, void *ctx,
			      int *errp, char *err, size_t errlen)
{
	struct http_server *srv = calloc(1, sizeof(*srv));
	int e;

	if (!srv) {
		*errp = -ENOMEM;
		tsq_errf(err, errlen, "--listen %s: out of memory", spec);
		return NULL;
	}
	for (int i = 0; i < HTTP_MAX_CONNS; i++)
		srv->conns[i].fd = -1;
	srv->h = h;
	srv->ctx = ctx;
	srv->ep = srv->tfd = -1;
	srv->lfd = http_listen(spec, err, errlen);
	if (srv->lfd < 0) {
		*errp = srv->lfd;
		free(srv);
		return NULL;
	}
	srv->ep = epoll_create1(EPOLL_CLOEXEC);
	srv->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (srv->ep < 0 || srv->tfd < 0 ||
	    ep_set(srv, EPOLL_CTL_ADD, srv->lfd, EPOLLIN, EV_LISTEN) ||
	    ep_set(srv, EPOLL_CTL_ADD, srv->tfd, EPOLLIN, EV_TIMER)) {
		e = errno;
		tsq_errf(err, errlen, "--listen %s: %s", spec, strerror(e));
		*errp = -e;
		http_close(srv);
		return NULL;
	}
	return srv;
}

bool http_loopback(const struct http_server *srv)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&ss;

	if (getsockname(srv->lfd, (struct sockaddr *)&ss, &len))
		return false;
	if (ss.ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
	return ss.ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
}

int http_fd(const struct http_server *srv)
{
	return srv->ep;
}

static void conn_close(struct conn *c)
{
	if (c->fd < 0)
		return;
	close(c->fd);	/* also leaves the epoll set */
	free(c->out);
	c->out = NULL;
	c->fd = -1;
}

void http_close(struct http_server *srv)
{
	if (!srv)
		return;
	for (int i = 0; i < HTTP_MAX_CONNS; i++)
		conn_close(&srv->conns[i]);
	if (srv->lfd >= 0)
		close(srv->lfd);
	if (srv->ep >= 0)
		close(srv->ep);
	if (srv->tfd >= 0)
		close(srv->tfd);
	http_set_token(srv, NULL, 0);
	free(srv);
}

int http_set_token(struct http_server *srv, const char *token, size_t len)
{
	char *copy = NULL;

	if (token) {
		copy = malloc(len + 1);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, token, len);
		copy[len] = '\0';
	}
	if (srv->token)
		explicit_bzero(srv->token, srv->token_len);
	free(srv->token);
	srv->token = copy;
	srv->token_len = token ? len : 0;
	return 0;
}

/* Every byte compared whatever differs: the time says nothing of where. */
static bool same_token(const char *a, size_t alen, const char *b, size_t blen)
{
	unsigned char diff = alen != blen;

	for (size_t i = 0; i < alen; i++)
		diff |= (unsigned char)a[i] ^ (unsigned char)b[i < blen ? i : 0];
	return !diff;
}

/*
 * Whether the head carries the token: exactly one Authorization line,
 * scheme Bearer (any case), the token and nothing after it but blanks.
 */
static bool authorized(const struct http_server *srv, const char *req)
{
	const char *line = strchr(req, '\n'), *tok = NULL;
	size_t n = 0;

	while (line && *++line) {
		const char *v, *end;

		if (*line == '\r' || *line == '\n')
			break;		/* the end of the head */
		if (!strncasecmp(line, "Authorization:", 14)) {
			v = line + 14;
			if (tok)
				return false;
			while (*v == ' ' || *v == '\t')
				v++;
			if (strncasecmp(v, "Bearer ", 7))
				return false;
			for (tok = v + 7; *tok == ' '; tok++)
				;
			end = tok + strcspn(tok, " \t\r\n");
			n = end - tok;
			while (*end == ' ' || *end == '\t')
				end++;
			if (*end != '\r' && *end != '\n')
				return false;
		}
		line = strchr(line, '\n');
	}
	return tok && same_token(tok, n, srv->token, srv->token_len);
}

/* The whole answer in c->out; 0, or -ENOMEM. */
static int respond(struct conn *c, const char *status, const char *type,
		   const char *body, size_t len)
{
	bool auth = !strncmp(status, "401", 3);
	char head[320];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "%sConnection: close\r\n\r\n", status, type, len,
			 auth ? "WWW-Authenticate: Bearer realm=\"tsqd\"\r\n" : "");

	c->out = malloc(n + len);
	if (!c->out)
		return -ENOMEM;
	memcpy(c->out, head, n);
	memcpy(c->out + n, body, len);
	c->out_len = n + len;
	c->out_off = 0;
	return 0;
}

static int answer(struct http_server *srv, struct conn *c)
{
	static const char unauth[] = "unauthorized: want Authorization: Bearer TOKEN\n";
	char path[256], *body = NULL;
	const char *type;
	size_t blen = 0;
	FILE *f;
	int ret;

	if (sscanf(c->req, "GET %255s HTTP/", path) != 1)
		return respond(c, "400 Bad Request", "text/plain", "bad request\n", 12);
	/* Alive, and nothing else: for a liveness probe, which has no token. */
	if (!strcmp(path, "/healthz"))
		return respond(c, "200 OK", "text/plain", "ok\n", 3);
	if (srv->token && !authorized(srv, c->req))
		return respond(c, "401 Unauthorized", "text/plain", unauth, sizeof(unauth) - 1);
	f = open_memstream(&body, &blen);
	if (!f)
		return -ENOMEM;
	type = srv->h(path, f, srv->ctx);
	if (fclose(f)) {
		free(body);
		return -ENOMEM;
	}
	if (type)
		ret = respond(c, "200 OK", type, body, blen);
	else
		ret = respond(c, "404 Not Found", "text/plain",
			      "not found: try /metrics or /stats.json\n", 39);
	free(body);
	return ret;
}

/* Send what the socket takes; done (or failed) closes. */
static void conn_write(struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return;
		if (w <= 0)
			break;
		c->out_off += w;
	}
	conn_close(c);
}

static void conn_read(struct http_server *srv, struct conn *c)
{
	for (;;) {
		ssize_t r = read(c->fd, c->req + c->got, REQ_MAX - c->got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return;
		if (r <= 0)
			break;
		c->got += r;
		c->req[c->got] = '\0';
		if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n") ||
		    c->got == REQ_MAX)
			break;
	}
	/* EOF, a whole head, or all we take: answer what there is. */
	c->req[c->got] = '\0';
	if (answer(srv, c) ||
	    ep_set(srv, EPOLL_CTL_MOD, c->fd, EPOLLOUT, c - srv->conns)) {
		conn_close(c);
		return;
	}
	c->writing = true;
	conn_write(c);
}

/* A free slot; the oldest connection makes room when there is none. */
static struct conn *slot(struct http_server *srv)
{
	struct conn *oldest = &srv->conns[0];

	for (int i = 0; i < HTTP_MAX_CONNS; i++) {
		struct conn *c = &srv->conns[i];

		if (c->fd < 0)
			return c;
		if (c->deadline < oldest->deadline)
			oldest = c;
	}
	conn_close(oldest);
	return oldest;
}

static void accept_all(struct http_server *srv)
{
	/* A bounded batch: the daemon's other events come next. */
	for (int n = 0; n < HTTP_MAX_CONNS; n++) {
		int fd = accept4(srv->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;

		if (fd < 0)
			return;
		c = slot(srv);
		c->fd = fd;
		c->writing = false;
		c->got = 0;
		c->req[0] = '\0';
		c->deadline = now_ms() + HTTP_DEADLINE_MS;
		if (ep_set(srv, EPOLL_CTL_ADD, fd, EPOLLIN | EPOLLRDHUP, c - srv->conns))
			conn_close(c);
	}
}

/* Close what is past its deadline; arm the timer for the next one. */
static void expire(struct http_server *srv)
{
	struct itimerspec its = {};
	long long now = now_ms(), next = 0;

	for (int i = 0; i < HTTP_MAX_CONNS; i++) {
		struct conn *c = &srv->conns[i];

		if (c->fd < 0)
			continue;
		if (c->deadline <= now) {
			conn_close(c);
			continue;
		}
		if (!next || c->deadline < next)
			next = c->deadline;
	}
	if (next) {
		its.it_value.tv_sec = next / 1000;
		its.it_value.tv_nsec = next % 1000 * 1000000;
	}
	timerfd_settime(srv->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

void http_process(struct http_server *srv)
{
	struct epoll_event evs[HTTP_MAX_CONNS + 2];
	int n = epoll_wait(srv->ep, evs, HTTP_MAX_CONNS + 2, 0);
	uint64_t ticks;

	for (int i = 0; i < n; i++) {
		uint32_t tag = evs[i].data.u32;
		struct conn *c;

		if (tag == EV_LISTEN) {
			accept_all(srv);
			continue;
		}
		if (tag == EV_TIMER) {
			if (read(srv->tfd, &ticks, sizeof(ticks)) < 0)
				ticks = 0;
			continue;
		}
		c = &srv->conns[tag];
		if (c->fd < 0)
			continue;	/* closed by an earlier event of this batch */
		if (c->writing)
			conn_write(c);
		else
			conn_read(srv, c);
	}
	expire(srv);
}
