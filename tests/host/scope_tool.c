// SPDX-License-Identifier: GPL-2.0
/* scope_tool: drives the policy sync scopes (user/bpf/tsq_scope.c) for
 * tests/host/test_scope.sh and tests/vm/t_scope.sh.
 *
 *   scope_tool hold CGROUP_DIR...
 *	tsq_scope_begin() on those cgroups, print "begin RC"; then one
 *	command a line on stdin: "sync" runs policy_sync in this netns
 *	(tsq_bump_gen()) and prints "sync RC", "end" ends the scope and
 *	prints "end"; EOF ends it and exits. Killed, it leaves its entry.
 *   scope_tool list	one line an entry: "pid start nr cgid:level..."
 *   scope_tool prune	tsq_scope_prune(), print how many it removed
 *   scope_tool fill [PID...]
 *	an entry for each of those processes (all running ones if none
 *	are named), as its own would be, while the map has room: print
 *	how many
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tsq.h"
#include "tsq_bpf.h"
#include "tsq_scope.h"
#include "cgroup.h"

static int map(void)
{
	int fd = tsq_pinned(TSQ_PIN_SCOPE);

	if (fd < 0) {
		fprintf(stderr, "scope_tool: %s/%s: %s\n", TSQ_PIN_DIR, TSQ_PIN_SCOPE,
			strerror(-fd));
		exit(1);
	}
	return fd;
}

static int hold(int argc, char **argv)
{
	__u64 ids[TSQ_SYNC_SCOPES + 8];
	char line[64];
	int n = argc, fd;

	if (n > (int)(sizeof(ids) / sizeof(ids[0])))
		return 2;
	for (int i = 0; i < n; i++) {
		fd = open(argv[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ids[i] = fd < 0 ? 0 : tsq_cgroup_id(fd);
		if (fd >= 0)
			close(fd);
	}
	printf("begin %d\n", tsq_scope_begin(ids, n));
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strcmp(line, "sync\n")) {
			printf("sync %d\n", tsq_bump_gen());
		} else if (!strcmp(line, "end\n")) {
			tsq_scope_end();
			printf("end\n");
		}
		fflush(stdout);
	}
	tsq_scope_end();
	return 0;
}

static int list(void)
{
	int fd = map(), err;
	struct tsq_sync_scope v;
	__u32 key, next;

	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		printf("%u %llu %u", key, (unsigned long long)v.start, v.nr);
		for (__u32 i = 0; i < v.nr && i < TSQ_SYNC_SCOPES; i++)
			printf(" %llu:%d", (unsigned long long)v.cgid[i], v.level[i]);
		printf("\n");
	}
	return 0;
}

/* An entry for pid as its own begin would make it; false when full. */
static bool fill_one(int fd, __u32 pid, int *n)
{
	struct tsq_sync_scope v = { .nr = 1, .cgid = { 1 }, .level = { 0 } };

	if (!pid || pid == (__u32)getpid() || !(v.start = tsq_proc_start(pid)))
		return true;
	if (bpf_map_update_elem(fd, &pid, &v, BPF_NOEXIST))
		return errno != E2BIG;
	(*n)++;
	return true;
}

static int fill(int argc, char **argv)
{
	int fd = map(), n = 0;
	struct dirent *d;
	DIR *proc;

	if (argc) {
		for (int i = 0; i < argc && fill_one(fd, strtoul(argv[i], NULL, 10), &n); i++)
			;
	} else if ((proc = opendir("/proc"))) {
		while ((d = readdir(proc)) && fill_one(fd, strtoul(d->d_name, NULL, 10), &n))
			;
		closedir(proc);
	}
	printf("%d\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "hold"))
		return hold(argc - 2, argv + 2);
	if (argc == 2 && !strcmp(argv[1], "list"))
		return list();
	if (argc == 2 && !strcmp(argv[1], "prune")) {
		printf("%d\n", tsq_scope_prune(map()));
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "fill"))
		return fill(argc - 2, argv + 2);
	fprintf(stderr, "usage: scope_tool hold CGROUP_DIR... | list | prune | fill [PID...]\n");
	return 2;
}
