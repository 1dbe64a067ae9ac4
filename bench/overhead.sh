#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The cost of the hook, run inside the VM by bench/run. Since v3 no BPF
# program runs per packet: the policy program runs once per connection
# (tcp_tsq_ops established) and once per socket of the changed cgroup's
# subtree on a policy change (the policy_sync iterator, which skips the
# others). Measured, BENCH_REPS samples each:
#  - throughput on the unconstrained virtio path (no TBF), tsq detached
#    and attached with a budget that never binds, alternating;
#  - BPF run time per call (kernel.bpf_stats_enabled) of the established
#    callback over 1,000 loopback connections from /bulk: tsq's policy
#    program with 1, 100 and 10,000 cgroup policies, tsq_fixed (one fixed
#    policy, no lookup) and passthru (counts, sets nothing) as references.
#    Where the policy program's time goes, row against row: fixed-budget
#    (tsq_fixed joining a group) less fixed is the kernel's group join;
#    policy-limit (one policy, a limit alone) less fixed is the BPF
#    program's own work, the policy's lookup in tsq_eff (a walk of the
#    cgroup chain on its first connection after a change);
#  - a policy change with 10,000 established sockets: tsqctl set's wall
#    and CPU time, and policy_sync's ns per socket;
#  - tsqd's CPU and resident memory while idle, windows of 10 s (one clock
#    tick is 0.1 %), with 1, 100 and 10,000 policies.
. "$(dirname "$0")/../tests/vm/lib.sh"
. "$(dirname "$0")/lib.sh"

out=$BENCH_OUT/overhead.jsonl
cgr=/sys/fs/cgroup
BPFTOOL=$OUT/tools/bpftool
MANYSOCKS=$TOP/bench/manysocks.py
CONNS=1000
SYNC_SOCKS=10000
mkdir -p $cgr/bulk
iperf_server
ulimit -n $((SYNC_SOCKS * 2 + 1024))

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

# in_bulk CMD...: CMD from the /bulk cgroup, so its sockets are under the
# policy there.
in_bulk() { (echo $BASHPID >$cgr/bulk/cgroup.procs && exec "$@"); }

# percall KIND POLICIES PROG: CONNS connections (both ends call the
# callback) with stats on, BENCH_REPS samples of PROG's ns per call.
percall() {
	local kind=$1 n=$2 prog=$3 rep a b
	for rep in $(seq "$BENCH_REPS"); do
		sysctl -qw kernel.bpf_stats_enabled=1
		read -r _ a_ns a_cnt < <(prog_cost "$prog")
		in_bulk /usr/bin/python3 "$MANYSOCKS" $((CONNS * 2)) true >/dev/null
		read -r _ b_ns b_cnt < <(prog_cost "$prog")
		sysctl -qw kernel.bpf_stats_enabled=0
		emit -n --arg kind "$kind" --argjson policies "$n" --arg prog "$prog" \
			--argjson rep "$rep" --argjson ns "$((b_ns - a_ns))" \
			--argjson cnt "$((b_cnt - a_cnt))" \
			'{kind: "percall", program: $kind, callback: "established",
			  policies: $policies, prog: $prog, rep: $rep,
			  run_time_ns: $ns, run_cnt: $cnt,
			  ns_per_call: (if $cnt > 0 then $ns / $cnt else null end)}'
	done
}

# policy_change POLICIES: tsqctl set on /bulk, alternating two limits so
# each is a change, with SYNC_SOCKS sockets established in /bulk.
policy_change() {
	local n=$1 rep lim a_ns a_cnt b_ns b_cnt r
	for rep in $(seq "$BENCH_REPS"); do
		lim=$((rep % 2 ? 16 : 32))k
		sysctl -qw kernel.bpf_stats_enabled=1
		read -r _ a_ns a_cnt < <(prog_cost policy_sync)
		r=$(in_bulk /usr/bin/python3 "$MANYSOCKS" "$SYNC_SOCKS" \
			"$TSQCTL" set /bulk budget 16m limit "$lim")
		read -r _ b_ns b_cnt < <(prog_cost policy_sync)
		sysctl -qw kernel.bpf_stats_enabled=0
		emit --argjson policies "$n" --argjson rep "$rep" \
			--argjson ns "$((b_ns - a_ns))" --argjson cnt "$((b_cnt - a_cnt))" \
			'{kind: "sync", policies: $policies, rep: $rep} + . +
			 {run_time_ns: $ns, run_cnt: $cnt,
			  ns_per_socket: (if $cnt > 0 then $ns / $cnt else null end)}' <<<"$r"
	done
}

# tsqd_idle POLICIES: CPU % and RSS of an idle tsqd, BENCH_REPS windows.
tsqd_idle() {
	local n=$1 pid t0 t1 hz rep
	hz=$(getconf CLK_TCK)
	"$OUT/tsqd" -c "$TMP/tsq.conf" -d "$TMP/none" 2>"$TMP/tsqd.log" &
	pid=$!
	for _ in $(seq 600); do grep -q 'loaded' "$TMP/tsqd.log" && break; sleep 0.1; done
	sleep 2
	for rep in $(seq "$BENCH_REPS"); do
		t0=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
		sleep 10
		t1=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
		emit -n --argjson policies "$n" --argjson rep "$rep" \
			--argjson ticks "$((t1 - t0))" --argjson hz "$hz" \
			--argjson rss "$(awk '/VmRSS/ { print $2 }' /proc/$pid/status)" \
			'{kind: "tsqd", policies: $policies, rep: $rep, seconds: 10,
			  cpu_pct: (100 * $ticks / $hz / 10), rss_kb: $rss}'
	done
	kill "$pid"
	wait "$pid"
}

# 2. References: a program that sets nothing, one that sets one policy.
attach passthru >/dev/null
percall empty 0 pass_established
detach
attach tsq_fixed limit 16384 >/dev/null
percall fixed 0 fixed_established
detach
attach tsq_fixed limit 16384 budget 16777216 >/dev/null
percall fixed-budget 0 fixed_established
detach

# The policy program with a policy that joins no group.
"$TSQCTL" attach && "$TSQCTL" set /bulk limit 16k
percall policy-limit 1 policy_established
"$TSQCTL" reset 2>/dev/null

# 2 to 4. Policies come from a tsqd file: /bulk, and N-1 others.
mkdir $cgr/many
for n in 1 100 10000; do
	[ "$n" = 1 ] || mkdir -p $(printf "$cgr/many/c%d " $(seq $((n - 1))))
	{ echo "/bulk budget 16m"
	  for i in $(seq $((n - 1))); do echo "/many/c$i limit 16k"; done; } >"$TMP/tsq.conf"
	tsqd_idle "$n"
	# tsqd left the policy and the link in force.
	percall policy "$n" policy_established
	policy_change "$n"
	"$TSQCTL" reset 2>/dev/null
done
rmdir $cgr/many/c* $cgr/many $cgr/bulk 2>/dev/null
finish
