// SPDX-License-Identifier: GPL-2.0
/* tcp_tsq_ops instances that set nonsense, for the safety tests; one that
 * sets nothing, for link update tests and the bench. The kernel must
 * bound every value here without stalling a socket: the verifier does not
 * bound what a program passes to bpf_tcp_tsq_set().
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

int bpf_tcp_tsq_set(struct sock_common *skc, const struct bpf_tcp_tsq *tsq,
		    __u32 tsq__sz) __ksym;

__u64 calls, refused;

static void set(struct sock *sk, __u32 limit, __u32 tso, __u32 budget)
{
	struct bpf_tcp_tsq t = {
		.limit = limit, .tso = tso, .budget = budget,
		.group = budget ? 0x6d6973 : 0,
	};

	__sync_fetch_and_add(&calls, 1);
	if (bpf_tcp_tsq_set((struct sock_common *)sk, &t, sizeof(t)))
		__sync_fetch_and_add(&refused, 1);
}

/* The least of everything: one byte of limit, TSO and budget. */
SEC("struct_ops")
void BPF_PROG(min_established, struct sock *sk)
{
	set(sk, 1, 1, 1);
}

/* The most. */
SEC("struct_ops")
void BPF_PROG(max_established, struct sock *sk)
{
	set(sk, ~0U, ~0U, ~0U);
}

/* Every other connection one or the other, in the same group. */
SEC("struct_ops")
void BPF_PROG(alt_established, struct sock *sk)
{
	if (__sync_fetch_and_add(&calls, 1) & 1)
		set(sk, ~0U, ~0U, 1);
	else
		set(sk, 1, 1, ~0U);
}

/* Arguments the kfunc must refuse, each counted in refused. */
SEC("struct_ops")
void BPF_PROG(bad_established, struct sock *sk)
{
	struct bpf_tcp_tsq t = {};
	struct {
		struct bpf_tcp_tsq t;
		__u64 more;
	} big = { .more = 1 };

	__sync_fetch_and_add(&calls, 1);
	t.flags = 0x80000000;	/* unknown */
	if (bpf_tcp_tsq_set((struct sock_common *)sk, &t, sizeof(t)))
		__sync_fetch_and_add(&refused, 1);
	t.flags = 0;
	t.budget = 4096;	/* without a group */
	if (bpf_tcp_tsq_set((struct sock_common *)sk, &t, sizeof(t)))
		__sync_fetch_and_add(&refused, 1);
	t.budget = 0;
	t.reserved = 1;
	if (bpf_tcp_tsq_set((struct sock_common *)sk, &t, sizeof(t)))
		__sync_fetch_and_add(&refused, 1);
	/* A field this kernel does not know, not zero. */
	if (bpf_tcp_tsq_set((struct sock_common *)sk, (void *)&big, sizeof(big)))
		__sync_fetch_and_add(&refused, 1);
}

SEC(".struct_ops.link")
struct tcp_tsq_ops set_min = {
	.established	= (void *)min_established,
};

SEC(".struct_ops.link")
struct tcp_tsq_ops set_max = {
	.established	= (void *)max_established,
};

SEC(".struct_ops.link")
struct tcp_tsq_ops set_alt = {
	.established	= (void *)alt_established,
};

SEC(".struct_ops.link")
struct tcp_tsq_ops set_bad = {
	.established	= (void *)bad_established,
};

/* Counts, sets nothing: the sockets keep stock TSQ. */
SEC("struct_ops")
void BPF_PROG(pass_established, struct sock *sk)
{
	__sync_fetch_and_add(&calls, 1);
}

SEC(".struct_ops.link")
struct tcp_tsq_ops passthru = {
	.established	= (void *)pass_established,
};
