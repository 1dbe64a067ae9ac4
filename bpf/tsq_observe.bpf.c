// SPDX-License-Identifier: GPL-2.0
/* tsq_observe: what TCP keeps in the host's queues, per cgroup, on any
 * kernel with BTF (5.15 and later), with or without the tsq series.
 *
 * Nothing here changes what TCP does; it answers "which cgroups hold
 * bytes in qdiscs and device rings, and how long do those bytes wait?".
 *
 *   observe_tcp   iter/tcp: one struct tsq_obs_sock a full TCP socket of
 *                 the reader's netns (as ss(8) lists them): sk_wmem_alloc
 *                 minus its base of 1 (what TSQ limits: truesize of the
 *                 skbs between TCP and their TX completion), the unsent
 *                 bytes, TSQ_THROTTLED. User space sums by cgroup, so
 *                 max and p99 over sockets need no state in the kernel.
 *   observe_done  fentry/tcp_wfree: an skb's TX completion (or its orphan,
 *                 e.g. by veth's peer or virtio-net without napi_tx).
 *                 skb_mstamp_ns is when TCP sent it (its departure time,
 *                 on the same clock as bpf_ktime_get_ns()), so the
 *                 difference is the send-side delay: qdisc, driver ring,
 *                 the wait for completion.
 *   observe_free, observe_drop, observe_rx
 *                 the same from tracepoints, where the kernel refuses
 *                 fentry (some hardened hosts do): skb:consume_skb and
 *                 skb:kfree_skb of an skb whose destructor is still
 *                 tcp_wfree (the free that is about to call it), and
 *                 net:netif_receive_skb of one (veth hands the skb to its
 *                 peer, whose IP receive orphans it). The loader loads
 *                 these or observe_done, never both.
 *   observe_xmit  tp_btf/net_dev_start_xmit: the same difference at the
 *                 driver's start_xmit, the qdisc's part of it. A stacked
 *                 device (a bridge in front of a NIC) counts twice.
 *
 * Delays go to per-CPU log2 histograms keyed by the socket's cgroup id
 * (sk_cgrp_data: the cgroup the socket was created in). A departure time
 * in the future (EDT pacing) or a stamp that is not TCP's is skipped.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tsq.h"

char _license[] SEC("license") = "GPL";

#define TCP_STATE_ESTABLISHED	1
#define TCP_STATE_TIME_WAIT	6
#define TCP_STATE_LISTEN	10
#define TCP_STATE_NEW_SYN_RECV	12
#define PROTO_TCP		6
#define MAX_DELAY_NS		(10ULL * 1000000000ULL)	/* beyond: not TCP's clock */
#define EEXIST			17	/* errno.h, which BPF programs lack */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct tsq_obs_delay);
} tsq_obs_delay SEC(".maps");

static const struct tsq_obs_delay zero;

/* Skbs whose cgroup had no entry and got none: the map was full (user
 * space drops removed cgroups' entries) or out of memory. Read through
 * the skeleton's .bss.
 */
__u64 delay_map_full;

/* Its address, from kallsyms: what skb->destructor holds until TCP's
 * skb is completed.
 */
extern const void tcp_wfree __ksym;

static __always_inline __u32 log2_slot(__u64 v)
{
	__u32 r = 0;

	/* Branch-free steps the verifier follows easily. */
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r < TSQ_OBS_SLOTS ? r : TSQ_OBS_SLOTS - 1;
}

static __always_inline struct tsq_obs_delay *delay_of(__u64 cgid)
{
	struct tsq_obs_delay *d = bpf_map_lookup_elem(&tsq_obs_delay, &cgid);
	long err;

	if (d)
		return d;
	err = bpf_map_update_elem(&tsq_obs_delay, &cgid, &zero, BPF_NOEXIST);
	/* -EEXIST: another CPU made it meanwhile. */
	if (err && err != -EEXIST)
		__sync_fetch_and_add(&delay_map_full, 1);
	return bpf_map_lookup_elem(&tsq_obs_delay, &cgid);
}

