#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# group_bound: one bound for a group, whatever qdisc the bottleneck runs
# and however many sockets share the budget (issue 35, item 4). The
# bound the kernel states (net/ipv4/tcp_tsq.c, "Groups"): the budget plus
# one skb per cpu, the skb the TSQ test let go on each cpu at once; what
# TCP sends without the test (retransmits on timeout, loss probes) and
# software GSO's growth come on top, after the qdisc.
#
# A 64 KiB group behind the 100 Mbit/s TBF, whose child is its own FIFO
# (bfifo, 8 MB), fq_codel (drops: retransmits and probes) or fq (flows
# in turn, each paced), with 1, 8, 100 and 1,000 sockets, 5 s each, one
# repetition. The 1,000 sockets are 8 iperf3 clients of 125 streams
# (iperf3 takes 128 at most), each to a server of its own. Each cell:
# - the root qdisc's backlog (wire bytes, sampled every 2 ms) stays
#   within 64 KiB and one skb per cpu, the skb as large as the largest
#   TCP handed to the device in the test (bpftrace);
# - the group's own count (tsqctl stats, skb truesize, sampled every
#   0.5 s) stays within 3 times that: GSO's growth after the qdisc,
#   some 2.6 times on these NICs without TSO (t_budget), is counted;
# - every socket connected, and the flows moved data;
# and over the test, the sampled count was above zero once; at the end
# no socket left bytes counted, and dmesg is clean.
# tsq-test: base-only the backport's group code is the base's; make check runs it on 7.x, within its 60 minutes (6.12: kernel/runs/6.12/group-bound.log)
. "$(dirname "$0")/lib.sh"

cgr=/sys/fs/cgroup
ncpu=$(nproc)
budget=65536
clients=8
for i in $(seq 0 $((clients - 1))); do
	iperf_server $((5201 + i))
done
mkdir -p $cgr/bulk

# group_count NAME PID: the group's own count, tsqctl stats' queued
# bytes of /bulk (-1 when it has no row yet), every 0.5 s until PID
# ends; a line each in $TMP/NAME.gq.
group_count() {
	while kill -0 "$2" 2>/dev/null; do
		"$TSQCTL" -j stats | cg_stat /dev/stdin /bulk queued_bytes
		sleep 0.5
	done >"$TMP/$1.gq"
}
# flows NAME SECONDS N: N flows from /bulk, as few iperf3 clients as
# iperf3's 128 streams allow, each to its own server; the root qdisc's
# backlog and the group's count sampled until all end. JSON in
# $TMP/NAME.I.json.
flows() {
	local name=$1 secs=$2 n=$3 c i k pid gpid
	c=$(( (n + 124) / 125 ))
	(
		for i in $(seq 0 $((c - 1))); do
			k=$(( n / c + (i < n % c ? 1 : 0) ))
			CG=$cgr/bulk flow "$name.$i" "$secs" "$k" -p $((5201 + i)) &
		done
		wait
	) &
	pid=$!
	group_count "$name" $pid &
	gpid=$!
	sample "$name" $pid
	wait $pid $gpid
}
# connected NAME: the streams iperf3 connected, in all of NAME's clients.
connected() { cat "$TMP/$1".*.json | jq -s '[.[].start.connected | length] | add // 0'; }
# mbits NAME: the bytes NAME's receivers counted together over the
# longest client's time, in Mbit/s (the clients start one after the
# other: their rates do not add up).
mbits() {
	cat "$TMP/$1".*.json | jq -s '([.[].end.sum_received.bytes // 0] | add) * 8 /
		([.[].end.sum_received.seconds // 0] | max) / 1e6'
}

"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /bulk budget 64k || fail "tsqctl set /bulk budget 64k"
cells=()
declare -A took
pktmax_begin
for q in fifo fq_codel fq; do
	tbf_on 100mbit
	[ $q = fifo ] || tc qdisc replace dev "$TSQ_DEV" parent 1:1 $q ||
		fail "$q under the TBF"
	for n in 1 8 100 1000; do
		t0=$(now_ms)
		flows "$q-$n" 5 $n
		cells+=("$q-$n")
		took[$q-$n]=$(( $(now_ms) - t0 ))
	done
	tc qdisc del dev "$TSQ_DEV" root
done
pktmax_end
pkt=$PKTMAX
# bpftrace may not attach in time under TCG: then the largest skb the
# policy lets TCP build (skb_of), logged as such.
[ -n "$pkt" ] || { pkt=$(skb_of $budget); log "no bpftrace result ($(pktmax_said)): one skb taken as $pkt B"; }
bound=$((budget + ncpu * pkt))
log "budget $budget B, $ncpu cpus, largest skb $pkt B: bound $bound B"
for c in "${cells[@]}"; do
	q=${c%-*} n=${c##*-}
	gmax=$(sort -n "$TMP/$c.gq" | tail -1)
	log "$q, $n sockets: qdisc peak $(peak "$c") B, mean $(mean "$c") B;" \
		"group count at most ${gmax:-none} B of $(wc -l <"$TMP/$c.gq") samples;" \
		"$(mbits "$c") Mbit/s (${took[$c]} ms)"
	check "$q, $n sockets: qdisc backlog <= 64 KiB + one skb per cpu" \
		'p > 0 && p <= b' p="$(peak "$c")" b="$bound"
	check "$q, $n sockets: the group's count <= 3 x (64 KiB + one skb per cpu)" \
		'g <= 3 * b' g="${gmax:-0}" b="$bound"
	check "$q, $n sockets: all connected, data moved" \
		'c == n && g > 10' c="$(connected "$c")" n="$n" g="$(mbits "$c")"
done
# The samples of a cell may all fall in its connects and closes (1,000
# sockets on a loaded host): the sampler must have seen the count once.
check "group_bound: the group's count sampled above zero" 'g > 0' \
	g="$(cat "$TMP"/*.gq | sort -n | tail -1)"

stats_after group_bound /bulk

"$TSQCTL" reset
rmdir $cgr/bulk
check_dmesg group_bound
finish
