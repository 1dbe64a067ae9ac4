// SPDX-License-Identifier: GPL-2.0
/* tsq_cgroup: TCP Small Queues policy per cgroup.
 *
 * User space (tsqd, tsqctl) stores a struct tsq_policy in cgroup storage
 * for the cgroups that have one. A socket follows the policy of the
 * nearest cgroup, from the one it was created in up to the root, that has
 * one; none means stock TSQ. Storage lives and dies with its cgroup, so a
 * removed cgroup cannot leave a stale policy behind.
 *
 * The kernel keeps a socket's policy in the socket (bpf_tcp_tsq_set(),
 * bpf_tcp_tsq_update()): nothing here runs per packet. The policy is resolved once per
 * connection, when it is established (policy_established, the
 * tcp_tsq_ops callback), and again for the running connections after a
 * change (policy_sync, an iter/tcp program that user space runs). A
 * sync visits only the subtrees of the cgroups that changed, as its
 * process's tsq_sync_scope entry names them: a socket elsewhere is
 * skipped with a few reads, no walk of its chain.
 *
 * A connection costs one lookup: tsq_eff holds each cgroup's resolved
 * policy, keyed by the id the socket carries, and is made here, by the
 * first socket of a cgroup that misses it (a walk up the chain, as deep
 * as the cgroup is). It is not kept by user space or at mkdir: a copy
 * made there can race a change of an ancestor's policy and keep the old
 * one for good. Here an entry carries the generation (tsq_gen) read
 * before its walk, user space bumps the generation after it writes the
 * policy map, and so an entry resolved from a policy map older than the
 * last bump never matches. An LRU bounds the map: a tenant who makes
 * cgroups by the thousand costs others a walk, not a wrong policy, and
 * no memory past TSQ_EFF_CGROUPS entries. The hook makes no socket
 * storage: the statistics find a socket's policy cgroup the same way.
 *
 * What a policy sets, per socket:
 *   limit     TSQ byte limit;
 *   limit-us  that many usec at the socket's rate, bounded by limit if
 *             both are set; rate delivered: the lower of the pacing and
 *             the delivery rate;
 *   tso       cap on TSO packet payload; without it, a limit caps TSO
 *             packets at half the limit (two packets in flight, as the
 *             original TSQ did), a budget at a quarter of the budget,
 *             two MSS at least;
 *   budget    the bytes all of the cgroup's sockets hold in queues
 *             together: the kernel's TSQ group, whose id is the policy
 *             cgroup's. It counts the group's bytes and lets its sockets
 *             send in turn; no socket has a floor of its own.
 * The kernel bounds whatever is set (a limit not below stock's, up to
 * two skbs; at least one segment a packet).
 *
 * Tracepoints keep the books: inet_sock_set_state counts established
 * sockets per cgroup, tcp_destroy_sock is its backstop, tcp_tsq_throttle
 * counts throttles per policy cgroup, cgroup_rmdir drops a removed
 * cgroup's entries.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tsq.h"

char _license[] SEC("license") = "GPL";

#define ENOENT 2	/* errno.h's */
#define EEXIST 17

struct cgroup *bpf_cgroup_from_id(u64 cgid) __ksym;
struct cgroup *bpf_cgroup_ancestor(struct cgroup *cgrp, int level) __ksym;
void bpf_cgroup_release(struct cgroup *cgrp) __ksym;
/* Weak: the maps alone load on a kernel without the series too
 * (bench/scale_maps, the host tests).
 */
int bpf_tcp_tsq_set(struct sock_common *skc, const struct bpf_tcp_tsq *tsq,
		    __u32 tsq__sz) __ksym __weak;
int bpf_tcp_tsq_update(struct sock_common *skc, const struct bpf_tcp_tsq *tsq,
		       __u32 tsq__sz) __ksym __weak;

struct {
	__uint(type, BPF_MAP_TYPE_CGRP_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tsq_policy);
} tsq_cgrp_policy SEC(".maps");

