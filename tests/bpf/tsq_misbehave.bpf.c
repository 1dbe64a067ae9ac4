// SPDX-License-Identifier: GPL-2.0
/* tcp_tsq_ops instances that return nonsense, for the safety tests; a
 * pass-through one for link update tests; an empty one for the bench. The
 * kernel must clamp every value here without stalling a socket: the
 * verifier does not bound what a struct_ops program returns.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

__u64 calls;

SEC("struct_ops")
__u32 BPF_PROG(zero_limit, struct sock *sk, __u32 limit)
{
	__sync_fetch_and_add(&calls, 1);
	return 0;
}

SEC("struct_ops")
__u32 BPF_PROG(zero_segs, struct sock *sk, __u32 mss_now, __u32 segs)
{
	__sync_fetch_and_add(&calls, 1);
	return 0;
}

SEC("struct_ops")
__u32 BPF_PROG(max_limit, struct sock *sk, __u32 limit)
{
	__sync_fetch_and_add(&calls, 1);
	return ~0U;
}

SEC("struct_ops")
__u32 BPF_PROG(max_segs, struct sock *sk, __u32 mss_now, __u32 segs)
{
	__sync_fetch_and_add(&calls, 1);
	return ~0U;
}

/* Flip between the two extremes on every call. */
SEC("struct_ops")
__u32 BPF_PROG(alt_limit, struct sock *sk, __u32 limit)
{
	return __sync_fetch_and_add(&calls, 1) & 1 ? ~0U : 0;
}

SEC("struct_ops")
__u32 BPF_PROG(alt_segs, struct sock *sk, __u32 mss_now, __u32 segs)
{
	return __sync_fetch_and_add(&calls, 1) & 1 ? 0 : ~0U;
}

SEC("struct_ops")
__u32 BPF_PROG(pass_limit, struct sock *sk, __u32 limit)
{
	__sync_fetch_and_add(&calls, 1);
	return limit;
}

SEC("struct_ops")
__u32 BPF_PROG(pass_segs, struct sock *sk, __u32 mss_now, __u32 segs)
{
	__sync_fetch_and_add(&calls, 1);
	return segs;
}

SEC(".struct_ops.link")
struct tcp_tsq_ops ret_zero = {
	.tsq_limit	= (void *)zero_limit,
	.tso_segs	= (void *)zero_segs,
};

SEC(".struct_ops.link")
struct tcp_tsq_ops ret_max = {
	.tsq_limit	= (void *)max_limit,
	.tso_segs	= (void *)max_segs,
};

SEC(".struct_ops.link")
struct tcp_tsq_ops ret_alt = {
	.tsq_limit	= (void *)alt_limit,
	.tso_segs	= (void *)alt_segs,
};

SEC(".struct_ops.link")
struct tcp_tsq_ops passthru = {
	.tsq_limit	= (void *)pass_limit,
	.tso_segs	= (void *)pass_segs,
};

/* Only one callback: the other stays with the kernel. */
SEC(".struct_ops.link")
struct tcp_tsq_ops limit_only = {
	.tsq_limit	= (void *)pass_limit,
};

/* Nothing but the return: the floor a policy's per-call cost is read against. */
SEC("struct_ops")
__u32 BPF_PROG(nop_limit, struct sock *sk, __u32 limit)
{
	return limit;
}

SEC("struct_ops")
__u32 BPF_PROG(nop_segs, struct sock *sk, __u32 mss_now, __u32 segs)
{
	return segs;
}

SEC(".struct_ops.link")
struct tcp_tsq_ops empty = {
	.tsq_limit	= (void *)nop_limit,
	.tso_segs	= (void *)nop_segs,
};
