#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bench scenarios, run inside the VM by bench/run. A bulk cgroup and a
# latency cgroup share one bottleneck on the sender's virtio NIC:
#   100mbit   a TBF at 100 Mbit/s, a FIFO as its child (fq_codel in the
#             fq_codel configurations): the queue is a qdisc we control;
#   dev       no TBF: fq_codel at the root, as a Debian host has it, BQL
#             in force, the NIC and the VM's CPU as the bottleneck.
# Each scenario (bottleneck x return-path delay x congestion control x
# flows) runs under each configuration, the order rotating with the
# repetition. tsq's own:
#   stock            hook detached, 6.12 defaults
#   limit            tsqctl set /bulk limit L tso L
#   budget           tsqctl set /bulk budget B
#   budget-tsoT      tsqctl set /bulk budget B tso T (T a size: 16k)
#   limit-us         tsqctl set /bulk limit-us 1000
#   limit-us-delivered  the same at the lower of the pacing and the
#                    delivery rate (rate delivered)
# and what a user would pick instead, no tsq policy:
#   global           tcp_limit_output_bytes and gso_max_size at L, for all
#   fq_codel         fq_codel as the TBF's child
#   fq_codel+budget  both together (and fq_codel+limit)
#   pacing           SO_MAX_PACING_RATE on each bulk socket (iperf3
#                    --fq-rate): 90 % of the link over the flows
#   netns-sysctl     the bulk sender in its own netns on a macvlan of the
#                    NIC, tcp_limit_output_bytes and gso_max_size L there
#   netns-veth       the same behind a routed veth, as container runtimes
#                    connect a netns
# In dev, the fq_codel configurations are stock, budget and limit again
# and do not run; dev runs the configurations its verdicts need (the
# rate limit-us multiplies, against stock and pacing). Budget runs record
# pkt_max, the largest skb TCP handed to the device (bpftrace), the "one
# packet" of the budget's bounds. A load is CC:FLOWS, or CC:FLOWS:BUDGET for a budget of
# its own (issue 23's 100 flows under 64k). One JSON object per run goes
# to $BENCH_OUT/scenarios.jsonl, with the budget its scenario's budget
# configurations set (bytes) and the guest's CPUs beside what it measured.
. "$(dirname "$0")/../tests/vm/lib.sh"
. "$(dirname "$0")/lib.sh"

out=$BENCH_OUT/scenarios.jsonl
secs=$BENCH_SECS
reps=$BENCH_REPS
rates=${BENCH_RATES:-100mbit dev}
delays=${BENCH_DELAYS:-0}
declare -A LOADS=([100mbit]="cubic:1 cubic:8 bbr:8 cubic:100:64k" [dev]="cubic:8 bbr:8")
all_configs=(${BENCH_CONFIGS:-stock global limit budget limit-us fq_codel fq_codel+budget
	     pacing netns-sysctl})
dev_configs=${BENCH_DEV_CONFIGS:-stock budget limit-us limit-us-delivered pacing}
cgr=/sys/fs/cgroup

# Per bottleneck: the same bytes for the global knobs, the netns ones and
# the per-cgroup limit, so these differ only in who they apply to.
declare -A LIM=([100mbit]=8192 [1gbit]=65536 [dev]=65536)
declare -A BUDGET=([100mbit]=32k [1gbit]=256k [dev]=256k)
# BENCH_BUDGET: one budget for every bottleneck, to see what a size does.
[ -z "${BENCH_BUDGET:-}" ] || for r in "${!BUDGET[@]}"; do BUDGET[$r]=$BENCH_BUDGET; done
lob0=$(sysctl -n net.ipv4.tcp_limit_output_bytes)
gso0=$(ip -d -j link show dev "$TSQ_DEV" | jq '.[0].gso_max_size')
BULKNS=bulk
BULK_IP=198.18.0.3 VETH_IP=198.19.1.2 VETH_GW=198.19.1.1

bottleneck_on() {
	case $1 in
	dev) tc qdisc replace dev "$TSQ_DEV" root fq_codel ;;
	*) tbf_on "$1" ;;
	esac
}

# The bulk sender's own netns: a macvlan on the NIC, whose skbs reach the
# NIC's qdisc still owned by the socket, or a veth routed by the root
# netns, where ip_rcv() orphans them: TSQ in the netns then sees only the
# veth. Its sysctl and gso_max_size at L either way.
netns_on() {
	local dev=bulk0
	ip netns add "$BULKNS"
	if [ "$1" = macvlan ]; then
		ip link add "$dev" link "$TSQ_DEV" type macvlan mode bridge
		ip link set "$dev" netns "$BULKNS"
		ip -n "$BULKNS" addr add "$BULK_IP/24" dev "$dev"
	else
		ip link add bulkgw type veth peer name "$dev" netns "$BULKNS"
		ip addr add "$VETH_GW/30" dev bulkgw
		ip link set bulkgw up
		ip -n "$BULKNS" addr add "$VETH_IP/30" dev "$dev"
		sysctl -qw net.ipv4.ip_forward=1
		ip -n "$TSQ_NETNS" route add "$VETH_IP/32" via "$TSQ_IP"
	fi
	ip -n "$BULKNS" link set lo up
	ip -n "$BULKNS" link set "$dev" gso_max_size "${LIM[$rate]}" up
	[ "$1" = macvlan ] || ip -n "$BULKNS" route add default via "$VETH_GW"
	ip netns exec "$BULKNS" sysctl -qw net.ipv4.tcp_limit_output_bytes="${LIM[$rate]}"
	# The neighbours once, outside the measurement.
	ip netns exec "$BULKNS" ping -q -c1 -W5 "$TSQ_PEER_IP" >/dev/null
}

