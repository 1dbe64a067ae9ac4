#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Only sockets whose cgroup has a policy pay for the hook. With tsq_cgroup
# attached and kernel.bpf_stats_enabled, a flow from a cgroup without a
# policy adds no run of the tcp_tsq_ops programs; a flow from a policy
# cgroup does; a running flow is opted in when its cgroup gains a policy
# and out when it loses it (policy_sync).
. "$(dirname "$0")/lib.sh"

BPFTOOL=$OUT/tools/bpftool
cgr=/sys/fs/cgroup
mkdir -p $cgr/pol $cgr/free $cgr/late

# Runs of both tcp_tsq_ops programs (names cut to 15 characters).
runs() {
	"$BPFTOOL" -j prog show | jq '[.[] | select(.name == "policy_tsq_limi" or
		.name == "policy_tso_segs") | .run_cnt // 0] | add // 0'
}

tbf_on 100mbit
iperf_server
sysctl -qw kernel.bpf_stats_enabled=1
"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /pol limit 8k tso 8k || fail "tsqctl set /pol"

r0=$(runs)
CG=$cgr/free measure free 4
r1=$(runs)
CG=$cgr/pol measure pol 4
r2=$(runs)
log "runs: $((r1 - r0)) during the /free flow ($(goodput free) Mbit/s, peak $(peak free) B)," \
	"$((r2 - r1)) during the /pol flow (peak $(peak pol) B)"
check "no policy: no program run for the flow" 'd == 0' d=$((r1 - r0))
check "no policy: stock queue" 'p >= 60000' p="$(peak free)"
check "policy: the programs ran" 'd > 1000' d=$((r2 - r1))
check "policy: limited queue" 'p <= 20480' p="$(peak pol)"

# A running flow follows its cgroup's policy both ways.
CG=$cgr/late flow late 12 1 &
pid=$!
sample late "$pid" &
spl=$!
sleep 3
a=$(runs)
sleep 1
b=$(runs)
"$TSQCTL" set /late limit 8k tso 8k || fail "tsqctl set /late"
sleep 3
c=$(runs)
sleep 1
d=$(runs)
"$TSQCTL" unset /late || fail "tsqctl unset /late"
sleep 1
e=$(runs)
sleep 1
f=$(runs)
wait "$pid" "$spl"
log "running flow: $((b - a)) runs/s before set, $((d - c)) after, $((f - e)) after unset;" \
	"peak $(peak late 1000 3000) B before, $(peak late 4500 7000) B after set"
check "running flow, no policy yet: no runs" 'n == 0' n=$((b - a))
check "running flow opted in by set" 'n > 100' n=$((d - c))
check "running flow limited after set" 'p <= 20480' p="$(peak late 4500 7000)"
check "running flow opted out by unset" 'n == 0' n=$((f - e))

"$TSQCTL" reset
sysctl -qw kernel.bpf_stats_enabled=0
check_dmesg optin
finish
