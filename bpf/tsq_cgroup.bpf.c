// SPDX-License-Identifier: GPL-2.0
/* tsq_cgroup: TCP Small Queues policy per cgroup.
 *
 * User space (tsqd, tsqctl) stores a struct tsq_policy in cgroup storage
 * for the cgroups that have one. A socket follows the policy of the
 * nearest cgroup, from the one it was created in up to the root, that has
 * one; none means stock TSQ. Storage lives and dies with its cgroup, so a
 * removed cgroup cannot leave a stale policy behind.
 *
 * Walking the tree per packet would be wasteful: each socket caches its
 * resolution in sk storage with the generation of tsq_ctl it saw. User
 * space bumps the generation after every change, so existing sockets pick
 * the change up at their next transmit.
 *
 * What a policy decides, per socket:
 *   limit     TSQ byte limit;
 *   limit-us  pacing rate x usec, bounded by limit if both are set;
 *   tso       cap on TSO packet payload; without it, a limit caps TSO
 *             packets at half the limit (two packets in flight, as the
 *             original TSQ did);
 *   budget    the cgroup's bytes in queues, split evenly among its
 *             sockets active in the last window (tsq_cgrp_state), and
 *             TSO packets sized to half a share.
 * The kernel clamps whatever is returned (two skbs minimum for the limit,
 * [1, gso_max_segs] segments).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tsq.h"

char _license[] SEC("license") = "GPL";

struct cgroup *bpf_cgroup_from_id(u64 cgid) __ksym;
struct cgroup *bpf_cgroup_ancestor(struct cgroup *cgrp, int level) __ksym;
void bpf_cgroup_release(struct cgroup *cgrp) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_CGRP_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tsq_policy);
} tsq_cgrp_policy SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tsq_ctl);
} tsq_ctl SEC(".maps");

/* Keyed by the id of the cgroup whose policy applies. tsqd deletes the
 * entries of removed cgroups.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct tsq_stats);
} tsq_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct tsq_cgrp_state);
} tsq_cgrp_state SEC(".maps");

struct tsq_sk {
	__u64 gen;		/* tsq_ctl generation + 1; 0: unresolved */
	__u64 cgid;		/* cgroup whose policy applies, 0: none */
	__u64 win;		/* last window counted in tsq_cgrp_state */
	struct tsq_policy pol;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tsq_sk);
} tsq_sk SEC(".maps");

static void resolve(struct sock *sk, struct tsq_sk *s)
{
	struct cgroup *cg;
	int level;

	s->cgid = 0;
	s->pol.flags = 0;
	cg = bpf_cgroup_from_id(bpf_sk_cgroup_id(sk));
	if (!cg)
		return;
	level = cg->level;
	for (int i = 0; i < TSQ_MAX_DEPTH && level - i >= 0; i++) {
		struct cgroup *anc = bpf_cgroup_ancestor(cg, level - i);
		struct tsq_policy *p;

		if (!anc)
			break;
		p = bpf_cgrp_storage_get(&tsq_cgrp_policy, anc, 0, 0);
		if (p && (p->flags & TSQ_POLICY_ALL)) {
			s->pol = *p;
			s->cgid = anc->kn->id;
			bpf_cgroup_release(anc);
			break;
		}
		bpf_cgroup_release(anc);
	}
	bpf_cgroup_release(cg);
}

/* The socket's policy, resolved again when user space changed any. */
static struct tsq_sk *sk_policy(struct sock *sk)
{
	struct tsq_ctl *ctl;
	struct tsq_sk *s;
	__u32 zero = 0;

	ctl = bpf_map_lookup_elem(&tsq_ctl, &zero);
	s = bpf_sk_storage_get(&tsq_sk, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!ctl || !s)
		return NULL;
	if (s->gen != ctl->gen + 1) {
		resolve(sk, s);
		s->gen = ctl->gen + 1;
	}
	return s->cgid ? s : NULL;
}

static struct tsq_stats *stats(__u64 cgid)
{
	struct tsq_stats *st, zero = {};

	st = bpf_map_lookup_elem(&tsq_stats, &cgid);
	if (st)
		return st;
	bpf_map_update_elem(&tsq_stats, &cgid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&tsq_stats, &cgid);
}

