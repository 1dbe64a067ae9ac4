// SPDX-License-Identifier: GPL-2.0
/* A runner for prog_tests/tcp_tsq_ops.c with the helpers it takes from
 * selftests/bpf: subtests print PASS:/FAIL: lines for tests/vm, and
 * "test_progs NAME..." runs only the named subtests.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "test_progs.h"

int env_subtest_failed;
static char **only;
static int nr_only, passed, failed;
static char cur[64];

static void end_subtest(void)
{
	if (!cur[0])
		return;
	printf("%s: tcp_tsq_ops/%s\n", env_subtest_failed ? "FAIL" : "PASS", cur);
	fflush(stdout);
	if (env_subtest_failed)
		failed++;
	else
		passed++;
	cur[0] = 0;
}

bool test__start_subtest(const char *name)
{
	end_subtest();
	if (nr_only) {
		int i;

		for (i = 0; i < nr_only && strcmp(only[i], name); i++)
			;
		if (i == nr_only)
			return false;
	}
	snprintf(cur, sizeof(cur), "%s", name);
	env_subtest_failed = 0;
	return true;
}

struct nstoken {
	int orig;
};

struct nstoken *open_netns(const char *name)
{
	struct nstoken *t = calloc(1, sizeof(*t));
	char path[256];
	int fd;

	if (!t)
		return NULL;
	snprintf(path, sizeof(path), "/var/run/netns/%s", name);
	t->orig = open("/proc/self/ns/net", O_RDONLY);
	fd = open(path, O_RDONLY);
	if (t->orig < 0 || fd < 0 || setns(fd, CLONE_NEWNET)) {
		if (fd >= 0)
			close(fd);
		if (t->orig >= 0)
			close(t->orig);
		free(t);
		return NULL;
	}
	close(fd);
	return t;
}

void close_netns(struct nstoken *t)
{
	if (!t)
		return;
	setns(t->orig, CLONE_NEWNET);
	close(t->orig);
	free(t);
}

static int addr4(const char *addr, unsigned short port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	return inet_pton(AF_INET, addr, &sa->sin_addr) == 1 ? 0 : -1;
}

int start_server_addr4(const char *addr, unsigned short port)
{
	struct sockaddr_in sa;
	int fd, one = 1;

	if (addr4(addr, port, &sa))
		return -1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (void *)&sa, sizeof(sa)) || listen(fd, 16)) {
		close(fd);
		return -1;
	}
	return fd;
}

int connect_to_addr4(const char *addr, unsigned short port)
{
	struct sockaddr_in sa;
	int fd;

	if (addr4(addr, port, &sa))
		return -1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (void *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

void test_tcp_tsq_ops(void);

static int print_warn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN && getenv("V") ? vfprintf(stderr, fmt, ap) : 0;
}

int main(int argc, char **argv)
{
	only = argv + 1;
	nr_only = argc - 1;
	libbpf_set_print(print_warn);
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_tcp_tsq_ops();
	end_subtest();
	printf("tcp_tsq_ops: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
