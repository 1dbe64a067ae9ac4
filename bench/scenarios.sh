#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bench scenarios, run inside the VM by bench/run. A bulk cgroup and a
# latency cgroup share a TBF bottleneck on the sender's virtio NIC; each
# scenario (rate x return-path delay x congestion control x flows) runs
# under each configuration, the order rotating with the repetition:
#   stock     hook detached, 6.12 defaults
#   global    tcp_limit_output_bytes and gso_max_size lowered for everyone
#   limit     tsqctl set /bulk limit L tso L (L as the global values)
#   budget    tsqctl set /bulk budget B
#   limit-us  tsqctl set /bulk limit-us 1000
# One JSON object per run goes to $BENCH_OUT/scenarios.jsonl.
. "$(dirname "$0")/../tests/vm/lib.sh"
. "$(dirname "$0")/lib.sh"

out=$BENCH_OUT/scenarios.jsonl
secs=$BENCH_SECS
reps=$BENCH_REPS
rates=${BENCH_RATES:-100mbit 1gbit}
delays=${BENCH_DELAYS:-0 10}
loads=${BENCH_LOADS:-cubic:1 cubic:8 bbr:1 bbr:8}
configs=(${BENCH_CONFIGS:-stock global limit budget limit-us})
cgr=/sys/fs/cgroup

# Per-rate values: the same bytes for the global knobs and the per-cgroup
# limit, so "global" and "limit" differ only in who they apply to.
declare -A LIM=([100mbit]=8192 [1gbit]=65536) BUDGET=([100mbit]=32k [1gbit]=256k)
lob0=$(sysctl -n net.ipv4.tcp_limit_output_bytes)
gso0=$(ip -d -j link show dev "$TSQ_DEV" | jq '.[0].gso_max_size')

config_on() {
	case $1 in
	stock) "$TSQCTL" reset 2>/dev/null || true ;;
	global)
		"$TSQCTL" reset 2>/dev/null
		sysctl -qw net.ipv4.tcp_limit_output_bytes="${LIM[$rate]}"
		ip link set dev "$TSQ_DEV" gso_max_size "${LIM[$rate]}" ;;
	*)
		[ -e /sys/fs/bpf/tsq/link ] || "$TSQCTL" attach
		case $1 in
		limit) "$TSQCTL" set /bulk limit "${LIM[$rate]}" tso "${LIM[$rate]}" ;;
		budget) "$TSQCTL" set /bulk budget "${BUDGET[$rate]}" ;;
		limit-us) "$TSQCTL" set /bulk limit-us 1000 ;;
		esac ;;
	esac
}

config_off() {
	sysctl -qw net.ipv4.tcp_limit_output_bytes="$lob0"
	ip link set dev "$TSQ_DEV" gso_max_size "$gso0"
	[ ! -e /sys/fs/bpf/tsq/link ] || "$TSQCTL" unset /bulk 2>/dev/null || true
}

# p50 p99 max of the ping RTTs in ms.
ping_stats() {
	sed -n 's/.*time=\([0-9.]*\) ms/\1/p' "$1" | sort -n |
		awk '{ v[NR] = $1 } END {
			if (!NR) { print "null null null"; exit }
			i = int(NR * 0.99); if (i < NR * 0.99) i++
			print v[int((NR + 1) / 2)], v[i], v[NR] }'
}

throttles() {
	[ -e /sys/fs/bpf/tsq/link ] || { echo null; return; }
	"$TSQCTL" -j stats | jq '[.[] | select(.cgroup == "/bulk") | .throttles] | add // 0'
}

run_one() {
	local name=$1 cfg=$2 cc=${load%%:*} flows=${load##*:} ping rr c0 c1 t0 t1
	local p50 p99 pmax r50 r99 rmax
	config_on "$cfg" || { echo "bench: $cfg on $name failed" >&2; return 1; }
	t0=$(throttles)
	(echo $BASHPID >$cgr/lat/cgroup.procs
	 exec ping -n -i 0.01 -w "$secs" "$TSQ_PEER_IP") >"$TMP/ping" &
	ping=$!
	(echo $BASHPID >$cgr/lat/cgroup.procs
	 exec "$OUT/rrprobe" -c "$TSQ_PEER_IP" 7000 "$((secs - 1))") >"$TMP/rr" &
	rr=$!
	c0=$(cpu_now)
	CC=$cc CG=$cgr/bulk measure "$name" "$secs" "$flows"
	c1=$(cpu_now)
	wait "$ping" "$rr"
	t1=$(throttles)
	config_off
	read -r p50 p99 pmax < <(ping_stats "$TMP/ping")
	read -r _ _ _ r50 _ r99 _ rmax < "$TMP/rr" || true
	jq -cn --arg rate "$rate" --argjson delay "$delay" --arg cc "$cc" \
		--argjson flows "$flows" --arg config "$cfg" --argjson rep "$rep" \
		--argjson peak "$(peak "$name")" --argjson mean "$(mean "$name" 1000)" \
		--argjson goodput "$(goodput "$name")" \
		--argjson ping "[$p50,$p99,$pmax]" --argjson rr "[${r50:-null},${r99:-null},${rmax:-null}]" \
		--argjson cpu "[${c0},${c1}]" --argjson t0 "$t0" --argjson t1 "$t1" \
		--argjson sender "$(jq '.end.cpu_utilization_percent.host_total // null' "$TMP/$name.json")" \
		'{rate: $rate, delay_ms: $delay, cc: $cc, flows: $flows, config: $config,
		  rep: $rep, peak: $peak, mean: $mean, goodput_mbps: $goodput,
		  ping_ms: $ping, rr_ms: $rr,
		  cpu_busy_pct: (100 * ($cpu[2] - $cpu[0]) / ($cpu[3] - $cpu[1])),
		  sender_cpu_pct: $sender,
		  throttles: (if $t0 == null then null else $t1 - $t0 end)}' >>"$out"
}

mkdir -p $cgr/bulk $cgr/lat
iperf_server
ip netns exec "$TSQ_NETNS" "$OUT/rrprobe" -s 7000 &
rrsrv=$!
total=0
for rate in $rates; do
	tbf_on "$rate"
	for delay in $delays; do
		# The ACKs' way back: with min_rtt under 512 us, tcp_tso_rtt_log
		# makes every TSO packet 64 KB and hides pacing-based sizing.
		if [ "$delay" = 0 ]; then
			ip netns exec "$TSQ_NETNS" tc qdisc del dev "$TSQ_PEER_DEV" root 2>/dev/null || true
		else
			ip netns exec "$TSQ_NETNS" tc qdisc replace dev "$TSQ_PEER_DEV" root \
				netem delay "${delay}ms" limit 100000
		fi
		for load in $loads; do
			for rep in $(seq "$reps"); do
				n=${#configs[@]}
				for i in $(seq 0 $((n - 1))); do
					cfg=${configs[$(( (i + rep - 1) % n ))]}
					name="$rate-$delay-${load/:/-}-$cfg-$rep"
					run_one "$name" "$cfg" && total=$((total + 1))
					rm -f "$TMP/$name".*
				done
				log "$rate delay ${delay}ms $load rep $rep done ($total runs)"
			done
		done
	done
done
"$TSQCTL" reset 2>/dev/null || true
kill "$rrsrv" 2>/dev/null
ip netns exec "$TSQ_NETNS" tc qdisc del dev "$TSQ_PEER_DEV" root 2>/dev/null
tc qdisc del dev "$TSQ_DEV" root 2>/dev/null
rmdir $cgr/bulk $cgr/lat
finish
