// SPDX-License-Identifier: GPL-2.0
/* policy_sync in the network namespaces of pods and containers.
 *
 * An iter/tcp program walks the sockets of the netns of the task that
 * creates the iterator, so reaching a pod's sockets means creating it
 * from inside the pod's netns. The namespaces are found from the
 * processes of the cgroups whose policy changed (a pod's sandbox process
 * holds its netns for the pod's life), entered with setns() on a thread
 * made for the purpose: the daemon's own thread never leaves its netns,
 * and the thread's namespace goes when it ends.
 *
 * What a pod controls here: the processes in its cgroups and the
 * namespaces they are in. The work is bounded (TSQ_NETNS_PROCS_MAX
 * processes, TSQ_NETNS_MAX namespaces per call, each visited once, by
 * inode), the thread reads nothing in a pod's netns but the iterator's
 * output, and a pid that exits or is reused in between only costs a
 * sync of a netns that did not need one: the iterator decides per
 * socket from its cgroup, whichever netns it walks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tsq_bpf.h"
#include "tsq_netns.h"
#include "cgroup.h"

struct walk {
	const char *mount;
	char *const *paths;
	size_t n;
	int link;
	ino_t own;
	ino_t *seen;
	size_t nr_seen, procs;
	struct tsq_netns_sync *st;
};

static void failed(struct walk *w, int err)
{
	w->st->failed++;
	if (!w->st->err)
		w->st->err = err;
}

static bool seen(struct walk *w, ino_t ino)
{
	for (size_t i = 0; i < w->nr_seen; i++)
		if (w->seen[i] == ino)
			return true;
	return false;
}

static void visit_pid(struct walk *w, long pid)
{
	char path[64];
	struct stat st;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		/* Gone since cgroup.procs listed it: nothing to do. */
		if (errno != ENOENT && errno != ESRCH)
			failed(w, -errno);
		return;
	}
	if (fstat(fd, &st) || st.st_ino == w->own || seen(w, st.st_ino))
		goto out;
	if (w->nr_seen == TSQ_NETNS_MAX) {
		w->st->skipped++;
		goto out;
	}
	w->seen[w->nr_seen++] = st.st_ino;
	if (setns(fd, CLONE_NEWNET)) {
		failed(w, -errno);
		goto out;
	}
	err = tsq_sync_run(w->link);
	if (err)
		failed(w, err);
	else
		w->st->netns++;
out:
	close(fd);
}

static int visit_proc(long pid, void *ctx)
{
	struct walk *w = ctx;

	if (w->procs++ >= TSQ_NETNS_PROCS_MAX) {
		w->st->skipped++;
		return 1;
	}
	visit_pid(w, pid);
	return 0;
}

static void visit_cgroup(int fd, const char *path, int depth, void *ctx)
{
	tsq_cgroup_procs(fd, visit_proc, ctx);
}

static void *worker(void *arg)
{
	struct walk *w = arg;

	for (size_t i = 0; i < w->n; i++)
		tsq_cgroup_walk(w->mount, w->paths[i], visit_cgroup, w);
	return NULL;
}

int tsq_sync_cgroup_netns(const char *mount, char *const *paths, size_t n,
			  struct tsq_netns_sync *st)
{
	struct walk w = { .mount = mount, .paths = paths, .n = n, .st = st };
	struct stat own;
	pthread_t th;
	int err;

	memset(st, 0, sizeof(*st));
	if (!n)
		return 0;
	if (stat("/proc/thread-self/ns/net", &own))
		return -errno;
	w.own = own.st_ino;
	w.seen = malloc(TSQ_NETNS_MAX * sizeof(*w.seen));
	if (!w.seen)
		return -ENOMEM;
	w.link = tsq_sync_link();
	if (w.link < 0) {
		free(w.seen);
		return w.link;
	}
	err = pthread_create(&th, NULL, worker, &w);
	if (!err)
		err = pthread_join(th, NULL);
	close(w.link);
	free(w.seen);
	return -err;
}