/* Count the socket once per window; return the cgroup's active sockets. */
static __u32 account(struct sock *sk, struct tsq_sk *s)
{
	__u64 win = bpf_ktime_get_ns() >> TSQ_WINDOW_SHIFT;
	struct tsq_cgrp_state *st, zero = {};
	__u32 slot = win & 1, cur, prev;
	__u64 old;

	st = bpf_map_lookup_elem(&tsq_cgrp_state, &s->cgid);
	if (!st) {
		bpf_map_update_elem(&tsq_cgrp_state, &s->cgid, &zero, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&tsq_cgrp_state, &s->cgid);
		if (!st)
			return 1;
	}
	/* The first socket in a new window recycles the slot; the swap lets
	 * only one CPU reset it, so counts of the new window are not zeroed
	 * by a CPU that saw the old one late.
	 */
	old = st->win[slot];
	if (old != win && __sync_val_compare_and_swap(&st->win[slot], old, win) == old) {
		st->active[slot] = 0;
		st->queued[slot] = 0;
	}
	if (s->win != win) {
		s->win = win;
		__sync_fetch_and_add(&st->active[slot], 1);
		__sync_fetch_and_add(&st->queued[slot], sk->sk_wmem_alloc.refs.counter);
	}
	cur = st->active[slot];
	prev = st->win[slot ^ 1] == win - 1 ? st->active[slot ^ 1] : 0;
	cur = cur > prev ? cur : prev;
	return cur ? cur : 1;
}

static __u32 budget_share(struct sock *sk, struct tsq_sk *s)
{
	return s->pol.budget / account(sk, s);
}

SEC("struct_ops")
__u32 BPF_PROG(policy_tsq_limit, struct sock *sk, __u32 limit)
{
	struct tsq_sk *s = sk_policy(sk);
	struct tsq_stats *st;
	__u32 flags, out;

	if (!s)
		return limit;
	flags = s->pol.flags;
	out = limit;
	if (flags & TSQ_POLICY_LIMIT_US) {
		__u64 t = sk->sk_pacing_rate * s->pol.limit_us / 1000000;

		out = t > 0xffffffffULL ? 0xffffffffU : t;
		if ((flags & TSQ_POLICY_LIMIT) && s->pol.limit < out)
			out = s->pol.limit;
	} else if (flags & TSQ_POLICY_LIMIT) {
		out = s->pol.limit;
	}
	if (flags & TSQ_POLICY_BUDGET) {
		__u32 share = budget_share(sk, s);

		if (share < out)
			out = share;
	} else {
		account(sk, s);
	}

	st = stats(s->cgid);
	if (st) {
		st->limit_calls++;
		st->limit_bytes += out;
		st->limit_samples++;
	}
	return out;
}

SEC("struct_ops")
__u32 BPF_PROG(policy_tso_segs, struct sock *sk, __u32 mss_now, __u32 segs)
{
	struct tsq_sk *s = sk_policy(sk);
	struct tsq_stats *st;
	__u32 flags, bytes = 0;

	if (!s || !mss_now)
		return segs;
	flags = s->pol.flags;
	if (flags & TSQ_POLICY_TSO)
		bytes = s->pol.tso;
	else if (flags & TSQ_POLICY_LIMIT)
		bytes = s->pol.limit / 2;
	if (flags & TSQ_POLICY_BUDGET) {
		__u32 half = budget_share(sk, s) / 2;

		if (!bytes || half < bytes)
			bytes = half;
	}

	st = stats(s->cgid);
	if (st)
		st->tso_calls++;
	if (!bytes)
		return segs;
	/* Only ever smaller than the kernel's pacing-based size. */
	return bytes / mss_now < segs ? bytes / mss_now : segs;
}

/* Throttles per policy cgroup, from the kernel's tracepoint. */
SEC("tp_btf/tcp_tsq_throttle")
int BPF_PROG(policy_throttle, struct sock *sk, unsigned long limit, bool bpf)
{
	struct tsq_sk *s = bpf_sk_storage_get(&tsq_sk, sk, 0, 0);
	struct tsq_stats *st;

	if (!s || !s->cgid)
		return 0;
	st = stats(s->cgid);
	if (st)
		st->throttles++;
	return 0;
}

SEC(".struct_ops.link")
struct tcp_tsq_ops tsq_policy = {
	.tsq_limit	= (void *)policy_tsq_limit,
	.tso_segs	= (void *)policy_tso_segs,
};
