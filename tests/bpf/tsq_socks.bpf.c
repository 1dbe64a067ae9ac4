// SPDX-License-Identifier: GPL-2.0
/* tsq_socks: one line per established TCP socket of the reader's netns
 * with the TSQ policy the kernel keeps for it, for the VM tests
 * (bpftool iter pin, then cat):
 *
 *   sport dport wmem flags limit limit_us tso group_queued budget charged cgid
 *
 * wmem is sk_wmem_alloc less its own 1: the bytes in qdisc and device
 * queues; group_queued and budget are the socket's TSQ group's, or 0;
 * cgid is the id of the cgroup the socket was created in.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char _license[] SEC("license") = "GPL";

SEC("iter/tcp")
int tsq_socks(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	__u32 flags = 0, limit = 0, limit_us = 0, tso = 0, charged = 0;
	struct tcp_tsq_group *g = NULL;
	struct tcp_sock *tp;
	struct tcp_tsq *q;
	long queued = 0;
	__u32 budget = 0;

	if (!skc || skc->skc_state != TCP_ESTABLISHED)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	/* Allocated while the socket has a policy, NULL otherwise. */
	q = tp->tsq;
	if (q) {
		flags = q->flags;
		limit = q->limit;
		limit_us = q->limit_us;
		tso = q->tso;
		charged = q->charged;
		g = q->group;
	}
	if (g) {
		queued = g->queued.counter;
		budget = g->budget;
	}
	BPF_SEQ_PRINTF(ctx->meta->seq, "%u %u %d %u %u %u %u %ld %u %u %llu\n",
		       skc->skc_num, bpf_ntohs(skc->skc_dport),
		       tp->inet_conn.icsk_inet.sk.sk_wmem_alloc.refs.counter - 1,
		       flags, limit, limit_us, tso, queued, budget, charged,
		       tp->inet_conn.icsk_inet.sk.sk_cgrp_data.cgroup->kn->id);
	return 0;
}
