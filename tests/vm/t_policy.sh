#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A socket gets a policy only if its cgroup, or an ancestor, has one;
# then the kernel keeps it in the socket (tsq_socks shows it) and bounds
# its queue. After a change, tsqctl's policy_sync gives the running
# connections of its netns their cgroup's policy now: a running flow
# whose cgroup gains a policy gets the small queue, one whose cgroup
# loses it gets stock TSQ back.
. "$(dirname "$0")/lib.sh"

cgr=/sys/fs/cgroup
mkdir -p $cgr/pol $cgr/free $cgr/late
tbf_on 100mbit
iperf_server
socks_on
"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /pol limit 8k tso 8k || fail "tsqctl set /pol"

# The policy flags of the flow's sockets (its data and iperf3's control
# connection, made in the same cgroup), once each: "0" for none.
flags() {
	awk '$2 == 5201 { print $4 }' /sys/fs/bpf/tsq_socks | sort -u | tr '\n' ' '
}

for f in free pol; do
	CG=$cgr/$f flow $f 4 1 &
	pid=$!
	(sleep 2; flags >"$TMP/$f.flags") &
	sample $f "$pid"
	wait
done
ffree=$(<"$TMP/free.flags") fpol=$(<"$TMP/pol.flags")
log "flags: /free [$ffree] peak $(peak free) B; /pol [$fpol] peak $(peak pol) B"
check "no policy: no policy in the socket" 'f == "0 "' f="$ffree"
check "no policy: stock queue" 'p >= 60000' p="$(peak free)"
check "policy: in the socket" 'f != "0 " && f != ""' f="$fpol"
# limit 8k: the kernel's floor is two skbs of the policy's 8 KB TSO size
# (8,200 B each), and TSQ's retransmit-queue rule may send one more:
# 24,600 B (21,196 B seen once, 15,140 B usually).
check "policy: limited queue" 'p <= 3 * 8200' p="$(peak pol)"

# Running flows follow set and unset.
CG=$cgr/late flow late 60 1 &
pid=$!
sleep 2
a=$(flags)
"$TSQCTL" set /late limit 8k tso 8k || fail "tsqctl set /late"
sleep 1
b=$(flags)
sleep 2 &
sample lateset $!
"$TSQCTL" unset /late || fail "tsqctl unset /late"
sleep 1
c=$(flags)
alive=$(kill -0 "$pid" 2>/dev/null && echo 1 || echo 0)
kill -INT "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
log "running flow: flags [$a] before set, [$b] after, [$c] after unset; peak $(peak lateset) B while set"
check "running flow, no policy yet" 'alive == 1 && f == "0 "' alive="$alive" f="$a"
check "running flow gets the policy set" 'alive == 1 && f != "0 " && f != ""' alive="$alive" f="$b"
check "running flow under it: limited queue" 'p > 0 && p <= 3 * 8200' p="$(peak lateset)"
check "running flow back to stock by unset" 'alive == 1 && f == "0 "' alive="$alive" f="$c"

"$TSQCTL" reset
check_dmesg policy
finish
