/* SPDX-License-Identifier: GPL-2.0 */
/* The kfuncs of bpf_tcp_ca and the congestion controls built in, each
 * called once; X(name, call) with tp and sk in scope. Those taking an ack
 * or rate sample (cubictcp_acked(), bbr_main()) are left out: there is no
 * sample to pass them in a tcp_tsq_ops program.
 */
#ifndef __TCP_TSQ_KFUNCS_H
#define __TCP_TSQ_KFUNCS_H

extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked) __ksym;
extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;
extern void cubictcp_init(struct sock *sk) __ksym;
extern __u32 cubictcp_recalc_ssthresh(struct sock *sk) __ksym;
extern void cubictcp_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern void cubictcp_state(struct sock *sk, __u8 new_state) __ksym;
extern void cubictcp_cwnd_event(struct sock *sk, enum tcp_ca_event event) __ksym;
extern void bbr_init(struct sock *sk) __ksym;
extern __u32 bbr_sndbuf_expand(struct sock *sk) __ksym;
extern __u32 bbr_undo_cwnd(struct sock *sk) __ksym;
extern void bbr_cwnd_event(struct sock *sk, enum tcp_ca_event event) __ksym;
extern __u32 bbr_ssthresh(struct sock *sk) __ksym;
extern __u32 bbr_min_tso_segs(struct sock *sk) __ksym;
extern void bbr_set_state(struct sock *sk, __u8 new_state) __ksym;
extern void dctcp_init(struct sock *sk) __ksym;
extern void dctcp_update_alpha(struct sock *sk, __u32 flags) __ksym;
extern void dctcp_cwnd_event(struct sock *sk, enum tcp_ca_event ev) __ksym;
extern __u32 dctcp_ssthresh(struct sock *sk) __ksym;
extern __u32 dctcp_cwnd_undo(struct sock *sk) __ksym;
extern void dctcp_state(struct sock *sk, __u8 new_state) __ksym;

#define TCP_TSQ_KFUNCS(X)						\
	X(slow_start, tcp_slow_start(tp, 1000))				\
	X(cong_avoid_ai, tcp_cong_avoid_ai(tp, 1, 1000))		\
	X(reno_cong_avoid, tcp_reno_cong_avoid((struct sock *)tp, 0, 1000)) \
	X(reno_ssthresh, tcp_reno_ssthresh((struct sock *)tp))		\
	X(reno_undo_cwnd, tcp_reno_undo_cwnd((struct sock *)tp))	\
	X(cubic_init, cubictcp_init((struct sock *)tp))			\
	X(cubic_ssthresh, cubictcp_recalc_ssthresh((struct sock *)tp))	\
	X(cubic_cong, cubictcp_cong_avoid((struct sock *)tp, 0, 1000))	\
	X(cubic_state, cubictcp_state((struct sock *)tp, 4))		\
	X(cubic_event, cubictcp_cwnd_event((struct sock *)tp, CA_EVENT_TX_START)) \
	X(bbr_init, bbr_init((struct sock *)tp))			\
	X(bbr_sndbuf, bbr_sndbuf_expand((struct sock *)tp))		\
	X(bbr_undo, bbr_undo_cwnd((struct sock *)tp))			\
	X(bbr_event, bbr_cwnd_event((struct sock *)tp, CA_EVENT_TX_START)) \
	X(bbr_ssthresh, bbr_ssthresh((struct sock *)tp))		\
	X(bbr_tso, bbr_min_tso_segs((struct sock *)tp))			\
	X(bbr_state, bbr_set_state((struct sock *)tp, 4))		\
	X(dctcp_init, dctcp_init((struct sock *)tp))			\
	X(dctcp_alpha, dctcp_update_alpha((struct sock *)tp, 0))	\
	X(dctcp_event, dctcp_cwnd_event((struct sock *)tp, CA_EVENT_TX_START)) \
	X(dctcp_ssthresh, dctcp_ssthresh((struct sock *)tp))		\
	X(dctcp_undo, dctcp_cwnd_undo((struct sock *)tp))		\
	X(dctcp_state, dctcp_state((struct sock *)tp, 4))

#endif /* __TCP_TSQ_KFUNCS_H */
