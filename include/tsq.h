/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* ABI shared by the tsq BPF programs and user space. */
#ifndef __TSQ_H
#define __TSQ_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* Per-cgroup policy (tsqd, tsqctl). A field counts only with its flag. */
#define TSQ_POLICY_LIMIT	(1U << 0)	/* limit: bytes per socket */
#define TSQ_POLICY_LIMIT_US	(1U << 1)	/* limit_us: pacing rate x usec */
#define TSQ_POLICY_TSO		(1U << 2)	/* tso: bytes per TSO packet */
#define TSQ_POLICY_BUDGET	(1U << 3)	/* budget: bytes, whole cgroup */
#define TSQ_POLICY_ALL		(TSQ_POLICY_LIMIT | TSQ_POLICY_LIMIT_US | \
				 TSQ_POLICY_TSO | TSQ_POLICY_BUDGET)

/* Entries of each per-cgroup hash map (tsq_stats, tsq_cgrp_state by
 * policy cgroup, tsq_cgrp_socks by the cgroup sockets were made in), and
 * so the most entries tsq.conf takes: past it, a cgroup's statistics and
 * budget accounting would be dropped silently.
 */
#define TSQ_MAX_CGROUPS		65536

/* tsq_map_full map, one per-CPU entry: inserts the per-cgroup maps
 * refused (full at TSQ_MAX_CGROUPS, or out of memory), by map. A cgroup
 * without its tsq_cgrp_state entry has no shared budget: each socket
 * holds it alone; without tsq_stats or tsq_cgrp_socks, its statistics
 * are missing. User space reports these (tsqctl stats, /metrics).
 */
struct tsq_map_full {
	__u64 stats;
	__u64 state;
	__u64 socks;
};

struct tsq_policy {
	__u32 flags;		/* TSQ_POLICY_* */
	__u32 limit;
	__u32 limit_us;
	__u32 tso;
	__u32 budget;
};

/* tsq_ctl map, one entry: bumped by user space after each policy change so
 * that sockets drop their cached resolution (see bpf/tsq_cgroup.bpf.c).
 */
struct tsq_ctl {
	__u64 gen;
};

/* Per-CPU statistics per policy cgroup (tsq_stats map, key: cgroup id of the
 * cgroup whose policy applies). Sum over CPUs.
 */
struct tsq_stats {
	__u64 limit_calls;	/* tsq_limit() on the cgroup's sockets */
	__u64 tso_calls;	/* tso_segs() on the cgroup's sockets */
	__u64 throttles;	/* tcp_tsq_throttle events */
	__u64 limit_bytes;	/* sum of the limits returned ... */
	__u64 limit_samples;	/* ... over this many calls: mean = ratio */
};

/* Bytes in queues per policy cgroup (tsq_cgrp_state map, key: cgroup id),
 * written by BPF only. Time is cut in windows of 2^TSQ_WINDOW_SHIFT ns;
 * slot win & 1 holds, for the sockets whose last call fell in window win,
 * their count and the bytes each held then (sk_wmem_alloc, plus its next
 * packet when it is under a budget). The sum of the current and the
 * previous window's slots is the cgroup's bytes in queues: a budget caps
 * it. queued[] takes signed adds; read it as __s64.
 */
#define TSQ_WINDOW_SHIFT	26	/* 67 ms: a socket held back by TSQ
				 * under load can wait tens of ms for
				 * its next transmit, and must still
				 * count as active */
struct tsq_cgrp_state {
	__u64 win[2];
	__u64 queued[2];
	__u32 active[2];
};

/* tsq_cgrp_socks map, key: the cgroup id a socket was created in (not the
 * policy's): its TCP sockets in state ESTABLISHED, as ss(8) counts them.
 * User space sums a policy cgroup's subtree.
 */
struct tsq_cgrp_socks {
	__s64 established;
};

/* tsq_observe (any kernel with BTF, hook or not): see bpf/tsq_observe.bpf.c.
 * Delays are log2 histograms of nanoseconds: slot i counts the skbs that
 * waited [2^i, 2^(i+1)) ns, slot 0 also those under 1 ns, the last slot
 * those above.
 */
#define TSQ_OBS_SLOTS		32

/* tsq_obs_delay map, key: cgroup id of the socket's cgroup. Per CPU. */
struct tsq_obs_delay {
	__u64 done[TSQ_OBS_SLOTS];	/* TCP transmit to TX completion */
	__u64 done_ns;			/* sum of those delays */
	__u64 qdisc[TSQ_OBS_SLOTS];	/* TCP transmit to the driver */
	__u64 qdisc_ns;
};

#define TSQ_OBS_THROTTLED	(1U << 0)	/* TSQ_THROTTLED set */

/* One record a full TCP socket, written by the iter/tcp program. */
struct tsq_obs_sock {
	__u64 cgid;		/* cgroup the socket was created in */
	__u64 pacing_rate;	/* bytes/s; ~0 when TCP set none */
	__u32 wmem_alloc;	/* bytes in qdisc and device queues (truesize) */
	__u32 wmem_queued;	/* write and retransmit queues (truesize) */
	__u32 unsent;		/* write_seq - snd_nxt */
	__u32 inflight;		/* snd_nxt - snd_una */
	__u32 sndbuf;
	__u16 sport;		/* host order */
	__u16 dport;
	__u8 state;		/* TCP_ESTABLISHED, ... */
	__u8 flags;		/* TSQ_OBS_* */
	__u16 pad;
	__u32 pad2;
};

#endif /* __TSQ_H */