/* The delay since TCP stamped the skb, or 0 to skip it. */
static __always_inline __u64 since_stamp(const struct sk_buff *skb)
{
	__u64 stamp = skb->skb_mstamp_ns, now = bpf_ktime_get_ns();

	if (!stamp || stamp > now || now - stamp > MAX_DELAY_NS)
		return 0;
	return now - stamp;
}

/* The cgroup id of a full TCP socket, 0 for anything else. */
static __always_inline __u64 tcp_cgid(const struct sock *sk)
{
	__u8 state;

	if (!sk)
		return 0;
	state = sk->__sk_common.skc_state;
	if (state == TCP_STATE_TIME_WAIT || state == TCP_STATE_NEW_SYN_RECV ||
	    sk->sk_protocol != PROTO_TCP)
		return 0;
	return BPF_CORE_READ(sk, sk_cgrp_data.cgroup, kn, id);
}

static __always_inline void completed(const struct sk_buff *skb)
{
	struct tsq_obs_delay *d;
	__u64 delay, cgid;

	cgid = tcp_cgid(skb->sk);
	delay = cgid ? since_stamp(skb) : 0;
	if (!delay)
		return;
	d = delay_of(cgid);
	if (!d)
		return;
	d->done[log2_slot(delay)]++;
	d->done_ns += delay;
}

SEC("fentry/tcp_wfree")
int BPF_PROG(observe_done, struct sk_buff *skb)
{
	completed(skb);
	return 0;
}

static __always_inline void completed_if_tcp(const struct sk_buff *skb)
{
	if ((unsigned long)skb->destructor == (unsigned long)&tcp_wfree)
		completed(skb);
}

/* Each tracepoint's first argument is the skb; the rest are not needed. */
#define COMPLETION_TP(prog, tp)					\
SEC("tp_btf/" tp)						\
int BPF_PROG(prog, struct sk_buff *skb)				\
{								\
	completed_if_tcp(skb);					\
	return 0;						\
}

COMPLETION_TP(observe_free, "consume_skb")
COMPLETION_TP(observe_drop, "kfree_skb")
COMPLETION_TP(observe_rx, "netif_receive_skb")

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(observe_xmit, const struct sk_buff *skb, const struct net_device *dev)
{
	struct tsq_obs_delay *d;
	__u64 delay, cgid;

	cgid = tcp_cgid(skb->sk);
	delay = cgid ? since_stamp(skb) : 0;
	if (!delay)
		return 0;
	d = delay_of(cgid);
	if (!d)
		return 0;
	d->qdisc[log2_slot(delay)]++;
	d->qdisc_ns += delay;
	return 0;
}

SEC("iter/tcp")
int observe_tcp(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct tsq_obs_sock rec = {};
	unsigned long tsq_flags;
	__u32 throttled_bit = 0;
	struct tcp_sock *tp;
	struct sock *sk;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;	/* TIME_WAIT, NEW_SYN_RECV */
	sk = (struct sock *)tp;
	if (sk->__sk_common.skc_state == TCP_STATE_LISTEN)
		return 0;
	rec.cgid = BPF_CORE_READ(sk, sk_cgrp_data.cgroup, kn, id);
	rec.wmem_alloc = sk->sk_wmem_alloc.refs.counter - 1;
	rec.wmem_queued = sk->sk_wmem_queued;
	rec.sndbuf = sk->sk_sndbuf;
	rec.unsent = tp->write_seq - tp->snd_nxt;
	rec.inflight = tp->snd_nxt - tp->snd_una;
	rec.sport = sk->__sk_common.skc_num;
	rec.dport = bpf_ntohs(sk->__sk_common.skc_dport);
	rec.state = sk->__sk_common.skc_state;
	/* unsigned long in every kernel so far; u32 would be CO-RE'd too. */
	rec.pacing_rate = sk->sk_pacing_rate;
	tsq_flags = sk->sk_tsq_flags;
	/* Bit 0 since TSQ began (3.6); BTF says so where it has the enum. */
	if (bpf_core_enum_value_exists(enum tsq_enum, TSQ_THROTTLED))
		throttled_bit = bpf_core_enum_value(enum tsq_enum, TSQ_THROTTLED);
	if (tsq_flags & (1UL << (throttled_bit & 63)))
		rec.flags |= TSQ_OBS_THROTTLED;
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}
