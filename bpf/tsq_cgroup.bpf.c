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
 *             original TSQ did), and limit-us at the same time's worth
 *             of the pacing rate (as sk_pacing_shift does), 2 MSS at least;
 *   budget    the bytes all of the cgroup's sockets hold in queues
 *             together. Not split: a socket may hold what the others leave
 *             (hold() keeps the sum, tsq_cgrp_state), and its TSO packets
 *             are half of that room, so bytes an idle or slow socket does
 *             not use go to the sockets that can send.
 * The kernel bounds whatever is returned (the limit not below stock's,
 * up to two skbs; [1, gso_max_segs] segments).
 *
 * The kernel calls the two callbacks only for sockets that opted in
 * (BPF_SOCK_OPS_TSQ_CB_FLAG); other sockets never run a program.
 * policy_opt_in, a sock_ops program at the cgroup2 root, opts a socket in
 * when it is established (connect or accept) if its cgroup or an ancestor
 * has a policy: once per connection, on the one path both ends share,
 * with nothing per packet. The alternatives were a check in every
 * sendmsg() or a sock_ops program per policy cgroup to keep attached.
 * After a policy change, policy_sync walks the established sockets and
 * opts them in or out, so running connections follow the change.
 *
 * Tracepoints keep the books: inet_sock_set_state counts established
 * sockets per cgroup and takes a closing one's bytes off its budget,
 * tcp_destroy_sock takes off any that a skipped state change left
 * counted, cgroup_rmdir drops a removed cgroup's entries and makes its
 * sockets resolve again, to stock TSQ since their cgroup is gone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tsq.h"

char _license[] SEC("license") = "GPL";

#define SOL_TCP 6	/* a macro, so not in vmlinux.h */
#define EEXIST 17	/* errno.h's */

/* An skb's truesize beyond its payload, for a packet not built yet: the
 * head kmalloc()'d for MAX_TCP_HEADER, the fclone sk_buffs and
 * skb_shared_info (x86_64, 6.12).
 */
#define TSQ_SKB_OVERHEAD 1280

struct cgroup *bpf_cgroup_from_id(u64 cgid) __ksym;
struct cgroup *bpf_cgroup_ancestor(struct cgroup *cgrp, int level) __ksym;
void bpf_cgroup_release(struct cgroup *cgrp) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_CGRP_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tsq_policy);
} tsq_cgrp_policy SEC(".maps");

/* Mappable, so that user space and cgroup_rmdir can both bump the
 * generation atomically without losing one another's increment.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tsq_ctl);
} tsq_ctl SEC(".maps");

/* Keyed by the id of the cgroup whose policy applies; policy_rmdir
 * deletes a removed cgroup's entries here and in the two maps below.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, TSQ_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct tsq_stats);
} tsq_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TSQ_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct tsq_cgrp_state);
} tsq_cgrp_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TSQ_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct tsq_cgrp_socks);
} tsq_cgrp_socks SEC(".maps");

/* Inserts the three maps above refused: see struct tsq_map_full. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tsq_map_full);
} tsq_map_full SEC(".maps");

struct tsq_sk {
	__u64 gen;		/* tsq_ctl generation + 1; 0: unresolved */
	__u64 cgid;		/* cgroup whose policy applies, 0: none */
	__u64 win;		/* window of the last hold(), 0: none */
	__u64 own;		/* cgroup counted in tsq_cgrp_socks, 0: none */
	__u32 held;		/* bytes counted in cgid's queued[win & 1] */
	__u32 next;		/* truesize of the next TSO packet, estimate */
	struct tsq_policy pol;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tsq_sk);
} tsq_sk SEC(".maps");

/* The cgroup the socket was created in; the tracepoints cannot call
 * bpf_sk_cgroup_id(), and a read is all it does.
 */
static __u64 sk_cgid(const struct sock *sk)
{
	return sk->sk_cgrp_data.cgroup->kn->id;
}

/* The entry of cgid in a hash map, made from zero if there is none; a
 * refused insert is counted in *full (-EEXIST is another CPU's insert).
 */
