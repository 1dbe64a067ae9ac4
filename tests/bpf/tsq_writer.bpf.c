// SPDX-License-Identifier: GPL-2.0
/* Tries to write the socket: the verifier must refuse to load it. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

SEC("struct_ops")
__u32 BPF_PROG(write_limit, struct sock *sk, __u32 limit)
{
	sk->sk_pacing_rate = 0;
	return limit;
}

SEC(".struct_ops.link")
struct tcp_tsq_ops writer = {
	.tsq_limit	= (void *)write_limit,
};
