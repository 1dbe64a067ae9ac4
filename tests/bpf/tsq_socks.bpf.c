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
	struct tcp_tsq_group *g;
	struct tcp_sock *tp;
	long queued = 0;
	__u32 budget = 0;

	if (!skc || skc->skc_state != TCP_ESTABLISHED)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	g = tp->tsq.group;
	if (g) {
		queued = g->queued.counter;
		budget = g->budget;
	}
	BPF_SEQ_PRINTF(ctx->meta->seq, "%u %u %d %u %u %u %u %ld %u %u %llu\n",
		       skc->skc_num, bpf_ntohs(skc->skc_dport),
		       tp->inet_conn.icsk_inet.sk.sk_wmem_alloc.refs.counter - 1,
		       tp->tsq.flags, tp->tsq.limit, tp->tsq.limit_us, tp->tsq.tso,
		       queued, budget, tp->tsq.charged,
		       tp->inet_conn.icsk_inet.sk.sk_cgrp_data.cgroup->kn->id);
	return 0;
}
