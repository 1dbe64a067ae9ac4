// SPDX-License-Identifier: GPL-2.0
/* tcp_tsq_ops programs that call kfuncs which write TCP state: each one
 * must be refused at load. The test loads one struct_ops map at a time.
 * tcp_ca_kfunc_ok.c calls the same kfuncs from tcp_congestion_ops, where
 * they load: the refusal is the filter's, not a missing kfunc.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tcp_tsq_kfuncs.h"

char _license[] SEC("license") = "GPL";

#define TSQ_CALLS(n, call)						\
SEC("struct_ops")							\
__u32 BPF_PROG(limit_##n, struct sock *sk, __u32 limit)		\
{									\
	struct tcp_sock *tp = (struct tcp_sock *)sk;			\
									\
	call;								\
	return limit;							\
}									\
									\
SEC(".struct_ops.link")							\
struct tcp_tsq_ops tsq_##n = {						\
	.tsq_limit	= (void *)limit_##n,				\
};

TCP_TSQ_KFUNCS(TSQ_CALLS)
