#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Only sockets whose cgroup has a policy pay for the hook. With tsq_cgroup
# attached and kernel.bpf_stats_enabled, a flow from a cgroup without a
# policy adds no run of the tcp_tsq_ops programs; a flow from a policy
# cgroup does. After a change, tsqctl's policy_sync opts the running
# connections of its netns in or out: a running flow whose cgroup gains a
# policy starts running the programs and gets the small queue, one whose
# cgroup loses it stops running them.
. "$(dirname "$0")/lib.sh"

BPFTOOL=$OUT/tools/bpftool
cgr=/sys/fs/cgroup
mkdir -p $cgr/pol $cgr/free $cgr/late

# Runs of both tcp_tsq_ops programs.
runs() {
	"$BPFTOOL" -j prog show | jq '[.[] | select(.name == "policy_tsq_limit" or
		.name == "policy_tso_segs") | .run_cnt // 0] | add // 0'
}

check "bpftool runs in the VM (the counts below come from it)" 'v != ""' \
	v="$("$BPFTOOL" version 2>/dev/null | head -1)"
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

# Running flows follow set and unset. The samples must fall inside the
# flows: alive() records whether the flow still ran after the second one
# (a loaded host slows bpftool down by seconds); it is stopped after.
alive() { kill -0 "$1" 2>/dev/null && echo 1 || echo 0; }
sleep 1
CG=$cgr/late flow late 60 1 &
pid=$!
sample late "$pid" &
spl=$!
sleep 2
a=$(runs)
sleep 2
b=$(runs)
"$TSQCTL" set /late limit 8k tso 8k || fail "tsqctl set /late"
sleep 1
c=$(runs)
sleep 2
d=$(runs)
"$TSQCTL" unset /late || fail "tsqctl unset /late"
sleep 1
e=$(runs)
sleep 2
f=$(runs)
la=$(alive "$pid")
kill -INT "$pid" 2>/dev/null
wait "$pid" "$spl"
log "running flow: $((b - a)) runs before set, $((d - c)) after, $((f - e)) after unset;" \
	"peak $(peak late) B"
check "running flow, no policy yet: no runs" 'alive == 1 && n == 0' alive="$la" n=$((b - a))
check "running flow opted in by set" 'alive == 1 && n > 100' alive="$la" n=$((d - c))
check "running flow opted out by unset" 'alive == 1 && n == 0' alive="$la" n=$((f - e))

"$TSQCTL" reset
sysctl -qw kernel.bpf_stats_enabled=0
check_dmesg optin
finish
