#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqctl top natively on the host (its kernel has no hook): what it costs
# and what it sees. One JSON line a measurement on stdout:
#   observe_cost   CPU of tsqctl top -i 1 with 10,000 established sockets,
#                  for 1 frame and for 31 (the difference is the per-frame
#                  cost, the rest loading);
#   observe_prog   ns per call of each observation program (bpf_stats)
#                  while 8 flows run, once per repetition;
#   observe        per-cgroup delays with 1 and 8 cubic flows in bulk and
#                  a TCP request/response probe in lat, behind a 100 Mbit/s
#                  TBF, under stock, the global sysctl (tcp_limit_output_bytes
#                  and gso_max_size 8 KB in the sender's netns) and fq_codel
#                  under the TBF, where the kernel has fq_codel.
#
# usage: bench/observe.sh   (root; BENCH_REPS, 5; BENCH_SECS, 10)
set -uo pipefail
. "$(dirname "$0")/../tests/host/netpair.sh"

reps=${BENCH_REPS:-5}
secs=${BENCH_SECS:-10}
bpftool=$out/tools/bpftool
date=$(date -u +%FT%TZ)
rev=${BENCH_REV:-$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)}

netpair_init tsqbench || { echo "bench/observe.sh: $why" >&2; exit 1; }
trap netpair_cleanup EXIT
netpair_up bulk lat rcv || { echo "bench/observe.sh: setup failed" >&2; exit 1; }

# emit KIND JSON: one line, with what every line carries.
emit() {
	jq -c --arg kind "$1" --arg date "$date" --arg tsq "$rev" --arg kernel "$(uname -r)" \
		'{kind: $kind, date: $date, tsq: $tsq, kernel: $kernel} + .' <<<"$2"
}

# Cost: 10,000 sockets (5,000 loopback connections) in a netns of their own.
for _ in $(seq "$reps"); do
	for n in 1 31; do
		r=$(unshare -n sh -c 'ip link set lo up && exec "$@"' sh \
			/usr/bin/python3 "$top/bench/manysocks.py" 10000 "$tsqctl" top -i 1 -n "$n")
		emit observe_cost "$(jq -c --argjson n "$n" '. + {frames: $n}' <<<"$r")"
	done
done

tc -n "$snd" qdisc add dev "$va" root handle 1: tbf rate 100mbit burst 128kb limit 4mb
spawn rcv "$rcv" iperf3 -s -p 5201
spawn rcv "$rcv" "$out/rrprobe" -s 7000
sleep 1
fq_codel=yes
tc -n "$snd" qdisc add dev "$va" parent 1:1 fq_codel 2>/dev/null &&
	tc -n "$snd" qdisc del dev "$va" parent 1:1 || fq_codel=no

config_on() {
	case $1 in
	global)
		ip netns exec "$snd" sysctl -qw net.ipv4.tcp_limit_output_bytes=8192
		ip -n "$snd" link set dev "$va" gso_max_size 8192 ;;
	fq_codel)
		tc -n "$snd" qdisc add dev "$va" parent 1:1 fq_codel ;;
	esac
}

config_off() {
	case $1 in
	global)
		ip netns exec "$snd" sysctl -qw net.ipv4.tcp_limit_output_bytes="$lob0"
		ip -n "$snd" link set dev "$va" gso_max_size 65536 ;;
	fq_codel)
		tc -n "$snd" qdisc del dev "$va" parent 1:1 ;;
	esac
}
lob0=$(ip netns exec "$snd" sysctl -n net.ipv4.tcp_limit_output_bytes)

# One run: flows in bulk, the probe in lat, one tsqctl frame over the
# flows' middle, the probe's own percentiles beside it.
run() {
	local cfg=$1 flows=$2 rep=$3 frame rr
	spawn bulk "$snd" iperf3 -c 198.18.0.2 -p 5201 -t "$secs" -P "$flows" -C cubic -i 0
	local client=${pids[-1]}
	nsenter --net=/run/netns/"$snd" sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' \
		sh "$base/lat" "$out/rrprobe" -c 198.18.0.2 7000 "$((secs - 1))" >"$t/rr" &
	local probe=$!
	sleep 2
	frame=$(topj -i "$((secs - 4))")
	wait "$client" "$probe"
	rr=$(awk '{ print "[" $4 "," $6 "," $8 "]" }' "$t/rr")
	emit observe "$(jq -c --arg cfg "$cfg" --argjson flows "$flows" --argjson rep "$rep" \
		--argjson rr "${rr:-null}" --arg b "${base#"$cgmnt"}/bulk" --arg l "${base#"$cgmnt"}/lat" \
		'def pick($p): (.cgroups[] | select(.cgroup == $p) |
			{queued_bytes, queued_max, established, throttled,
			 delay: (.delay | del(.hist_log2_ns)), hist: .delay.hist_log2_ns,
			 qdisc_delay: (.qdisc_delay // {} | del(.hist_log2_ns))}) // null;
		 {config: $cfg, flows: $flows, rep: $rep, completion, interval_s,
		  bulk: pick($b), lat: pick($l), rr_ms: $rr}' <<<"$frame")"
}

# percall REP: ns per call of the programs under 8 flows, from the
# kernel's own stats.
percall() {
	local first client tp
	spawn bulk "$snd" iperf3 -c 198.18.0.2 -p 5201 -t "$secs" -P 8 -i 0
	client=${pids[-1]}
	# Programs loaded from here on are this tsqctl's (bpftool here lists
	# no pids).
	first=$("$bpftool" -j prog show | jq '[.[].id] | max + 1')
	nsenter --net=/run/netns/"$snd" "$tsqctl" top -i "$((secs - 2))" -n 1 >/dev/null &
	tp=$!
	sleep "$((secs - 3))"
	"$bpftool" -j prog show >"$t/progs"
	wait "$tp" "$client"
	# The iterator's runs are not counted.
	jq -c --argjson first "$first" --argjson rep "$1" '.[] |
		select(.name | startswith("observe_")) | select(.id >= $first and .run_cnt > 0) |
		{prog: .name, rep: $rep, calls: .run_cnt,
		 ns_per_call: (.run_time_ns / .run_cnt | floor)}' "$t/progs" |
		while read -r p; do emit observe_prog "$p"; done
}
stats=no
[ -x "$bpftool" ] && sysctl -qw kernel.bpf_stats_enabled=0 2>/dev/null && stats=yes

configs=(stock global)
[ "$fq_codel" = yes ] && configs+=(fq_codel) ||
	emit observe "$(jq -nc '{config: "fq_codel", unavailable: "this kernel has no fq_codel"}')"
for rep in $(seq "$reps"); do
	for cfg in "${configs[@]}"; do
		config_on "$cfg"
		for flows in 1 8; do
			run "$cfg" "$flows" "$rep"
		done
		config_off "$cfg"
	done
	if [ "$stats" = yes ]; then
		sysctl -qw kernel.bpf_stats_enabled=1
		percall "$rep"
		sysctl -qw kernel.bpf_stats_enabled=0
	fi
done