netns_off() {
	ip netns list | grep -qw "$BULKNS" || return 0
	ip -n "$TSQ_NETNS" route del "$VETH_IP/32" 2>/dev/null
	ip link del bulkgw 2>/dev/null
	sysctl -qw net.ipv4.ip_forward=0
	ip netns del "$BULKNS"
}

config_on() {
	case $1 in
	stock | global | fq_codel | pacing | netns-*) "$TSQCTL" reset 2>/dev/null || true ;;
	*) [ -e /sys/fs/bpf/tsq/link ] || "$TSQCTL" attach ;;
	esac
	case $1 in
	fq_codel*) tc qdisc replace dev "$TSQ_DEV" parent 1:1 fq_codel ;;
	esac
	case $1 in
	stock | fq_codel | pacing) ;;
	global)
		sysctl -qw net.ipv4.tcp_limit_output_bytes="${LIM[$rate]}"
		ip link set dev "$TSQ_DEV" gso_max_size "${LIM[$rate]}" ;;
	netns-sysctl) netns_on macvlan ;;
	netns-veth) netns_on veth ;;
	*)
		case $1 in
		*limit) "$TSQCTL" set /bulk limit "${LIM[$rate]}" tso "${LIM[$rate]}" ;;
		*budget) "$TSQCTL" set /bulk budget "$budget" ;;
		budget-tso*) "$TSQCTL" set /bulk budget "$budget" tso "${1#budget-tso}" ;;
		limit-us) "$TSQCTL" set /bulk limit-us 1000 ;;
		limit-us-delivered) "$TSQCTL" set /bulk limit-us 1000 rate delivered ;;
		esac ;;
	esac
}

config_off() {
	sysctl -qw net.ipv4.tcp_limit_output_bytes="$lob0"
	ip link set dev "$TSQ_DEV" gso_max_size "$gso0"
	[ ! -e /sys/fs/bpf/tsq/link ] || "$TSQCTL" unset /bulk 2>/dev/null || true
	netns_off
	case $1 in
	fq_codel*) tc qdisc del dev "$TSQ_DEV" root; bottleneck_on "$rate" ;;
	esac
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

# The device's bytes (BQL inflight, third column of the samples) as the
# qdisc's are taken: the peak over the whole run, slow start included (a
# bound holds from the first packet), the mean after the first second;
# null without BQL.
dev_bytes() {
	awk 'NR == 1 && $3 < 0 { print "null null"; bad = 1; exit }
	     $1 >= 1000 { s += $3; n++ } $3 > m { m = $3 }
	     END { if (!bad) print m + 0, n ? int(s / n) : 0 }' "$TMP/$1.bl"
}

# Per-flow bits/s of the link: 90 % of it over the flows. For dev, whose
# rate is what the VM reaches, stock's goodput with this load measured
# just before.
pace_bps() {
	local flows=$1 link
	case $rate in
	dev) link=${DEV_MBIT:?} ;;
	*) link=${rate%mbit}; [ "$link" != "$rate" ] || link=$(( ${rate%gbit} * 1000 )) ;;
	esac
	awk -v l="$link" -v n="$flows" 'BEGIN { printf "%d", l * 1e6 * 0.9 / n }'
}