static __always_inline void *lookup_or_zero(void *map, __u64 cgid,
					    const void *zero, __u64 *full)
{
	void *v = bpf_map_lookup_elem(map, &cgid);
	long err;

	if (v)
		return v;
	err = bpf_map_update_elem(map, &cgid, zero, BPF_NOEXIST);
	if (err && err != -EEXIST && full)
		(*full)++;	/* per CPU */
	return bpf_map_lookup_elem(map, &cgid);
}

static struct tsq_map_full *map_full(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&tsq_map_full, &zero);
}

static struct tsq_cgrp_state *cgrp_state(__u64 cgid)
{
	struct tsq_cgrp_state zero = {};
	struct tsq_map_full *f = map_full();

	return lookup_or_zero(&tsq_cgrp_state, cgid, &zero, f ? &f->state : NULL);
}

/* Take the socket's bytes out of its cgroup's sum: it closes, or follows
 * another policy now.
 */
static void release(struct tsq_sk *s)
{
	struct tsq_cgrp_state *st;
	__u64 win = s->win;

	s->win = 0;
	if (!win)
		return;
	st = bpf_map_lookup_elem(&tsq_cgrp_state, &s->cgid);
	if (st && st->win[win & 1] == win) {
		__sync_fetch_and_add(&st->queued[win & 1], -(__s64)s->held);
		__sync_fetch_and_add(&st->active[win & 1], -1);
	}
	s->held = 0;
}