/* Keyed by the id of the cgroup whose policy applies; policy_rmdir
 * deletes a removed cgroup's entries here and in tsq_cgrp_socks.
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
	__type(value, struct tsq_cgrp_socks);
} tsq_cgrp_socks SEC(".maps");

/* Inserts the two maps above refused: see struct tsq_map_full. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tsq_map_full);
} tsq_map_full SEC(".maps");

/* Each cgroup's resolved policy, and the generation that validates it:
 * include/tsq.h.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TSQ_EFF_CGROUPS);
	__type(key, __u64);
	__type(value, struct tsq_eff);
} tsq_eff SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} tsq_gen SEC(".maps");

/* The scope of each process's policy_sync runs: include/tsq.h. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TSQ_SYNC_RUNS);
	__type(key, __u32);
	__type(value, struct tsq_sync_scope);
} tsq_sync_scope SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tsq_sync_count);
} tsq_sync_count SEC(".maps");

/* Made when a socket is established, by the socket counter alone. */
struct tsq_sk {
	__u64 own;		/* cgroup counted in tsq_cgrp_socks, 0: none */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tsq_sk);
} tsq_sk SEC(".maps");

/* The cgroup the socket was created in; a read is all it takes. */
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

static struct tsq_stats *stats(__u64 cgid)
{
	struct tsq_stats zero = {};
	struct tsq_map_full *f = map_full();

	return lookup_or_zero(&tsq_stats, cgid, &zero, f ? &f->stats : NULL);
}

/* The policy of the nearest cgroup with one, from the socket's own up,
 * in *pol, and its cgroup id in *cgid, 0 for none. The slow path of
 * policy_of(). -ENOENT: the walk could not be made, and *cgid is 0 but
 * says nothing. bpf_cgroup_from_id() finds no cgroup that is gone, nor
 * one outside the cgroup namespace of the task it runs in, and in
 * softirq that is whichever task was interrupted: one in a container's
 * cgroup namespace sees little of the tree. Such a connection gets no
 * policy, as before the cache; the cache keeps only walks that were made.
 */
static int resolve(const struct sock *sk, struct tsq_policy *pol, __u64 *cgid)
{
	struct cgroup *cg;
	int level, i, err = 0;

	*cgid = 0;
	cg = bpf_cgroup_from_id(sk_cgid(sk));
	if (!cg)
		return -ENOENT;
	/* Every level up to the root: a fixed bound would be a depth below
	 * which a delegated subtree escapes its policy.
	 */
	level = cg->level;
	bpf_for(i, 0, level + 1) {
		struct cgroup *anc = bpf_cgroup_ancestor(cg, level - i);
		struct tsq_policy *p;

		if (!anc) {
			err = -ENOENT;
			break;
		}
		p = bpf_cgrp_storage_get(&tsq_cgrp_policy, anc, 0, 0);
		if (p && (p->flags & TSQ_POLICY_ALL)) {
			*pol = *p;
			*cgid = anc->kn->id;
			bpf_cgroup_release(anc);
			break;
		}
		bpf_cgroup_release(anc);
	}
	bpf_cgroup_release(cg);
	return err;
}

/* The socket's policy as resolve() finds it, from tsq_eff when its
 * cgroup's entry is of the current generation; else resolved, and the
 * entry made. The generation is read before the walk: a policy map
 * change that the walk may have missed is followed by a bump, and the
 * entry is stale from then on. The reads are ordered as written on
 * x86's TSO; elsewhere bpf_cgroup_from_id()'s lock orders them.
 */
static __u64 policy_of(const struct sock *sk, struct tsq_policy *pol)
{
	struct tsq_eff *e, v = {};
	__u64 id = sk_cgid(sk);
	__u32 zero = 0;
	__u64 *gen;

	gen = bpf_map_lookup_elem(&tsq_gen, &zero);
	if (!gen)
		return 0;
	v.gen = *(volatile __u64 *)gen;
	e = bpf_map_lookup_elem(&tsq_eff, &id);
	if (e && e->gen == v.gen) {
		*pol = e->pol;
		return e->cgid;
	}
	/* A walk that could not be made is not an answer to keep. A full
	 * map, or one busy on this CPU: the next socket walks again.
	 */
	if (!resolve(sk, &v.pol, &v.cgid))
		bpf_map_update_elem(&tsq_eff, &id, &v, BPF_ANY);
	*pol = v.pol;
	return v.cgid;
}

