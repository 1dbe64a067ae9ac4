// SPDX-License-Identifier: GPL-2.0
/* Scoped policy syncs: the pinned tsq_sync_scope map, entry by entry.
 *
 * An entry is keyed by the process's pid and holds its start time, which
 * policy_sync checks against the task running it: an entry acts for the
 * process that made it and nobody else, so a killed tsqctl's entry only
 * takes a slot until the next begin prunes it. Whatever goes wrong here
 * leaves the process without an entry, and a sync without an entry
 * visits every socket: slower, never wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tsq.h"
#include "tsq_bpf.h"
#include "tsq_scope.h"

/* The initial pid namespace's inode (PROC_PID_INIT_INO). */
#define INIT_PIDNS	"pid:[4026531836]"

static int scope_fd = -1;
static __u32 scope_pid;

__u64 tsq_proc_start(__u32 pid)
{
	unsigned long long start = 0;
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The command name may hold spaces and ')': count after the last. */
	p = strrchr(buf, ')');
	/* Field 22; the one after ')' is field 3. */
	for (i = 3; p && i <= 22; i++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p, " %llu", &start) != 1)
		start = 0;
	return start;
}

static bool in_init_pidns(void)
{
	char buf[64];
	ssize_t n = readlink("/proc/thread-self/ns/pid", buf, sizeof(buf) - 1);

	/* No such file: a kernel without CONFIG_PID_NS, one pid space. */
	if (n < 0)
		return errno == ENOENT;
	buf[n] = '\0';
	return !strcmp(buf, INIT_PIDNS);
}

int tsq_scope_prune(int fd)
{
	struct tsq_sync_scope v;
	__u32 key, next;
	int n = 0, err;

	err = bpf_map_get_next_key(fd, NULL, &next);
	/* Bounded: a map being filled as it is walked ends the walk too. */
	for (int i = 0; !err && i < 2 * TSQ_SYNC_RUNS; i++) {
		key = next;
		err = bpf_map_get_next_key(fd, &key, &next);
		if (bpf_map_lookup_elem(fd, &key, &v) || v.start == tsq_proc_start(key))
			continue;
		n += !bpf_map_delete_elem(fd, &key);
	}
	return n;
}

int tsq_scope_begin(const __u64 *cgids, size_t n)
{
	struct tsq_sync_scope v = { .nr = n };
	int fd, err;

	if (!n)
		return -EINVAL;
	if (n > TSQ_SYNC_SCOPES)
		return -E2BIG;
	for (size_t i = 0; i < n; i++) {
		if (!cgids[i])
			return -EINVAL;
		v.cgid[i] = cgids[i];
		v.level[i] = TSQ_SCOPE_LEVEL_UNKNOWN;
	}
	if (!in_init_pidns())
		return -EPERM;
	tsq_scope_end();
	fd = tsq_pinned(TSQ_PIN_SCOPE);
	if (fd < 0)
		return fd;
	scope_pid = getpid();
	v.start = tsq_proc_start(scope_pid);
	tsq_scope_prune(fd);
	err = bpf_map_update_elem(fd, &scope_pid, &v, BPF_NOEXIST) ? -errno : 0;
	/* Ours, made before an exec: this process's now. */
	if (err == -EEXIST)
		err = bpf_map_update_elem(fd, &scope_pid, &v, BPF_EXIST) ? -errno : 0;
	if (err) {
		close(fd);
		return err == -E2BIG ? -ENOSPC : err;
	}
	scope_fd = fd;
	return 0;
}

void tsq_scope_end(void)
{
	if (scope_fd < 0)
		return;
	bpf_map_delete_elem(scope_fd, &scope_pid);
	close(scope_fd);
	scope_fd = -1;
}

const char *tsq_scope_why(int err)
{
	switch (err) {
	case -ENOENT:
		return "the pins have no scope map (an older tsq attached them)";
	case -E2BIG:
		return "more cgroups changed than a scope holds";
	case -ENOSPC:
		return "the scope map is full (as many syncs run at once as it holds)";
	case -EPERM:
		return "not in the initial pid namespace";
	case -EINVAL:
		return "a changed cgroup is not known";
	}
	return strerror(-err);
}
