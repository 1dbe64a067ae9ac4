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
/* With limit_us: the lower of the pacing and the delivery rate ("rate
 * delivered"), not the pacing rate alone. A modifier, not a policy.
 */
#define TSQ_POLICY_RATE_DELIVERED (1U << 4)

/* Entries of each per-cgroup hash map (tsq_stats by policy cgroup,
 * tsq_cgrp_socks by the cgroup sockets were made in), and so the most
 * entries tsq.conf takes: past it, a cgroup's statistics would be dropped
 * silently.
 */
#define TSQ_MAX_CGROUPS		65536

/* tsq_map_full map, one per-CPU entry: inserts the per-cgroup maps
 * refused (full at TSQ_MAX_CGROUPS, or out of memory), by map. Without
 * its tsq_stats or tsq_cgrp_socks entry a cgroup's statistics are
 * missing; its policy and budget hold (the kernel keeps them in its
 * sockets). User space reports these (tsqctl stats, /metrics).
 */
struct tsq_map_full {
	__u64 stats;
	__u64 socks;
};

/* tsq_sync_scope map, key: the tgid (as the init pid namespace numbers
 * it) of a process running policy_sync: the cgroups whose subtrees its
 * runs visit. A policy comes from a socket's own cgroup or an ancestor,
 * so a change at X can only matter to the sockets of X's subtree; the
 * others are skipped before their cgroup chain is walked. A process with
 * no entry syncs every socket: a full sync, and what older tsqctl and
 * tsqd do. Each process sees its own entry only, so syncs running at
 * once cannot hide each other's changes.
 */
#define TSQ_SYNC_SCOPES		16	/* cgroups a run; more: a full sync */
#define TSQ_SYNC_RUNS		256	/* processes syncing at once; more: full syncs */
#define TSQ_SCOPE_LEVEL_UNKNOWN	(-1)	/* user space's; policy_sync fills it in */
#define TSQ_SCOPE_LEVEL_GONE	(-2)	/* no such cgroup (now): every socket */

struct tsq_sync_scope {
	__u64 start;		/* the process's start time, /proc/PID/stat's */
	__u32 nr;		/* cgroups in cgid[] */
	__u32 pad;
	__u64 cgid[TSQ_SYNC_SCOPES];
	__s32 level[TSQ_SYNC_SCOPES];	/* in the hierarchy, root 0 */
};

/* tsq_sync_count map, one per-CPU entry: the sockets policy_sync gave
 * their policy again, and those it skipped as out of its run's scope.
 */
struct tsq_sync_count {
	__u64 synced;
	__u64 skipped;
};

struct tsq_policy {
	__u32 flags;		/* TSQ_POLICY_* */
	__u32 limit;
	__u32 limit_us;
	__u32 tso;
	__u32 budget;
};

/* tsq_eff map (an LRU hash), key: the id of a cgroup sockets were made
 * in: the policy that cgroup follows (its own or its nearest ancestor's),
 * as the policy program last resolved it, and so the connection hook's
 * one lookup. An entry counts only while its gen is tsq_gen's: user
 * space bumps that after every change of the policy map (tsq_bump_gen()),
 * which makes every entry stale at once, and the next socket of each
 * cgroup resolves again. A miss, a stale entry or a full map is a walk
 * up the cgroup chain, never a wrong policy. Entries are made by the
 * BPF side alone; LRU keeps the map at TSQ_EFF_CGROUPS however many
 * cgroups anyone makes.
 */
#define TSQ_EFF_CGROUPS		16384

struct tsq_eff {
	__u64 gen;		/* tsq_gen's value before it was resolved */
	__u64 cgid;		/* the cgroup whose policy applies, 0: none */
	struct tsq_policy pol;
	__u32 pad;
};

/* Per-CPU statistics per policy cgroup (tsq_stats map, key: cgroup id of the
 * cgroup whose policy applies), from the kernel's tcp_tsq_throttle
 * tracepoint. Sum over CPUs.
 */
struct tsq_stats {
	__u64 throttles;	/* by a socket's own limit */
	__u64 limit_bytes;	/* sum of the limits in force then ... */
	__u64 limit_samples;	/* ... over this many: mean = ratio */
	__u64 group_throttles;	/* by the group's budget */
};

/* What the policy_queued iterator writes, one record a socket under a
 * policy in the reader's netns.
 */
struct tsq_queued_rec {
	__u64 cgid;		/* the policy's cgroup */
	__s64 group_queued;	/* its TSQ group's bytes in queues, all netns */
	__u32 wmem;		/* the socket's bytes in queues (truesize) */
	__u32 budget;		/* the group's, 0: no group */
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
