/* SPDX-License-Identifier: GPL-2.0 */
/* Per-cgroup queue observation on any kernel: the loader of
 * bpf/tsq_observe.bpf.c and the snapshot that tsqctl top and tsqd share.
 */
#ifndef __TSQ_OBSERVE_H
#define __TSQ_OBSERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "tsq.h"

struct tsq_obs_cgrp {
	__u64 id;
	char *path;		/* below the cgroup2 mount; NULL if gone */
	__u32 sockets;		/* TCP sockets, LISTEN excluded */
	__u32 established;
	__u32 throttled;	/* TSQ_THROTTLED set now */
	__u64 queued;		/* sum of sk_wmem_alloc - 1 */
	__u32 queued_max;
	__u32 queued_p99;	/* over the cgroup's sockets */
	__u64 unsent;		/* write_seq - snd_nxt */
	__u64 wmem_queued;
	__u64 pacing;		/* sum of the rates TCP set, bytes/s */
	/* Since the previous snapshot: */
	__u64 done[TSQ_OBS_SLOTS], done_n, done_ns;
	__u64 qdisc[TSQ_OBS_SLOTS], qdisc_n, qdisc_ns;
};

struct tsq_obs_snap {
	struct tsq_obs_cgrp *v;		/* sorted by queued, largest first */
	size_t nr;
	size_t sockets;			/* records read */
	struct tsq_obs_sock *socks;	/* each socket, sorted by cgroup id */
	size_t nsocks;			/* 0 unless asked for */
	bool qdisc;			/* the qdisc part is measured */
	const char *completion;		/* the program that sees TX completion */
	double secs;			/* the delays' span: since the previous
					 * snapshot, or since loading */
	double time;			/* of the socket walk, Unix seconds */
	bool cumulative;		/* delays since loading */
	__u64 delay_map_full;		/* skbs not counted: no room, ever */
	size_t pruned;			/* delay entries of removed cgroups dropped */
	size_t unreadable;		/* cgroups the walk could not open or read:
					 * their subtrees unnamed, nothing pruned */
};

struct tsq_obs;

/* Load and attach; the qdisc tracepoint is optional. NULL and errno. */
struct tsq_obs *tsq_obs_open(void);
void tsq_obs_close(struct tsq_obs *o);

/*
 * Sockets of the caller's netns now, delays since the previous call
 * without TSQ_OBS_CUMULATIVE (or tsq_obs_open()), since tsq_obs_open()
 * with it (which leaves the previous call's base alone). Cgroups named
 * by a walk of mount: with TSQ_OBS_ALL, every cgroup; else those with
 * TCP sockets or delays. The delay entries of cgroups the walk does not
 * find are dropped, unless the walk could not read some (unreadable).
 * 0 or -errno.
 */
#define TSQ_OBS_ALL		(1U << 0)	/* every cgroup, zeros included */
#define TSQ_OBS_SOCKS		(1U << 1)	/* keep each socket's record */
#define TSQ_OBS_CUMULATIVE	(1U << 2)	/* delays since loading */
int tsq_obs_snapshot(struct tsq_obs *o, const char *mount, struct tsq_obs_snap *s,
		     unsigned int flags);
void tsq_obs_snap_free(struct tsq_obs_snap *s);

/* Percentile p (0-100) of a log2 histogram, as the slot's upper bound in ns. */
__u64 tsq_obs_hist_pct(const __u64 *hist, __u64 n, double p);

/* One JSON object through the print layer: {"interval_s":..,"sockets":..,
 * "cgroups":[...]}, and "socket_list":[...] if the snapshot kept them.
 */
void tsq_obs_print_json(const struct tsq_obs_snap *s);

/* A snapshot as tsqd serves it, cumulative: Prometheus text (histograms
 * for the delays), or JSON. 0 or -errno.
 */
int tsq_obs_serve(struct tsq_obs *o, const char *mount, FILE *f, bool json);

#endif /* __TSQ_OBSERVE_H */
