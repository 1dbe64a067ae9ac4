// SPDX-License-Identifier: GPL-2.0
/* An identity tcp_tsq_ops, a sock_ops program that opts chosen sockets in,
 * and a tp_btf program that checks, throttle by throttle, that the kernel
 * used the limit the identity program returned.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

char _license[] SEC("license") = "GPL";

/* Set by the test: connections to this port are opted in (0: none). */
__u16 optin_port;

__u64 limit_calls, tso_calls, opted_in;
/* Throttles seen, those whose limit was the program's, the others. */
__u64 throttles, same, differ, not_bpf;
/* A few of the limits the program saw, for the log. */
__u64 last_limit;

/* What the last tsq_limit call on this CPU saw. Calls nest (process
 * context and softirq), so the socket is recorded too and a throttle
 * for another socket is not compared.
 */
struct seen {
	struct sock *sk;
	__u32 limit;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct seen);
} last_seen SEC(".maps");

SEC("struct_ops")
__u32 BPF_PROG(identity_limit, struct sock *sk, __u32 limit)
{
	__u32 zero = 0;
	struct seen *s = bpf_map_lookup_elem(&last_seen, &zero);

	if (s) {
		s->sk = sk;
		s->limit = limit;
	}
	last_limit = limit;
	__sync_fetch_and_add(&limit_calls, 1);
	return limit;
}

SEC("struct_ops")
__u32 BPF_PROG(identity_tso_segs, struct sock *sk, __u32 mss_now, __u32 segs,
	       enum tcp_tsq_tso_site site)
{
	__sync_fetch_and_add(&tso_calls, 1);
	return segs;
}

SEC("struct_ops")
__u32 BPF_PROG(other_limit, struct sock *sk, __u32 limit)
{
	return limit;
}

/* The limit at a throttle is the program's, doubled for a retransmit. */
SEC("tp_btf/tcp_tsq_throttle")
int BPF_PROG(check_throttle, struct sock *sk, unsigned long limit, bool bpf)
{
	__u32 zero = 0;
	struct seen *s = bpf_map_lookup_elem(&last_seen, &zero);

	if (!s || s->sk != sk)
		return 0;
	__sync_fetch_and_add(&throttles, 1);
	if (!bpf)
		__sync_fetch_and_add(&not_bpf, 1);
	if (limit == s->limit || limit == (__u64)s->limit << 1)
		__sync_fetch_and_add(&same, 1);
	else
		__sync_fetch_and_add(&differ, 1);
	s->sk = NULL;
	return 0;
}

SEC("sockops")
int optin(struct bpf_sock_ops *skops)
{
	if (skops->op != BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB)
		return 1;
	if (!optin_port || skops->remote_port != bpf_htonl(optin_port))
		return 1;
	if (!bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
				       BPF_SOCK_OPS_TSQ_CB_FLAG))
		__sync_fetch_and_add(&opted_in, 1);
	return 1;
}

SEC(".struct_ops.link")
struct tcp_tsq_ops identity = {
	.tsq_limit	= (void *)identity_limit,
	.tso_segs	= (void *)identity_tso_segs,
};

SEC(".struct_ops.link")
struct tcp_tsq_ops other = {
	.tsq_limit	= (void *)other_limit,
};
