// SPDX-License-Identifier: GPL-2.0
/* tsq_fixed: one TSQ limit and one TSO size cap for every TCP socket that
 * opted in to the hook (the tests opt every connection in with
 * tests/bpf/tsq_optin.bpf.c).
 *
 * The smallest useful tcp_tsq_ops policy, and the reference the per-cgroup
 * policy is measured against. Both values come from the tsq_fixed_cfg map
 * so they can change while flows run; 0 keeps what the kernel computed.
 * The TSO cap only ever lowers the autosized count: raising it would undo
 * the kernel's pacing-based sizing, which is not this program's job.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tsq_fixed.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tsq_fixed_cfg);
} tsq_fixed_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TSQ_FIXED_NR_STATS);
	__type(key, __u32);
	__type(value, __u64);
} tsq_fixed_stats SEC(".maps");

static __always_inline void count(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&tsq_fixed_stats, &idx);

	if (v)
		(*v)++;
}

static __always_inline const struct tsq_fixed_cfg *cfg(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&tsq_fixed_cfg, &zero);
}

SEC("struct_ops")
__u32 BPF_PROG(fixed_tsq_limit, struct sock *sk, __u32 limit)
{
	const struct tsq_fixed_cfg *c = cfg();

	count(TSQ_FIXED_LIMIT_CALLS);
	return c && c->limit ? c->limit : limit;
}

SEC("struct_ops")
__u32 BPF_PROG(fixed_tso_segs, struct sock *sk, __u32 mss_now, __u32 segs)
{
	const struct tsq_fixed_cfg *c = cfg();
	__u32 cap;

	count(TSQ_FIXED_TSO_CALLS);
	if (!c || !c->tso_bytes || !mss_now)
		return segs;
	cap = c->tso_bytes / mss_now;
	return cap < segs ? cap : segs;
}

SEC(".struct_ops.link")
struct tcp_tsq_ops tsq_fixed = {
	.tsq_limit	= (void *)fixed_tsq_limit,
	.tso_segs	= (void *)fixed_tso_segs,
};
