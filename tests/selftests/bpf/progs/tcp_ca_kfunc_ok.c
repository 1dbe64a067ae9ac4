// SPDX-License-Identifier: GPL-2.0
/* The kfuncs of tcp_tsq_ops_kfunc.c, called from a tcp_congestion_ops:
 * they load, so each refusal there comes from the tcp_tsq_ops filter.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tcp_tsq_kfuncs.h"

char _license[] SEC("license") = "GPL";

#define CA_CALLS(n, call)						\
SEC("struct_ops")							\
__u32 BPF_PROG(ssthresh_##n, struct sock *sk)			\
{									\
	struct tcp_sock *tp = (struct tcp_sock *)sk;			\
									\
	call;								\
	return tp->snd_ssthresh;					\
}									\
									\
SEC("struct_ops")							\
void BPF_PROG(cong_avoid_##n, struct sock *sk, __u32 ack, __u32 acked) \
{									\
}									\
									\
SEC("struct_ops")							\
__u32 BPF_PROG(undo_cwnd_##n, struct sock *sk)			\
{									\
	return tcp_sk(sk)->snd_cwnd;					\
}									\
									\
SEC(".struct_ops")							\
struct tcp_congestion_ops ca_##n = {					\
	.ssthresh	= (void *)ssthresh_##n,			\
	.cong_avoid	= (void *)cong_avoid_##n,			\
	.undo_cwnd	= (void *)undo_cwnd_##n,			\
	.name		= #n,					\
};

static inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

TCP_TSQ_KFUNCS(CA_CALLS)
