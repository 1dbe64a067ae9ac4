// SPDX-License-Identifier: GPL-2.0
/* rrprobe: TCP request/response latency, the way an RPC sees a queue.
 *
 *   rrprobe -s PORT                      echo 64-byte requests, forever
 *   rrprobe -c ADDR PORT SECONDS         a request every 10 ms over one
 *                                        connection; prints "n N p50 X
 *                                        p99 Y max Z" in ms
 *   rrprobe -S PORT                      one connection at a time: one
 *                                        request, its response, close
 *   rrprobe -C ADDR PORT SECONDS         connect, one request, close, as
 *                                        fast as it goes (netperf's
 *                                        TCP_CRR); prints "crr N rate R"
 *
 * One connection, TCP_NODELAY on both ends: what is measured is the wait
 * behind other flows' packets in the queues, not Nagle or handshakes.
 * The CRR pair measures the other end of the cost, connections a second:
 * its server neither forks nor threads, so that the rate is TCP's and the
 * hook's, not the scheduler's.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#define REQ		64
#define INTERVAL_NS	10000000L
#define MAX_SAMPLES	100000

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int full(int fd, char *buf, size_t len, int do_write)
{
	while (len) {
		ssize_t n = do_write ? write(fd, buf, len) : read(fd, buf, len);

		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

static void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int listen_on(int port, int backlog)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, backlog)) {
		perror("rrprobe: listen");
		return -1;
	}
	return lfd;
}

/* Answer requests on port: each connection's, until it closes, in a
 * child of its own; or with once, one request a connection, in this
 * process, which then closes it (the CRR server).
 */
static int serve(int port, int once)
{
	int lfd = listen_on(port, once ? 128 : 8);
	char buf[REQ];

	if (lfd < 0)
		return 1;
	for (;;) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			continue;
		nodelay(fd);
		if (once) {
			if (!full(fd, buf, REQ, 0))
				full(fd, buf, REQ, 1);
		} else if (fork() == 0) {
			while (!full(fd, buf, REQ, 0) && !full(fd, buf, REQ, 1))
				;
			_exit(0);
		}
		close(fd);
	}
}

static int crr(const char *addr, int port, int secs)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	char buf[REQ] = "rrprobe";
	double t0 = now_ms(), t;
	long n = 0;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "rrprobe: bad address %s\n", addr);
		return 2;
	}
	while ((t = now_ms()) < t0 + secs * 1e3) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			perror("rrprobe: connect");
			return 1;
		}
		nodelay(fd);
		if (full(fd, buf, REQ, 1) || full(fd, buf, REQ, 0)) {
			fprintf(stderr, "rrprobe: connection lost\n");
			return 1;
		}
		close(fd);
		n++;
	}
	printf("crr %ld rate %.1f\n", n, n / ((t - t0) / 1e3));
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int probe(const char *addr, int port, int secs)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timespec next;
	static double rtt[MAX_SAMPLES];
	char buf[REQ] = "rrprobe";
	double end;
	int fd, n = 0;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "rrprobe: bad address %s\n", addr);
		return 2;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("rrprobe: connect");
		return 1;
	}
	nodelay(fd);
	clock_gettime(CLOCK_MONOTONIC, &next);
	end = now_ms() + secs * 1e3;
	while (now_ms() < end && n < MAX_SAMPLES) {
		double t0 = now_ms();

		if (full(fd, buf, REQ, 1) || full(fd, buf, REQ, 0)) {
			fprintf(stderr, "rrprobe: connection lost\n");
			return 1;
		}
		rtt[n++] = now_ms() - t0;
		next.tv_nsec += INTERVAL_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	if (!n)
		return 1;
	qsort(rtt, n, sizeof(rtt[0]), cmp);
	printf("n %d p50 %.2f p99 %.2f max %.2f\n", n, rtt[(n - 1) / 2],
	       rtt[(n * 99 - 1) / 100], rtt[n - 1]);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-s"))
		return serve(atoi(argv[2]), 0);
	if (argc == 5 && !strcmp(argv[1], "-c"))
		return probe(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "-S"))
		return serve(atoi(argv[2]), 1);
	if (argc == 5 && !strcmp(argv[1], "-C"))
		return crr(argv[2], atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: rrprobe -s PORT | -c ADDR PORT SECONDS | -S PORT | -C ADDR PORT SECONDS\n");
	return 2;
}
