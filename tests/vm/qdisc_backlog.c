// SPDX-License-Identifier: GPL-2.0
/* qdisc_backlog: sample a device's root qdisc backlog over rtnetlink.
 *
 *   qdisc_backlog DEV INTERVAL_US PID [unix]
 *
 * Prints "MS BYTES DEVBYTES" lines (ms since start, root qdisc backlog,
 * bytes the driver holds: BQL's inflight summed over the TX queues, -1
 * without BQL) until PID exits. With QB_SOCKS=FILE, a pinned tsq_socks
 * iterator (tests/bpf/tsq_socks.bpf.c), a fourth column: the bytes in
 * queues of the sockets it lists, by sk_wmem_alloc (skb truesize, as TSQ
 * counts them); QB_DPORT=N counts only those to port N. With "unix", Unix
 * time in seconds to the
 * microsecond instead of MS, to line samples up with another tool's
 * timestamps. One process and one netlink socket instead of a tc per sample:
 * under TCG a fork+exec per sample costs a vCPU and skews the very
 * throughput the tests compare.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

static long long now_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000LL + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Root qdisc backlog of @ifindex from one RTM_GETQDISC dump, or -1. */
static long long backlog(int fd, int ifindex)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = {
		.nh.nlmsg_len = sizeof(req),
		.nh.nlmsg_type = RTM_GETQDISC,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.tc.tcm_family = AF_UNSPEC,
		.tc.tcm_ifindex = ifindex,
	};
	static char buf[65536];
	long long found = -1;

	if (send(fd, &req, sizeof(req), 0) < 0)
		return -1;
	for (;;) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (len <= 0)
			return -1;
		for (nh = (void *)buf; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			struct tcmsg *tc = NLMSG_DATA(nh);
			int alen = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tc));
			struct rtattr *a;

			if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR)
				return found;
			if (nh->nlmsg_type != RTM_NEWQDISC || tc->tcm_ifindex != ifindex ||
			    tc->tcm_parent != TC_H_ROOT)
				continue;
			for (a = (void *)((char *)tc + NLMSG_ALIGN(sizeof(*tc)));
			     RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
				struct rtattr *s;
				int slen = RTA_PAYLOAD(a);

				if (a->rta_type != TCA_STATS2)
					continue;
				for (s = RTA_DATA(a); RTA_OK(s, slen); s = RTA_NEXT(s, slen)) {
					struct gnet_stats_queue q;

					if (s->rta_type != TCA_STATS_QUEUE)
						continue;
					memcpy(&q, RTA_DATA(s), sizeof(q));
					found = q.backlog;
				}
			}
		}
	}
}

#define MAX_TXQ 64

/* The TX queues' BQL inflight files, opened once; returns how many. */
static int open_bql(const char *dev, int *fds)
{
	char path[128];
	int n = 0;

	for (; n < MAX_TXQ; n++) {
		snprintf(path, sizeof(path),
			 "/sys/class/net/%s/queues/tx-%d/byte_queue_limits/inflight", dev, n);
		fds[n] = open(path, O_RDONLY | O_CLOEXEC);
		if (fds[n] < 0)
			break;
	}
	return n;
}

static long long bql_inflight(const int *fds, int n)
{
	long long sum = 0;
	char buf[32];

	if (!n)
		return -1;
	for (int i = 0; i < n; i++) {
		ssize_t len = pread(fds[i], buf, sizeof(buf) - 1, 0);

		if (len <= 0)
			return -1;
		buf[len] = 0;
		sum += atoll(buf);
	}
	return sum;
}

/* Sum of the wmem column of one run of the tsq_socks iterator at path,
 * for sockets to dport (0: any), or -1.
 */
static long long socks_wmem(const char *path, unsigned int dport)
{
	static char buf[1 << 20];
	long long sum = 0;
	size_t have = 0;
	ssize_t len;
	char *line;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (have < sizeof(buf) - 1 &&
	       (len = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0)
		have += len;
	close(fd);
	buf[have] = 0;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned int sport, port;
		long long wmem;

		if (sscanf(line, "%u %u %lld", &sport, &port, &wmem) == 3 &&
		    (!dport || port == dport))
			sum += wmem;
	}
	return sum;
}

int main(int argc, char **argv)
{
	const char *socks = getenv("QB_SOCKS");
	unsigned int dport = getenv("QB_DPORT") ? atoi(getenv("QB_DPORT")) : 0;
	int bql[MAX_TXQ], nbql;
	struct timespec t0, period;
	bool unix_time = argc == 5 && !strcmp(argv[4], "unix");
	int fd, ifindex;
	long interval;
	pid_t pid;

	if (argc != 4 && !unix_time) {
		fprintf(stderr, "usage: qdisc_backlog DEV INTERVAL_US PID [unix]\n");
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	interval = atol(argv[2]);
	pid = atoi(argv[3]);
	if (!ifindex || interval <= 0 || pid <= 0) {
		fprintf(stderr, "qdisc_backlog: bad device, interval or pid\n");
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		perror("qdisc_backlog: socket");
		return 1;
	}
	nbql = open_bql(argv[1], bql);
	period.tv_sec = interval / 1000000;
	period.tv_nsec = interval % 1000000 * 1000;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	while (kill(pid, 0) == 0 || errno != ESRCH) {
		long long b = backlog(fd, ifindex), d = bql_inflight(bql, nbql);

		if (b < 0) {
			fprintf(stderr, "qdisc_backlog: no root qdisc on %s\n", argv[1]);
			return 1;
		}
		if (unix_time) {
			struct timespec r;

			clock_gettime(CLOCK_REALTIME, &r);
			printf("%lld.%06ld %lld %lld", (long long)r.tv_sec, r.tv_nsec / 1000, b, d);
		} else {
			printf("%lld %lld %lld", now_ms(&t0), b, d);
		}
		if (socks)
			printf(" %lld", socks_wmem(socks, dport));
		putchar('\n');
		nanosleep(&period, NULL);
	}
	return 0;
}