run_one() {
	local name=$1 cfg=$2 ping rr c0 c1 t0 t1
	local p50 p99 pmax r50 r99 rmax dpeak dmean pkt=null args=()
	config_on "$cfg" || { echo "bench: $cfg on $name failed" >&2; config_off "$cfg"; return 1; }
	[[ $cfg != *budget* ]] || pktmax_begin
	[ "$cfg" != pacing ] || args=(--fq-rate "$(pace_bps "$flows")")
	t0=$(throttles)
	(echo $BASHPID >$cgr/lat/cgroup.procs
	 exec ping -n -i 0.01 -w "$secs" "$TSQ_PEER_IP") >"$TMP/ping" &
	ping=$!
	(echo $BASHPID >$cgr/lat/cgroup.procs
	 exec "$OUT/rrprobe" -c "$TSQ_PEER_IP" 7000 "$((secs - 1))") >"$TMP/rr" &
	rr=$!
	c0=$(cpu_now)
	case $cfg in
	netns-*) NETNS=$BULKNS CC=$cc CG=$cgr/bulk measure "$name" "$secs" "$flows" ;;
	*) CC=$cc CG=$cgr/bulk measure "$name" "$secs" "$flows" "${args[@]}" ;;
	esac
	c1=$(cpu_now)
	wait "$ping" "$rr"
	if [[ $cfg == *budget* ]]; then
		pktmax_end
		pkt=$PKTMAX
		[ -n "$pkt" ] || echo "# pktmax: bpftrace said: $(pktmax_said)" >&2
	fi
	t1=$(throttles)
	config_off "$cfg"
	read -r p50 p99 pmax < <(ping_stats "$TMP/ping")
	read -r _ _ _ r50 _ r99 _ rmax < "$TMP/rr" || true
	read -r dpeak dmean < <(dev_bytes "$name")
	jq -cn --arg rate "$rate" --argjson delay "$delay" --arg cc "$cc" \
		--argjson flows "$flows" --arg config "$cfg" --argjson rep "$rep" \
		--argjson budget "$(numfmt --from=iec "${budget^^}")" --argjson cpus "$(nproc)" \
		--argjson pkt "${pkt:-null}" \
		--argjson peak "$(peak "$name")" --argjson mean "$(mean "$name" 1000)" \
		--argjson dev_peak "$dpeak" --argjson dev_mean "$dmean" \
		--argjson goodput "$(goodput "$name")" \
		--argjson ping "[$p50,$p99,$pmax]" --argjson rr "[${r50:-null},${r99:-null},${rmax:-null}]" \
		--argjson cpu "[${c0},${c1}]" --argjson t0 "$t0" --argjson t1 "$t1" \
		--slurpfile iperf "$TMP/$name.json" \
		'$iperf[0].end as $e |
		 [$e.streams[].receiver.bytes] as $b |
		 {rate: $rate, delay_ms: $delay, cc: $cc, flows: $flows, config: $config,
		  rep: $rep, budget: $budget, cpus: $cpus, pkt_max: $pkt,
		  peak: $peak, mean: $mean, dev_peak: $dev_peak, dev_mean: $dev_mean,
		  goodput_mbps: $goodput, ping_ms: $ping, rr_ms: $rr,
		  flow_rtt_ms: (([$e.streams[].sender.mean_rtt // empty] | add / length / 1000)? // null),
		  jain: (if ($b | length) > 0 and ($b | map(. * .) | add) > 0
			 then ($b | add) * ($b | add) / (($b | length) * ($b | map(. * .) | add))
			 else null end),
		  cpu_busy_pct: (100 * ($cpu[2] - $cpu[0]) / ($cpu[3] - $cpu[1])),
		  sender_cpu_pct: ($e.cpu_utilization_percent.host_total // null),
		  throttles: (if $t0 == null then null else $t1 - $t0 end)}' >>"$out"
}

mkdir -p $cgr/bulk $cgr/lat
iperf_server
ip netns exec "$TSQ_NETNS" "$OUT/rrprobe" -s 7000 &
rrsrv=$!
total=0
for rate in $rates; do
	bottleneck_on "$rate"
	configs=()
	if [ "$rate" = dev ] && [ -z "${BENCH_CONFIGS:-}" ]; then
		configs=($dev_configs)
	else
		for c in "${all_configs[@]}"; do
			[ "$rate" = dev ] && [[ $c == fq_codel* ]] && continue
			configs+=("$c")
		done
	fi
	for delay in $delays; do
		# The ACKs' way back: with min_rtt under 512 us, tcp_tso_rtt_log
		# makes every TSO packet 64 KB and hides pacing-based sizing.
		if [ "$delay" = 0 ]; then
			ip netns exec "$TSQ_NETNS" tc qdisc del dev "$TSQ_PEER_DEV" root 2>/dev/null || true
		else
			ip netns exec "$TSQ_NETNS" tc qdisc replace dev "$TSQ_PEER_DEV" root \
				netem delay "${delay}ms" limit 100000
		fi
		for load in ${BENCH_LOADS:-${LOADS[$rate]:-cubic:8}}; do
			IFS=: read -r cc flows budget <<<"$load"
			budget=${budget:-${BUDGET[$rate]}}
			if [ "$rate" = dev ]; then
				# What the VM reaches with this load, for pacing.
				CC=$cc CG=$cgr/bulk flow warm "$secs" "$flows"
				DEV_MBIT=$(goodput warm)
				log "dev: $load reaches $DEV_MBIT Mbit/s"
			fi
			for rep in $(seq "$reps"); do
				n=${#configs[@]}
				for i in $(seq 0 $((n - 1))); do
					cfg=${configs[$(( (i + rep - 1) % n ))]}
					name="$rate-$delay-${load//:/-}-$cfg-$rep"
					run_one "$name" "$cfg" && total=$((total + 1))
					rm -f "$TMP/$name".*
				done
				log "$rate delay ${delay}ms $load rep $rep done ($total runs)"
			done
		done
	done
	tc qdisc del dev "$TSQ_DEV" root 2>/dev/null
done
"$TSQCTL" reset 2>/dev/null || true
kill "$rrsrv" 2>/dev/null
ip netns exec "$TSQ_NETNS" tc qdisc del dev "$TSQ_PEER_DEV" root 2>/dev/null
rmdir $cgr/bulk $cgr/lat
finish