/* TSO payload per packet for a policy, 0: the kernel's own sizing. */
static __u32 policy_tso(const struct tsq_policy *p, __u32 mss)
{
	__u32 bytes = 0;

	if (p->flags & TSQ_POLICY_TSO)
		return p->tso;
	if (p->flags & TSQ_POLICY_LIMIT)
		bytes = p->limit / 2;
	/* A quarter: a few packets of the group in the queues at once, so
	 * that the next one is sent while the others drain.
	 */
	if ((p->flags & TSQ_POLICY_BUDGET) && (!bytes || p->budget / 4 < bytes))
		bytes = p->budget / 4;
	if (bytes && bytes < 2 * mss)
		bytes = 2 * mss;
	return bytes;
}

/* Give the socket the policy of its cgroup, or stock TSQ without one.
 * skc is the pointer the kfunc trusts, tp the same socket to read. A new
 * connection gets it with bpf_tcp_tsq_set(); a running one, whose policy
 * may have to become looser, with bpf_tcp_tsq_update(), which replaces
 * it and which the kernel allows to iterators run with CAP_NET_ADMIN.
 */
static int apply(struct sock_common *skc, struct tcp_sock *tp, bool running)
{
	struct sock *sk = &tp->inet_conn.icsk_inet.sk;
	struct bpf_tcp_tsq t = {};
	struct tsq_policy p = {};
	__u64 cgid;

	cgid = policy_of(sk, &p);
	if (cgid) {
		if (p.flags & TSQ_POLICY_LIMIT)
			t.limit = p.limit;
		if (p.flags & TSQ_POLICY_LIMIT_US) {
			t.limit_us = p.limit_us;
			if (p.flags & TSQ_POLICY_RATE_DELIVERED)
				t.flags |= BPF_TCP_TSQ_F_DELIVERY_RATE;
		}
		t.tso = policy_tso(&p, tp->mss_cache);
		if (p.flags & TSQ_POLICY_BUDGET) {
			t.budget = p.budget;
			t.group = cgid;
		}
	}
	if (running)
		return bpf_tcp_tsq_update(skc, &t, sizeof(t));
	/* Nothing to add to a new connection's stock TSQ. */
	if (!cgid)
		return 0;
	return bpf_tcp_tsq_set(skc, &t, sizeof(t));
}

SEC("struct_ops")
void BPF_PROG(policy_established, struct sock *sk)
{
	/* The kernel promotes sk to a tcp_sock for reads. */
	apply((struct sock_common *)sk, (struct tcp_sock *)sk, false);
}

/* The level of scope i's cgroup, found on its first use: user space
 * cannot tell it (a cgroup namespace hides the levels above its root).
 */
static int scope_level(struct tsq_sync_scope *sc, __u32 i)
{
	struct cgroup *cg;

	if (sc->level[i] != TSQ_SCOPE_LEVEL_UNKNOWN)
		return sc->level[i];
	cg = bpf_cgroup_from_id(sc->cgid[i]);
	sc->level[i] = cg ? cg->level : TSQ_SCOPE_LEVEL_GONE;
	if (cg)
		bpf_cgroup_release(cg);
	return sc->level[i];
}

/* Is the socket in the subtree of one of the scope's cgroups? One
 * ancestor a scope, at that cgroup's level: no walk of the chain.
 */
static bool in_scope(const struct sock *sk, struct tsq_sync_scope *sc)
{
	struct cgroup *cg, *anc;
	__u32 i, nr = sc->nr;
	bool in = false;
	int level;

	cg = bpf_cgroup_from_id(sk_cgid(sk));
	/* Its cgroup is removed: resolve() finds no policy, as before. */
	if (!cg)
		return true;
	bpf_for(i, 0, nr) {
		if (i >= TSQ_SYNC_SCOPES)
			break;
		level = scope_level(sc, i);
		/* A removed scope cgroup: its sockets cannot be told. */
		if (level < 0) {
			in = true;
			break;
		}
		if (level > cg->level)
			continue;
		anc = bpf_cgroup_ancestor(cg, level);
		if (!anc)
			continue;
		in = anc->kn->id == sc->cgid[i];
		bpf_cgroup_release(anc);
		if (in)
			break;
	}
	bpf_cgroup_release(cg);
	return in;
}

