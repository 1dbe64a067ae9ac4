/* SPDX-License-Identifier: GPL-2.0 */
/* The scope of this process's policy_sync runs (struct tsq_sync_scope). */
#ifndef __TSQ_SCOPE_H
#define __TSQ_SCOPE_H

#include <stddef.h>
#include <linux/types.h>

/*
 * Until tsq_scope_end(), this process's policy_sync runs (tsq_bump_gen(),
 * tsq_sync_cgroup_netns()) visit only the sockets in the subtrees of the
 * n cgroups with these ids; the others keep what they have, which no
 * change at these cgroups can alter. 0 if so; otherwise the runs visit
 * every socket, as they did before scopes, and -errno says why:
 * -ENOENT   the pins have no scope map (attached by an older tsq);
 * -E2BIG    more than TSQ_SYNC_SCOPES cgroups;
 * -ENOSPC   TSQ_SYNC_RUNS processes syncing at once (the map is full);
 * -EINVAL   no cgroup, or an id of 0 (a cgroup not known);
 * -EPERM    not in the initial pid namespace, whose pids the map's keys
 *           are; or the -errno of the map update.
 * Entries that processes now gone left behind are removed first.
 */
int tsq_scope_begin(const __u64 *cgids, size_t n);
void tsq_scope_end(void);
/* Why tsq_scope_begin() returned err, in a few words. */
const char *tsq_scope_why(int err);

/* Remove the entries of processes that are gone from the scope map fd
 * (their pid unused, or used by a process started since): how many.
 */
int tsq_scope_prune(int fd);

/* /proc/PID/stat's start time, in clock ticks since boot; 0: no such
 * process.
 */
__u64 tsq_proc_start(__u32 pid);

#endif
