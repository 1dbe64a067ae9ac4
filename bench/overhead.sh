#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The cost of the hook, run inside the VM by bench/run:
#  - throughput on the unconstrained virtio path (no TBF) with the policy
#    program detached and attached, alternating, same boot;
#  - BPF run time per call (kernel.bpf_stats_enabled) of the policy's two
#    callbacks with 1, 100 and 10,000 cgroup policies, and of an empty
#    tcp_tsq_ops for reference;
#  - tsqd's CPU and resident memory while idle (30 s: one clock tick is
#    0.03 %), with 1, 100 and 10,000 policies.
# Attached, the flow's cgroup has "budget 16m": the program takes its
# longest path (policy, accounting, share) but the share never binds, so
# what differs is the program's cost, not the queue it allows.
. "$(dirname "$0")/../tests/vm/lib.sh"
. "$(dirname "$0")/lib.sh"

out=$BENCH_OUT/overhead.jsonl
cgr=/sys/fs/cgroup
BPFTOOL=$OUT/tools/bpftool
mkdir -p $cgr/bulk
iperf_server

emit() { jq -c "$@" >>"$out"; }

# 1. attached vs detached, alternating so drift hits both alike.
for rep in $(seq "$BENCH_REPS"); do
	for mode in detached attached; do
		if [ $mode = attached ]; then
			"$TSQCTL" attach && "$TSQCTL" set /bulk budget 16m
		else
			"$TSQCTL" reset 2>/dev/null
		fi
		unconstrained "u-$mode-$rep" |
			emit --arg mode "$mode" --argjson rep "$rep" \
				'{kind: "unconstrained", mode: $mode, rep: $rep} + .'
	done
done
"$TSQCTL" reset 2>/dev/null

# prog_cost NAME...: "name run_time_ns run_cnt" for each program named.
prog_cost() {
	# Kernel names stop at 15 characters; bpftool may print the BTF one.
	"$BPFTOOL" -j prog show | jq -r --args '.[] |
		select(.name[0:15] as $n | $ARGS.positional | map(.[0:15]) | index($n)) |
		"\(.name) \(.run_time_ns // 0) \(.run_cnt // 0)"' "$@"
}

# percall KIND POLICIES NAME...: a flow with stats on, one line per program.
percall() {
	local kind=$1 n=$2 name
	shift 2
	sysctl -qw kernel.bpf_stats_enabled=1
	unconstrained "c-$kind-$n" >/dev/null
	sysctl -qw kernel.bpf_stats_enabled=0
	prog_cost "$@" | while read -r name ns cnt; do
		emit -n --arg kind "$kind" --argjson policies "$n" --arg prog "$name" \
			--argjson ns "$ns" --argjson cnt "$cnt" \
			'{kind: "percall", program: $kind, policies: $policies, prog: $prog,
			  run_time_ns: $ns, run_cnt: $cnt,
			  ns_per_call: (if $cnt > 0 then $ns / $cnt else null end)}'
	done
}

# tsqd_idle POLICIES: CPU % and RSS of an idle tsqd over 30 s.
tsqd_idle() {
	local n=$1 pid t0 t1 hz
	hz=$(getconf CLK_TCK)
	"$OUT/tsqd" -c "$TMP/tsq.conf" -d "$TMP/none" 2>"$TMP/tsqd.log" &
	pid=$!
	for _ in $(seq 600); do grep -q 'loaded' "$TMP/tsqd.log" && break; sleep 0.1; done
	sleep 2
	t0=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
	sleep 30
	t1=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
	emit -n --argjson policies "$n" --argjson ticks "$((t1 - t0))" --argjson hz "$hz" \
		--argjson rss "$(awk '/VmRSS/ { print $2 }' /proc/$pid/status)" \
		'{kind: "tsqd", policies: $policies, cpu_pct: (100 * $ticks / $hz / 30),
		  rss_kb: $rss}'
	kill "$pid"
	wait "$pid"
}

# 2 and 3. Policies come from a tsqd file: /bulk, and N-1 others.
"$HOOK_TEST" attach empty "$PIN" >/dev/null
percall empty 0 nop_limit nop_segs
detach
mkdir $cgr/many
for n in 1 100 10000; do
	[ "$n" = 1 ] || mkdir -p $(printf "$cgr/many/c%d " $(seq $((n - 1))))
	{ echo "/bulk budget 16m"
	  for i in $(seq $((n - 1))); do echo "/many/c$i limit 16k"; done; } >"$TMP/tsq.conf"
	tsqd_idle "$n"
	# tsqd left the policy and the link in force.
	percall policy "$n" policy_tsq_limit policy_tso_segs
	"$TSQCTL" reset 2>/dev/null
done
rmdir $cgr/many/c* $cgr/many $cgr/bulk 2>/dev/null
finish