static void resolve(const struct sock *sk, struct tsq_sk *s)
{
	struct cgroup *cg;
	int level, i;

	release(s);
	s->cgid = 0;
	s->pol.flags = 0;
	cg = bpf_cgroup_from_id(sk_cgid(sk));
	if (!cg)
		return;
	/* Every level up to the root: a fixed bound would be a depth below
	 * which a delegated subtree escapes its policy.
	 */
	level = cg->level;
	bpf_for(i, 0, level + 1) {
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

/* The socket's policy in s, resolved again when user space changed any.
 * Returns whether one applies.
 */
static bool refresh(const struct sock *sk, struct tsq_sk *s)
{
	struct tsq_ctl *ctl;
	__u32 zero = 0;
	__u64 gen;

	ctl = bpf_map_lookup_elem(&tsq_ctl, &zero);
	if (!ctl)
		return false;
	/* Once: a bump during resolve() must leave s behind, to resolve
	 * again at the next call, not be recorded as seen.
	 */
	gen = *(volatile __u64 *)&ctl->gen;
	if (s->gen != gen + 1) {
		resolve(sk, s);
		s->gen = gen + 1;
	}
	return s->cgid;
}

static void sk_established(const struct sock *sk);

/* The socket's cached resolution, refreshed; NULL if no policy applies. */
static struct tsq_sk *sk_resolved(struct sock *sk)
{
	struct tsq_sk *s;

	s = bpf_sk_storage_get(&tsq_sk, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s)
		return NULL;
	/* An ESTABLISHED that policy_sk_state missed as a nested run: the
	 * socket is counted at its first transmit instead.
	 */
	if (!s->own && sk->__sk_common.skc_state == TCP_ESTABLISHED)
		sk_established(sk);
	return refresh(sk, s) ? s : NULL;
}

static struct tsq_stats *stats(__u64 cgid)
{
	struct tsq_stats zero = {};
	struct tsq_map_full *f = map_full();

	return lookup_or_zero(&tsq_stats, cgid, &zero, f ? &f->stats : NULL);
}

/* Bytes in qdisc and device queues (sk_wmem_alloc less its own 1). */
static __u32 sk_queued(const struct sock *sk)
{
	__s32 w = sk->sk_wmem_alloc.refs.counter;

	return w > 1 ? w - 1 : 0;
}

/* Record that the socket holds @bytes now; return what the cgroup's
 * sockets hold together, the socket's @bytes included.
 *
 * The sum has two slots, the current window's and the previous one's
 * (2^TSQ_WINDOW_SHIFT ns each). A socket's bytes move to the current
 * slot at its first call in a window; a slot is cleared when it is reused,
 * so a socket that has not called for a whole window, an idle one, drops
 * out of the sum instead of holding budget it does not use.
 */
static __s64 hold(struct tsq_sk *s, __u32 bytes)
{
	__u64 win = bpf_ktime_get_ns() >> TSQ_WINDOW_SHIFT;
	__u32 slot = win & 1;
	struct tsq_cgrp_state *st;
	__s64 sum;
	__u64 old;

	/* No entry (the map full): this socket alone, counted in tsq_map_full. */
	st = cgrp_state(s->cgid);
	if (!st)
		return bytes;
	/* The first socket in a new window recycles the slot; the swap lets
	 * only one CPU clear it. An add that another CPU makes between the
	 * swap and the clear is lost until that socket's next window.
	 */
	old = st->win[slot];
	if (old != win && __sync_val_compare_and_swap(&st->win[slot], old, win) == old) {
		st->active[slot] = 0;
		st->queued[slot] = 0;
	}
	if (s->win == win) {
		__sync_fetch_and_add(&st->queued[slot], (__s64)bytes - s->held);
	} else {
		if (s->win + 1 == win && st->win[slot ^ 1] == s->win) {
			__sync_fetch_and_add(&st->queued[slot ^ 1], -(__s64)s->held);
			__sync_fetch_and_add(&st->active[slot ^ 1], -1);
		}
		__sync_fetch_and_add(&st->queued[slot], bytes);
		__sync_fetch_and_add(&st->active[slot], 1);
		s->win = win;
	}
	s->held = bytes;
	sum = st->queued[slot];
	if (st->win[slot ^ 1] == win - 1)
		sum += st->queued[slot ^ 1];
	return sum > bytes ? sum : bytes;
}

/* The bytes the other sockets of the cgroup leave to this one, for its
 * queue and its next packet, counting that next packet as held already.
 * May be negative: the budget is overcommitted by the sockets' floors.
 */
static __s64 budget_room(struct sock *sk, struct tsq_sk *s)
{
	__u32 mine = sk_queued(sk) + s->next;

	return (__s64)s->pol.budget - (hold(s, mine) - mine);
}

/* The byte limit a policy's limit and limit-us give, or @dflt without them. */
static __always_inline __u32 policy_limit(struct sock *sk, struct tsq_sk *s, __u32 dflt)
{
	__u32 flags = s->pol.flags;

	if (flags & TSQ_POLICY_LIMIT_US) {
		__u64 t = sk->sk_pacing_rate * s->pol.limit_us / 1000000;
		__u32 out = t > 0xffffffffULL ? 0xffffffffU : t;

		if ((flags & TSQ_POLICY_LIMIT) && s->pol.limit < out)
			out = s->pol.limit;
		return out;
	}
	return flags & TSQ_POLICY_LIMIT ? s->pol.limit : dflt;
}

SEC("struct_ops")
__u32 BPF_PROG(policy_tsq_limit, struct sock *sk, __u32 limit)
{
	struct tsq_sk *s = sk_resolved(sk);
	struct tsq_stats *st;
	__u32 flags, out;

	if (!s)
		return limit;
	flags = s->pol.flags;
	out = policy_limit(sk, s, limit);
	if (!(flags & TSQ_POLICY_BUDGET)) {
		hold(s, sk_queued(sk));	/* for tsqctl stats only */
	} else {
		/* Room for the queue and the next packet: sending is allowed
		 * while queue + next <= room, i.e. sk_wmem_alloc <= room -
		 * next. Below zero, 0: the kernel's floor (two skbs, or one
		 * in the retransmit queue) still lets the socket send.
		 */
		__s64 room = budget_room(sk, s) - s->next;

		if (room < out)
			out = room > 0 ? room : 0;
	}
	st = stats(s->cgid);
	if (st) {
		st->limit_calls++;
		st->limit_bytes += out;
		st->limit_samples++;
	}
	return out;
}

/* TSO bytes for a budget: at TCP_TSQ_TSO_XMIT half of the room the other
 * sockets and the socket's own queue leave (two packets, as TSQ keeps),
 * two MSS at least: with one-MSS packets 8 cubic flows moved 67-87
 * Mbit/s against stock's 93 in the VM, where TX completions are slow
 * (A/B run, 2026-12-04). sendmsg()'s
 * size goal gets half of the whole budget: the skbs it builds are what
 * later transmits can at most send in one packet, and a split at
 * transmit is cheap where a merge is impossible.
 */
static __u32 budget_tso(struct sock *sk, struct tsq_sk *s, __u32 mss,
			enum tcp_tsq_tso_site site)
{
	__s64 room;
	__u32 bytes;

	if (site != TCP_TSQ_TSO_XMIT)
		return s->pol.budget / 2;
	room = budget_room(sk, s) - sk_queued(sk);
	bytes = room > 4 * (__s64)mss ? room / 2 : 2 * mss;
	if (bytes > s->pol.budget / 2)
		bytes = s->pol.budget / 2;
	/* The packet's truesize, for hold(): payload and an skb's head. */
	s->next = bytes / mss * mss + TSQ_SKB_OVERHEAD;
	return bytes;
}

/* The same answer for both call sites: at TCP_TSQ_TSO_SIZE_GOAL segs is
 * what sendmsg() would put in one skb, and the policy's cap applies there
 * just as it does to the autosized count of TCP_TSQ_TSO_XMIT.
 */
SEC("struct_ops")
__u32 BPF_PROG(policy_tso_segs, struct sock *sk, __u32 mss_now, __u32 segs,
	       enum tcp_tsq_tso_site site)
{
	struct tsq_sk *s = sk_resolved(sk);
	struct tsq_stats *st;
	__u32 flags, bytes = 0;

	if (!s || !mss_now)
		return segs;
	flags = s->pol.flags;
	if (flags & TSQ_POLICY_TSO) {
		bytes = s->pol.tso;
	} else if (flags & TSQ_POLICY_LIMIT_US) {
		/* The same time's worth, as sk_pacing_shift sizes both in
		 * the kernel, and two segments at least, as tcp_min_tso_segs
		 * does. Half of it, with one-MSS packets on slow flows, let
		 * bbr's rate, and with it the limit, spiral down (10 Mbit/s
		 * of 100 in the VM).
		 */
		bytes = policy_limit(sk, s, 0);
		if (bytes < 2 * mss_now)
			bytes = 2 * mss_now;
	} else if (flags & TSQ_POLICY_LIMIT) {
		bytes = s->pol.limit / 2;
	}
	if (flags & TSQ_POLICY_BUDGET) {
		__u32 cap = budget_tso(sk, s, mss_now, site);

		if (!bytes || cap < bytes)
			bytes = cap;
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

static void socks_add(__u64 cgid, __s64 n)
{
	struct tsq_cgrp_socks *c, zero = {};
	struct tsq_map_full *f = n > 0 ? map_full() : NULL;

	/* A close never makes an entry: its cgroup may be gone. */
	c = n > 0 ? lookup_or_zero(&tsq_cgrp_socks, cgid, &zero, f ? &f->socks : NULL) :
		    bpf_map_lookup_elem(&tsq_cgrp_socks, &cgid);
	if (c)
		__sync_fetch_and_add(&c->established, n);
}

static void sk_established(const struct sock *sk)
{
	struct tsq_sk *s;

	s = bpf_sk_storage_get(&tsq_sk, (struct sock *)sk, 0,
			       BPF_SK_STORAGE_GET_F_CREATE);
	if (!s || s->own)
		return;
	s->own = sk_cgid(sk);
	socks_add(s->own, 1);
}

static void sk_closing(const struct sock *sk)
{
	struct tsq_sk *s = bpf_sk_storage_get(&tsq_sk, (struct sock *)sk, 0, 0);

	if (!s)
		return;
	release(s);
	if (!s->own)
		return;
	socks_add(s->own, -1);
	s->own = 0;
}

/* Established TCP sockets per cgroup. */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(policy_sk_state, const struct sock *sk, int oldstate, int newstate)
{
	if (sk->sk_protocol != IPPROTO_TCP)
		return 0;
	/* Any other state ends the count, not only a move out of
	 * ESTABLISHED: a tracing program is skipped when it would recurse on
	 * a CPU (a softirq's transition during a process context one), and
	 * the socket's next transition must still take it off.
	 */
	if (newstate == TCP_ESTABLISHED)
		sk_established(sk);
	else
		sk_closing(sk);
	return 0;
}

/* The backstop of policy_sk_state: a socket still counted when it is
 * destroyed had its every move out of ESTABLISHED skipped as a nested
 * run (seen in the VM: recursion_misses 1, one socket left counted).
 * This is another program, so the same nesting does not skip both. A
 * skipped ESTABLISHED is made up for in sk_resolved().
 */
SEC("tp_btf/tcp_destroy_sock")
int BPF_PROG(policy_sk_destroy, struct sock *sk)
{
	sk_closing(sk);
	return 0;
}

/* A removed cgroup takes its entries along. Its policy died with its
 * cgroup storage; bumping the generation makes the sockets that followed
 * it resolve again, and find nothing: stock TSQ.
 */
SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(policy_rmdir, struct cgroup *cgrp, const char *path)
{
	__u64 id = cgrp->kn->id;
	struct tsq_ctl *ctl;
	__u32 zero = 0;
	bool had;

	bpf_map_delete_elem(&tsq_cgrp_socks, &id);
	had = !bpf_map_delete_elem(&tsq_stats, &id);
	had |= !bpf_map_delete_elem(&tsq_cgrp_state, &id);
	ctl = bpf_map_lookup_elem(&tsq_ctl, &zero);
	if (had && ctl)
		__sync_fetch_and_add(&ctl->gen, 1);
	return 0;
}

struct optin_walk {
	struct cgroup *cg;
	bool found;
};

static long optin_step(__u64 i, struct optin_walk *w)
{
	struct tsq_policy *p;

	if (!w->cg)
		return 1;
	p = bpf_cgrp_storage_get(&tsq_cgrp_policy, w->cg, 0, 0);
	if (p && (p->flags & TSQ_POLICY_ALL)) {
		w->found = true;
		return 1;
	}
	w->cg = w->cg->self.parent ? w->cg->self.parent->cgroup : NULL;
	return 0;
}

/* Whether the socket's cgroup or any ancestor has a policy; bpf_loop()
 * walks up however deep the tree is.
 */
static bool wants_hook(struct tcp_sock *tp)
{
	struct optin_walk w = {};

	w.cg = tp->inet_conn.icsk_inet.sk.sk_cgrp_data.cgroup;
	if (!w.cg)
		return false;
	bpf_loop(w.cg->level + 1, optin_step, &w, 0);
	return w.found;
}

/* New connections: opted in when established, if their cgroup has a
 * policy then.
 */
SEC("sockops")
int policy_opt_in(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk;
	struct tcp_sock *tp;

	if (skops->op != BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB &&
	    skops->op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB)
		return 1;
	sk = skops->sk;
	if (!sk)
		return 1;
	tp = bpf_skc_to_tcp_sock(sk);
	if (tp && wants_hook(tp))
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
					  BPF_SOCK_OPS_TSQ_CB_FLAG);
	return 1;
}

/* Existing connections, after a policy change: user space runs this
 * iterator (tsq_bump_gen()), which opts in the sockets that gained a
 * policy and out those that lost theirs, in the caller's netns.
 */
SEC("iter/tcp")
int policy_sync(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct tcp_sock *tp;
	int flags, want;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp || tp->inet_conn.icsk_inet.sk.__sk_common.skc_state != TCP_ESTABLISHED)
		return 0;
	if (bpf_getsockopt(tp, SOL_TCP, TCP_BPF_SOCK_OPS_CB_FLAGS, &flags, sizeof(flags)))
		return 0;
	want = wants_hook(tp) ? flags | BPF_SOCK_OPS_TSQ_CB_FLAG :
				flags & ~BPF_SOCK_OPS_TSQ_CB_FLAG;
	if (want != flags)
		bpf_setsockopt(tp, SOL_TCP, TCP_BPF_SOCK_OPS_CB_FLAGS, &want, sizeof(want));
	return 0;
}

SEC(".struct_ops.link")
struct tcp_tsq_ops tsq_policy = {
	.tsq_limit	= (void *)policy_tsq_limit,
	.tso_segs	= (void *)policy_tso_segs,
};
