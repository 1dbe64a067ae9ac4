/* SPDX-License-Identifier: GPL-2.0 */
/* Per-cgroup statistics from the pinned maps: tsqctl stats and tsqd. */
#ifndef __TSQ_REPORT_H
#define __TSQ_REPORT_H

#include <stddef.h>
#include <linux/types.h>

#include "tsq.h"

struct tsq_cgrp_report {
	char *path;		/* below the cgroup2 mount */
	__u64 id;
	struct tsq_policy policy;	/* flags 0: statistics left from one */
	struct tsq_stats sum;	/* over CPUs */
	__u64 limit_mean;	/* bytes, at throttles */
	__s64 sockets;		/* established, in the cgroups the policy covers */
	__u64 queued;		/* bytes in queues: the group's with a budget,
				 * else the caller's netns' sockets' */
	__u32 queued_sockets;	/* sockets with bytes in queues (caller's netns) */
};

struct tsq_report {
	struct tsq_cgrp_report *v;
	size_t nr, alloc;
	size_t cgroups;		/* cgroups walked */
	size_t unreadable;	/* cgroups the walk could not open or read */
	struct tsq_map_full full;	/* inserts refused, over CPUs */
};

/* Inserts the per-cgroup maps refused since attach (a pinned state
 * older than the counter: zeros). 0 or -errno.
 */
int tsq_map_full_read(struct tsq_map_full *sum);

/* Text: one line if any insert was refused, else nothing. */
void tsq_map_full_print(const struct tsq_map_full *f);

/*
 * Every cgroup below mount that has a policy or statistics, in walk
 * order. -ENOENT: tsq is not attached; else 0 or -errno.
 */
int tsq_report_collect(const char *mount, struct tsq_report *r);
void tsq_report_free(struct tsq_report *r);

/* Through the print layer: one JSON array, or one block a cgroup, and
 * in text the line of tsq_map_full_print().
 */
void tsq_report_print(const struct tsq_report *r);

#endif /* __TSQ_REPORT_H */
