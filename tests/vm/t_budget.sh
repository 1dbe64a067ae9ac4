#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# budget: 8 bulk flows in one cgroup share 32 KB of queue, so a latency
# probe in another cgroup behind the same 100 Mbit/s bottleneck waits
# behind ~32 KB (2.6 ms) instead of ~1 MB; and a socket may use what the
# others of its cgroup leave of the budget.
. "$(dirname "$0")/lib.sh"

tbf_on 100mbit
iperf_server 5201
iperf_server 5202
cgr=/sys/fs/cgroup
mkdir -p $cgr/bulk $cgr/lat

# ping p50 in ms over the flow's lifetime, from the latency cgroup.
probe() {
	(echo $BASHPID >$cgr/lat/cgroup.procs
	 exec ping -n -i 0.05 -w "$2" "$TSQ_PEER_IP") >"$TMP/$1.ping" &
}
p50() {
	sed -n 's/.*time=\([0-9.]*\) ms/\1/p' "$TMP/$1.ping" | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : -1 }'
}

# The ping's own floor in this run, no flow: what TCG and the host's
# load add to every probe below, stock's and budget's alike.
probe idle 4
wait
probe stock 8
CG=$cgr/bulk measure stock 8 8
wait
log "stock: peak $(peak stock) B, mean $(mean stock 1000) B, $(goodput stock) Mbit/s, ping p50 $(p50 stock) ms"

"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /bulk budget 32k || fail "tsqctl set /bulk budget 32k"
probe budget 8
# What tsqctl stats counts for the cgroup while the flows run: the
# sockets that called in the last two windows and the bytes they held.
# Sampled 5 times, from 2 s on; the largest counts are checked.
(sleep 2; for i in 1 2 3 4 5; do
	echo "$(now_ms) $("$TSQCTL" -j stats)"; sleep 0.5
 done >"$TMP/mid.log") &
CG=$cgr/bulk measure budget 8 8
wait
bulk_stat() { jq "[.[] | select(.cgroup == \"/bulk\") | .$2] | add // -1" "$1"; }
cut -d' ' -f2- "$TMP/mid.log" | jq -s '[.[][] | select(.cgroup == "/bulk")] |
	{active_sockets: (map(.active_sockets) | max), queued_bytes: (map(.queued_bytes) | max),
	 cgroup: "/bulk"} | [.]' >"$TMP/mid.json"
log "stats samples (ms since boot, /bulk active, queued):" \
	"$(while read -r t j; do echo -n "$t $(jq -c '[.[] | select(.cgroup == "/bulk") |
		.active_sockets, .queued_bytes]' <<<"$j"); "; done <"$TMP/mid.log")"
stats=$("$TSQCTL" -j stats)
log "budget 32k: peak $(peak budget 0 1000) B in the first second, $(peak budget 1000) B after"
log "budget 32k: peak $(peak budget) B, mean $(mean budget 1000) B, $(goodput budget) Mbit/s, ping p50 $(p50 budget) ms"
ratio=$(awk -v h="$(goodput budget)" -v s="$(goodput stock)" 'BEGIN { printf "%.2f", h / s }')
log "budget/stock goodput $ratio (target 0.90: $(awk -v r="$ratio" 'BEGIN { print (r >= 0.9 ? "met" : "not met") }'))"
check "stock: 8 flows fill the queue (setup sanity)" 'p >= 200000' p="$(peak stock)"
# The first second is checked apart, while 8 connections come up: each
# may send its first packets before the others hold any bytes (and the
# kernel's floor, two skbs a socket, holds anyway). 3 x the budget bounds it.
check "budget 32k: peak backlog <= 48 KB after the first second" 'p <= 49152' \
	p="$(peak budget 1000)"
check "budget 32k: peak backlog in the first second <= 96 KB" 'p <= 98304' \
	p="$(peak budget 0 1000)"
# Against stock in the same run, above the idle ping's floor (a loaded
# host raises all three): a third of stock's wait is the bound. The
# latency and goodput targets are bench/'s.
log "ping p50: idle $(p50 idle) ms, stock $(p50 stock) ms, budget $(p50 budget) ms"
check "budget 32k: ping p50's wait <= a third of stock's" \
	'b >= 0 && s > i && b - i <= (s - i) / 3' b="$(p50 budget)" s="$(p50 stock)" i="$(p50 idle)"
check "budget 32k: the flows moved data (a quarter of stock's goodput or more)" \
	'h >= s / 4 && s > 0' h="$(goodput budget)" s="$(goodput stock)"
check "budget 32k: throttles counted" 't > 0' \
	t="$(jq '[.[] | select(.cgroup == "/bulk") | .throttles] | add // 0' <<<"$stats")"

# Work conservation: what a slow socket does not hold goes to the one that
# can send. A bulk flow and a 2 Mbit/s one share the budget: an even split
# (this budget's first design) held each of the two to 16 KB plus the one
# 1-MSS skb that may cross it, about 18 KB; the bulk socket alone should
# now reach most of the 32 KB. Sampled every 0.2 s by tsqctl top: the
# largest sk_wmem_alloc of one /bulk socket, and the backlog all along.
CG=$cgr/bulk flow slow 9 1 -b 2M -p 5202 &
slow=$!
CG=$cgr/bulk flow one 8 1 &
one=$!
sample one "$one" &
"$TSQCTL" -j top -i 0.2 -n 30 >"$TMP/top.json" || fail "tsqctl top"
wait
onemax=$(jq -s '[.[].cgroups[] | select(.cgroup == "/bulk") | .queued_max] | max // 0' \
	"$TMP/top.json")
log "budget 32k, 1 bulk + 1 slow flow: largest socket queue $onemax B, peak backlog" \
	"$(peak one 1000) B, bulk $(goodput one) Mbit/s, slow $(goodput slow) Mbit/s"
check "budget 32k: a bulk socket beside a slow one holds > 22 KB (no even split)" \
	'q > 22528' q="$onemax"
check "budget 32k, bulk + slow: peak backlog <= 48 KB after the first second" \
	'p <= 49152' p="$(peak one 1000)"

"$TSQCTL" -j stats >"$TMP/end.json"
log "tsqctl stats /bulk: $(bulk_stat "$TMP/mid.json" active_sockets) active," \
	"$(bulk_stat "$TMP/mid.json" queued_bytes) B queued at most with 8 flows;" \
	"$(bulk_stat "$TMP/end.json" active_sockets), $(bulk_stat "$TMP/end.json" queued_bytes) B after"
check "stats: 8 or 9 sockets active (8 flows, iperf3's control) in the busiest sample" 'a >= 8 && a <= 9' \
	a="$(bulk_stat "$TMP/mid.json" active_sockets)"
# Each socket counts its queue when it last called and the packet it was
# about to send, so the sum runs ahead of the qdisc's backlog: 95 KB
# against a 43 KB mean backlog (2026-12-05; the busiest of 5 samples
# 104-120 KB in two runs). Five budgets bound it; what the check is for
# is a count that leaks, and that would grow without end.
check "stats: bytes queued mid-run, at most 5 budgets" 'q > 0 && q <= 163840' \
	q="$(bulk_stat "$TMP/mid.json" queued_bytes)"
check "stats: closed sockets leave nothing counted" 'a == 0 && q == 0' \
	a="$(bulk_stat "$TMP/end.json" active_sockets)" q="$(bulk_stat "$TMP/end.json" queued_bytes)"

"$TSQCTL" reset
rmdir $cgr/bulk $cgr/lat
check_dmesg budget
finish