/* /proc/PID/stat's start time of the running process, in USER_HZ (100)
 * ticks, as user space wrote it in its scope entry.
 */
static __u64 current_start(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return t->group_leader->start_boottime / (1000000000 / 100);
}

/* Running connections, after a policy change: user space runs this
 * iterator (tsq_bump_gen()) in each netns it syncs, within the scope
 * its process set (tsq_scope_begin()), or over every socket.
 */
SEC("iter/tcp")
int policy_sync(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, zero = 0;
	struct tsq_sync_scope *sc;
	struct tsq_sync_count *n;
	struct tcp_sock *tp;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	switch (tp->inet_conn.icsk_inet.sk.__sk_common.skc_state) {
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
		break;
	default:
		return 0;
	}
	sc = bpf_map_lookup_elem(&tsq_sync_scope, &tgid);
	/* Another process's, left by one gone with the same pid: not ours. */
	if (sc && sc->start != current_start())
		sc = NULL;
	n = bpf_map_lookup_elem(&tsq_sync_count, &zero);
	if (sc && !in_scope(&tp->inet_conn.icsk_inet.sk, sc)) {
		if (n)
			n->skipped++;
		return 0;
	}
	if (n)
		n->synced++;
	/* The kfunc wants the trusted pointer, not the helper's. */
	apply(skc, tp, true);
	return 0;
}

/* Bytes in queues per policy, for tsqctl stats: a record per socket
 * under a policy in the reader's netns, with its group's count, which
 * covers every netns.
 */
SEC("iter/tcp")
int policy_queued(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct tsq_queued_rec rec = {};
	struct tcp_tsq_group *g;
	struct tsq_policy p;
	struct tcp_sock *tp;
	struct tcp_tsq *q;
	int wmem;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	q = tp ? tp->tsq : NULL;
	if (!q)
		return 0;
	rec.cgid = policy_of(&tp->inet_conn.icsk_inet.sk, &p);
	if (!rec.cgid)
		return 0;
	wmem = tp->inet_conn.icsk_inet.sk.sk_wmem_alloc.refs.counter;
	rec.wmem = wmem > 1 ? wmem - 1 : 0;
	g = q->group;
	if (g) {
		rec.group_queued = g->queued.counter;
		rec.budget = g->budget;
	}
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}

/* Throttles per policy cgroup, from the kernel's tracepoint: limit is
 * the limit in force, or the group's budget when group_queued is set.
 * The tracepoint fires for stock sockets too: those the kernel holds no
 * policy for are not counted.
 */
SEC("tp_btf/tcp_tsq_throttle")
int BPF_PROG(policy_throttle, struct sock *sk, unsigned long limit,
	     long group_queued)
{
	struct tcp_sock *tp = bpf_skc_to_tcp_sock(sk);
	struct tsq_policy p;
	struct tsq_stats *st;
	__u64 cgid;

	/* The kernel allocates a policy only for sockets it gave one. */
	if (!tp || !tp->tsq)
		return 0;
	cgid = policy_of(sk, &p);
	if (!cgid)
		return 0;
	st = stats(cgid);
	if (!st)
		return 0;
	if (group_queued) {
		st->group_throttles++;
	} else {
		st->throttles++;
		st->limit_bytes += limit;
		st->limit_samples++;
	}
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

	if (!s || !s->own)
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
 * This is another program, so the same nesting does not skip both.
 */
SEC("tp_btf/tcp_destroy_sock")
int BPF_PROG(policy_sk_destroy, struct sock *sk)
{
	sk_closing(sk);
	return 0;
}

/* A removed cgroup takes its entries along. Its policy died with its
 * cgroup storage; its sockets keep what was set until user space syncs.
 */
SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(policy_rmdir, struct cgroup *cgrp, const char *path)
{
	__u64 id = cgrp->kn->id;

	bpf_map_delete_elem(&tsq_cgrp_socks, &id);
	bpf_map_delete_elem(&tsq_stats, &id);
	bpf_map_delete_elem(&tsq_eff, &id);
	return 0;
}

SEC(".struct_ops.link")
struct tcp_tsq_ops tsq_policy = {
	.established	= (void *)policy_established,
};
