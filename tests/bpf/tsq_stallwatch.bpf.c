// SPDX-License-Identifier: GPL-2.0
/* tsq_stallwatch: one line per established TCP socket to a port in
 * [port_lo, port_hi], for tests/vm/stallwatch.c to sample. What a stall
 * is made of: data the application gave and TCP has not sent, and how
 * long ago, in jiffies, TCP last sent new data. The last line ("T"), with
 * jiffies and ns, lets user space learn HZ: libbpf reads CONFIG_HZ from
 * /boot or /proc/config.gz, which the test VM has neither of.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char _license[] SEC("license") = "GPL";

const volatile __u16 port_lo = 5201;
const volatile __u16 port_hi = 5201;

SEC("iter/tcp")
int stall_scan(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct tcp_sock *tp;
	struct sock *sk;
	__u32 age;
	__u16 dport;

	if (!skc) {
		BPF_SEQ_PRINTF(ctx->meta->seq, "T %llu %llu\n", bpf_jiffies64(),
			       bpf_ktime_get_ns());
		return 0;
	}
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	sk = (struct sock *)tp;
	dport = bpf_ntohs(skc->skc_dport);
	if (dport < port_lo || dport > port_hi || skc->skc_state != TCP_ESTABLISHED)
		return 0;
	age = (__u32)bpf_jiffies64() - tp->lsndtime;
	BPF_SEQ_PRINTF(ctx->meta->seq, "%u %u %u %u %u %u %u %u %lu %d %u\n",
		       skc->skc_num, dport, tp->write_seq - tp->snd_nxt,
		       tp->snd_nxt - tp->snd_una, tp->snd_wnd, tp->snd_cwnd,
		       tp->packets_out, age,
		       sk->sk_tsq_flags, sk->sk_wmem_alloc.refs.counter, tp->mss_cache);
	return 0;
}
