// SPDX-License-Identifier: GPL-2.0
/* Tries to write the socket: the verifier must refuse to load it. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

SEC("struct_ops")
void BPF_PROG(write_established, struct sock *sk)
{
	sk->sk_pacing_rate = 0;
}

SEC(".struct_ops.link")
struct tcp_tsq_ops writer = {
	.established	= (void *)write_established,
};
