// SPDX-License-Identifier: GPL-2.0
/*
 * tsqd's statistics server against clients that hold on: a child runs
 * the server in an event loop shaped like tsqd's (signalfd for SIGTERM,
 * the server's fd), 50 clients send a byte and stop, one asks for a
 * large body and never reads. A scrape must still be answered at once,
 * the stuck clients closed by the deadline, SIGTERM handled at once.
 * Then a server with a bearer token: only a request with the token
 * reaches the handler.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "../../../user/tsqd/http.h"
#include "test.h"

#define SLOW_CLIENTS	50
#define BIG_BODY	(8 << 20)	/* more than the socket buffers hold */

static char *big;

static const char *handler(const char *path, FILE *body, void *ctx)
{
	if (!strcmp(path, "/metrics")) {
		fputs("tsq_policies 1\n", body);
		return "text/plain";
	}
	if (!strcmp(path, "/big")) {
		fwrite(big, 1, BIG_BODY, body);
		return "text/plain";
	}
	return NULL;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The child: tsqd's loop, reduced to a signal and the server. */
static void serve(struct http_server *srv)
{
	struct epoll_event ev = { .events = EPOLLIN }, evs[4];
	int ep = epoll_create1(0), sig;
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sig = signalfd(-1, &mask, SFD_NONBLOCK);
	ev.data.u32 = 0;
	epoll_ctl(ep, EPOLL_CTL_ADD, sig, &ev);
	ev.data.u32 = 1;
	epoll_ctl(ep, EPOLL_CTL_ADD, http_fd(srv), &ev);
	for (;;) {
		int n = epoll_wait(ep, evs, 4, -1);

		for (int i = 0; i < n; i++) {
			if (evs[i].data.u32 == 0)
				_exit(0);
			http_process(srv);
		}
	}
}

static int connect_to(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read fd to its end within timeout_ms: the bytes read (the last
 * len - 1 of them are in buf), or -1 on a timeout. A reset is an end.
 */
static ssize_t read_to_end(int fd, char *buf, size_t len, int timeout_ms)
{
	long long end = now_ms() + timeout_ms;
	size_t got = 0, total = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = end - now_ms();
		ssize_t r;

		if (left <= 0 || poll(&p, 1, left) != 1)
			return -1;
		if (got == len - 1)
			got = 0;
		r = read(fd, buf + got, len - 1 - got);
		if (r <= 0)
			break;
		got += r;
		total += r;
	}
	buf[got] = '\0';
	return total;
}

/* GET path; the whole answer within timeout_ms, or -1. */
static ssize_t get(int port, const char *path, char *buf, size_t len, int timeout_ms)
{
	int fd = connect_to(port);
	char req[128];
	ssize_t n = -1;

	if (fd < 0)
		return -1;
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\n\r\n", path);
	if (write(fd, req, strlen(req)) == (ssize_t)strlen(req))
		n = read_to_end(fd, buf, len, timeout_ms);
	close(fd);
	return n;
}

/* A raw request head; the whole answer within 1 s, or -1. */
static ssize_t raw(int port, const char *req, char *buf, size_t len)
{
	int fd = connect_to(port);
	ssize_t n = -1;

	if (fd < 0)
		return -1;
	if (write(fd, req, strlen(req)) == (ssize_t)strlen(req))
		n = read_to_end(fd, buf, len, 1000);
	close(fd);
	return n;
}

#define TOKEN	"s3cret-t0ken-0123456789"

static const struct {
	const char *what, *req;
	bool ok;
} auth_cases[] = {
	{ "no Authorization", "GET /metrics HTTP/1.0\r\n\r\n", false },
	{ "the token", "GET /metrics HTTP/1.0\r\nAuthorization: Bearer " TOKEN "\r\n\r\n", true },
	{ "any case, LF only, blanks around", "GET /metrics HTTP/1.1\nHost: x\n"
	  "authorization:  bearer  " TOKEN " \n\n", true },
	{ "a wrong token", "GET /metrics HTTP/1.0\r\nAuthorization: Bearer nope\r\n\r\n", false },
	{ "the token but its last byte", "GET /metrics HTTP/1.0\r\n"
	  "Authorization: Bearer s3cret-t0ken-012345678\r\n\r\n", false },
	{ "the token and one byte more", "GET /metrics HTTP/1.0\r\n"
	  "Authorization: Bearer " TOKEN "9\r\n\r\n", false },
	{ "the token and a word more", "GET /metrics HTTP/1.0\r\n"
	  "Authorization: Bearer " TOKEN " x\r\n\r\n", false },
	{ "Basic with the token", "GET /metrics HTTP/1.0\r\nAuthorization: Basic " TOKEN
	  "\r\n\r\n", false },
	{ "two Authorization lines", "GET /metrics HTTP/1.0\r\nAuthorization: Bearer x\r\n"
	  "Authorization: Bearer " TOKEN "\r\n\r\n", false },
	{ "the token after the head", "GET /metrics HTTP/1.0\r\n\r\n"
	  "Authorization: Bearer " TOKEN "\r\n\r\n", false },
	{ "the token in the request line", "GET /metrics?Authorization:%20Bearer%20" TOKEN
	  " HTTP/1.0\r\n\r\n", false },
	{ "an empty token", "GET /metrics HTTP/1.0\r\nAuthorization: Bearer \r\n\r\n", false },
};

/* A server with a token: the handler's body only for the token's bearer. */
static void test_token(void)
{
	struct http_server *srv = NULL, *any;
	char spec[64], errbuf[256], resp[4096];
	int port = 0, err, status;
	ssize_t n;
	pid_t pid;

	for (int i = 0; i < 50 && !srv; i++) {
		port = 20000 + (getpid() * 11 + i * 137) % 40000;
		snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
		srv = http_open(spec, handler, NULL, &err, errbuf, sizeof(errbuf));
	}
	if (!check(srv != NULL, "http: token: listen on loopback", "%s", errbuf))
		return;
	ASSERT(http_loopback(srv), "http: 127.0.0.1 is loopback");
	snprintf(spec, sizeof(spec), "0.0.0.0:%d", port + 1);
	any = http_open(spec, handler, NULL, &err, errbuf, sizeof(errbuf));
	check(any && !http_loopback(any), "http: 0.0.0.0 is not loopback", "%s",
	      any ? "said loopback" : errbuf);
	http_close(any);
	ASSERT(!http_set_token(srv, TOKEN, strlen(TOKEN)), "http: token set");
	pid = fork();
	if (!pid)
		serve(srv);
	http_close(srv);
	for (size_t i = 0; i < ARRAY_SIZE(auth_cases); i++) {
		bool body, denied;

		n = raw(port, auth_cases[i].req, resp, sizeof(resp));
		body = n > 0 && strstr(resp, "200 OK") && strstr(resp, "tsq_policies 1");
		denied = n > 0 && strstr(resp, "401 Unauthorized") &&
			 strstr(resp, "WWW-Authenticate: Bearer") && !strstr(resp, "tsq_policies");
		check(auth_cases[i].ok ? body : denied,
		      tname("http: token: %s: %s", auth_cases[i].what,
			    auth_cases[i].ok ? "200 with the body" : "401, no body"),
		      "got %zd bytes: %.60s", n, n > 0 ? resp : "");
	}
	n = get(port, "/healthz", resp, sizeof(resp), 1000);
	ASSERT(n > 0 && strstr(resp, "200 OK") && strstr(resp, "\r\n\r\nok\n"),
	       "http: token: /healthz answers ok without it");
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
}

/* The peer closed fd (EOF or reset) within timeout_ms. */
static bool closed_within(int fd, int timeout_ms)
{
	char buf[65536];

	return read_to_end(fd, buf, sizeof(buf), timeout_ms) >= 0;
}

int main(void)
{
	int slow[SLOW_CLIENTS], stuck, port = 0, err, status;
	struct http_server *srv = NULL;
	char spec[64], errbuf[256], resp[4096];
	long long t0, t_get, t_term;
	int rcvbuf = 4096, n_closed = 0;
	ssize_t n;
	sigset_t mask;
	pid_t pid;

	big = malloc(BIG_BODY);
	if (!big)
		return 1;
	memset(big, 'x', BIG_BODY);
	/* A free port: try a few from a pid-derived start. */
	for (int i = 0; i < 50 && !srv; i++) {
		port = 20000 + (getpid() * 7 + i * 131) % 40000;
		snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
		srv = http_open(spec, handler, NULL, &err, errbuf, sizeof(errbuf));
	}
	if (!check(srv != NULL, "http: listen on loopback", "%s", errbuf))
		return test_done();
	ASSERT(!http_open("127.0.0.1:0", handler, NULL, &err, errbuf, sizeof(errbuf)) &&
	       err == -EINVAL, "http: port 0 refused with -EINVAL");

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	pid = fork();
	if (!pid)
		serve(srv);
	http_close(srv);	/* the parent's copy */

	n = get(port, "/metrics", resp, sizeof(resp), 1000);
	ASSERT(n > 0 && strstr(resp, "200 OK") && strstr(resp, "tsq_policies 1"),
	       "http: /metrics answered");
	n = get(port, "/nope", resp, sizeof(resp), 1000);
	ASSERT(n > 0 && strstr(resp, "404 Not Found"), "http: unknown path: 404");

	for (int i = 0; i < SLOW_CLIENTS; i++) {
		slow[i] = connect_to(port);
		if (slow[i] >= 0 && write(slow[i], "G", 1) != 1) {
			close(slow[i]);
			slow[i] = -1;
		}
	}
	/* Asks for 8 MB through a 4 KB receive buffer, and never reads. */
	stuck = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(stuck, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	{
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (connect(stuck, (struct sockaddr *)&a, sizeof(a)) ||
		    write(stuck, "GET /big HTTP/1.0\r\n\r\n", 21) != 21)
			check(false, "http: the stuck reader connects", "%s", strerror(errno));
	}
	usleep(200 * 1000);

	t0 = now_ms();
	n = get(port, "/metrics", resp, sizeof(resp), 1000);
	t_get = now_ms() - t0;
	check(n > 0 && strstr(resp, "tsq_policies 1"),
	      tname("http: /metrics answered with %d slow clients and a stuck reader (%lld ms)",
		    SLOW_CLIENTS, t_get),
	      "got %zd bytes after %lld ms", n, t_get);
	check(t_get < 500, "http: ... within 500 ms", "%lld ms", t_get);

	/* Every stuck client is closed by the deadline (2 s from accept). */
	t0 = now_ms();
	for (int i = 0; i < SLOW_CLIENTS; i++)
		n_closed += slow[i] >= 0 && closed_within(slow[i], HTTP_DEADLINE_MS + 1000);
	check(n_closed == SLOW_CLIENTS,
	      tname("http: all %d slow clients closed within the deadline", SLOW_CLIENTS),
	      "%d of %d closed", n_closed, SLOW_CLIENTS);
	check(closed_within(stuck, HTTP_DEADLINE_MS + 1000),
	      "http: the client that never reads is closed by the deadline", "still open");
	printf("# slow clients closed %lld ms after the scrape\n", now_ms() - t0);

	/* Stuck again, then SIGTERM: the loop must see it at once. */
	for (int i = 0; i < SLOW_CLIENTS; i++) {
		close(slow[i]);
		slow[i] = connect_to(port);
		if (slow[i] >= 0 && write(slow[i], "GE", 2) != 2)
			slow[i] = -1;
	}
	usleep(200 * 1000);
	t0 = now_ms();
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	t_term = now_ms() - t0;
	check(WIFEXITED(status) && t_term < 1000,
	      tname("http: SIGTERM handled in %lld ms with %d slow clients", t_term,
		    SLOW_CLIENTS),
	      "%lld ms, status %d", t_term, status);
	for (int i = 0; i < SLOW_CLIENTS; i++)
		if (slow[i] >= 0)
			close(slow[i]);
	close(stuck);
	free(big);
	test_token();
	return test_done();
}
