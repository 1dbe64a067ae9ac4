// SPDX-License-Identifier: GPL-2.0
/* tsq_fixed: one TSQ policy, a limit, a TSO size and a budget, for every
 * TCP socket: set when a connection is established (tcp_tsq_ops) and by
 * fixed_sync, an iter/tcp program, for the running ones.
 *
 * The smallest useful tcp_tsq_ops policy, and the reference the per-cgroup
 * policy is measured against. The values come from the tsq_fixed_cfg map
 * so they can change while flows run (then fixed_sync again); 0 keeps
 * what the kernel computes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tsq_fixed.h"

char _license[] SEC("license") = "GPL";

int bpf_tcp_tsq_set(struct sock_common *skc, const struct bpf_tcp_tsq *tsq,
		    __u32 tsq__sz) __ksym;
int bpf_tcp_tsq_update(struct sock_common *skc, const struct bpf_tcp_tsq *tsq,
		       __u32 tsq__sz) __ksym;

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

/* A new connection's policy (bpf_tcp_tsq_set()), or a running one's
 * replaced (bpf_tcp_tsq_update()).
 */
static void apply(struct sock_common *skc, bool running)
{
	struct bpf_tcp_tsq t = {};
	struct tsq_fixed_cfg *c;
	__u32 zero = 0;
	int err;

	c = bpf_map_lookup_elem(&tsq_fixed_cfg, &zero);
	if (!c)
		return;
	t.limit = c->limit;
	t.tso = c->tso_bytes;
	if (c->budget) {
		t.budget = c->budget;
		t.group = TSQ_FIXED_GROUP;
	}
	if (running)
		err = bpf_tcp_tsq_update(skc, &t, sizeof(t));
	else
		err = bpf_tcp_tsq_set(skc, &t, sizeof(t));
	count(err ? TSQ_FIXED_SET_ERR : TSQ_FIXED_SET);
}

SEC("struct_ops")
void BPF_PROG(fixed_established, struct sock *sk)
{
	apply((struct sock_common *)sk, false);
}

SEC("iter/tcp")
int fixed_sync(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;

	if (skc && skc->skc_state == TCP_ESTABLISHED)
		apply(skc, true);
	return 0;
}

SEC(".struct_ops.link")
struct tcp_tsq_ops tsq_fixed = {
	.established	= (void *)fixed_established,
};
