/* SPDX-License-Identifier: GPL-2.0 */
/* Running policy_sync in the network namespaces of a cgroup's processes. */
#ifndef __TSQ_NETNS_H
#define __TSQ_NETNS_H

#include <stddef.h>

#define TSQ_NETNS_MAX		4096	/* namespaces visited per call */
#define TSQ_NETNS_PROCS_MAX	65536	/* processes looked at per call */

struct tsq_netns_sync {
	unsigned int netns;	/* namespaces whose sockets were synced */
	unsigned int failed;	/* could not be opened or entered */
	unsigned int skipped;	/* past TSQ_NETNS_MAX or TSQ_NETNS_PROCS_MAX */
	int err;		/* the first failure's -errno */
};

/*
 * tsq_bump_gen() opts the established sockets of the caller's netns in
 * or out. A pod's sockets live in the pod's netns: run the same
 * policy_sync there, for every netns other than the caller's that a
 * process in the cgroups at paths (below mount, and their subtrees) is
 * in. Done on a thread of its own, which alone enters each netns and
 * ends with the call. 0, or -errno if nothing could be done at all.
 */
int tsq_sync_cgroup_netns(const char *mount, char *const *paths, size_t n,
			  struct tsq_netns_sync *st);

#endif
