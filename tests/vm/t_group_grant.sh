#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# group_grant: a group's grants stay counted when something else takes
# them over. A TX completion reserves its waiting socket's skb (a grant);
# before the socket's TSQ work runs, a send without the TSQ test (a
# retransmit on timeout, a loss probe) or software GSO's growth of one of
# its queued skbs may use that reservation. If the socket's next skb then
# does not fit the grant and the group has no room, the grant goes back:
# only what is left of it may leave the group's count, else the count
# wraps below zero and the budget holds nothing for the group's life.
#
# 100 flows in one group of 64 KiB behind the 100 Mbit/s TBF, under
# fq_codel with a 1 ms target (its drops bring the retransmits and
# probes), in three rounds of 8 s; this VM's virtio NIC has no TSO, so
# GSO grows every skb after the qdisc. Each round:
# - the qdisc backlog stays within the budget and one skb per cpu;
# - the flows moved data;
# and after all of them, the group throttled (grants were made), no
# socket left bytes counted, and the kernel warned of no group freed
# with bytes counted (dmesg).
. "$(dirname "$0")/lib.sh"

cgr=/sys/fs/cgroup
ncpu=$(nproc)
tbf_on 100mbit
tc qdisc replace dev "$TSQ_DEV" parent 1:1 fq_codel target 1ms interval 10ms ||
	fail "fq_codel under the TBF"
iperf_server 5201
mkdir -p $cgr/bulk
socks_on
export QB_DPORT=5201

"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /bulk budget 64k || fail "tsqctl set /bulk budget 64k"
pktmax_begin
for r in 1 2 3; do
	CG=$cgr/bulk measure "grant$r" 8 100
done
pktmax_end
pkt=$PKTMAX
# bpftrace may not attach in time under TCG: then the largest skb the
# policy lets TCP build (skb_of), logged as such.
[ -n "$pkt" ] || { pkt=$(skb_of 65536); log "no bpftrace result ($(pktmax_said)): one skb taken as $pkt B"; }
bound=$((65536 + ncpu * pkt))
for r in 1 2 3; do
	log "round $r: qdisc peak $(peak "grant$r") B, $(wpeak "grant$r") B in queues at most," \
		"$(goodput "grant$r") Mbit/s; largest skb $pkt B, target $bound B"
	check "group_grant round $r: qdisc backlog <= 64 KiB + one skb per cpu" \
		'q > 0 && q <= b' q="$(peak "grant$r")" b="$bound"
	check "group_grant round $r: the flows moved data" 'g > 10' g="$(goodput "grant$r")"
done

stats_after group_grant /bulk
check "group_grant: group throttles counted (grants were made)" 't > 0' \
	t="$(cg_stat "$TMP/end.json" /bulk group_throttles)"

"$TSQCTL" reset
rmdir $cgr/bulk
check_dmesg group_grant
finish
