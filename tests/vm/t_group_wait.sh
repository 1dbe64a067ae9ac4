#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# group_wait: no socket of a TSQ group waits without bound. 8 bulk flows
# and one slow sender, a request/response flow (rrprobe: 64 B every
# 10 ms), share one group's budget of 32 KiB behind the 100 Mbit/s TBF
# for 60 s. The group serves its waiters in turn, so the slow sender's
# requests wait behind the other waiters' skbs, never behind room that
# bulk senders took first:
# - the slow sender's p99 in the group stays within 4 times that of the
#   same probe outside the group, behind the same bottleneck in the same
#   run (the group's turn adds at most its waiters' skbs, ~8 x 0.7 ms);
# - stallwatch, over the 60 s and all 9 sockets: no socket held unsent
#   data a third as long as a 3-s blackhole did.
# The group on a device that all but stops is the selftest's
# (tcp_tsq/group_stopped, t_selftests).
. "$(dirname "$0")/lib.sh"

cgr=/sys/fs/cgroup
secs=60
tbf_on 100mbit
iperf_server 5201
ip netns exec "$TSQ_NETNS" "$OUT/rrprobe" -s 5202 &
ip netns exec "$TSQ_NETNS" "$OUT/rrprobe" -s 5220 &
mkdir -p $cgr/bulk $cgr/lat

# What a real stall looks like to stallwatch in this run.
stall_reference hole 5201

"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /bulk budget 32k || fail "tsqctl set /bulk budget 32k"
stallwatch_begin gw 5201 5202
(echo $BASHPID >$cgr/bulk/cgroup.procs
 exec "$OUT/rrprobe" -c "$TSQ_PEER_IP" 5202 "$((secs - 2))") >"$TMP/rr_in" 2>&1 &
rr_in=$!
(echo $BASHPID >$cgr/lat/cgroup.procs
 exec "$OUT/rrprobe" -c "$TSQ_PEER_IP" 5220 "$((secs - 2))") >"$TMP/rr_out" 2>&1 &
rr_out=$!
CG=$cgr/bulk flow gw "$secs" 8 -p 5201
wait "$rr_in" "$rr_out"
stallwatch_end gw
"$TSQCTL" -j stats >"$TMP/stats.json"

log "slow sender in the group: $(cat "$TMP/rr_in")"
log "the same probe outside it: $(cat "$TMP/rr_out")"
log "bulk: $(goodput gw) Mbit/s;" \
	"group throttles $(jq '[.[] | select(.cgroup == "/bulk") | .group_throttles] | add // 0' "$TMP/stats.json")"
# rr FILE FIELD: n, p50, p99 or max of rrprobe's line.
rr() { awk -v f="$2" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' "$TMP/$1"; }
check "group_wait: the slow sender made its requests" 'n > 1000' n="$(rr rr_in n)"
check "group_wait: the bulk flows moved data" 'g > 10' g="$(goodput gw)"
check "group_wait: the slow sender's p99 in the group <= 4 x outside it" \
	'i > 0 && o > 0 && i <= 4 * o' i="$(rr rr_in p99)" o="$(rr rr_out p99)"
check_no_stall gw hole

"$TSQCTL" reset
pkill -f "rrprobe -s"
rmdir $cgr/bulk $cgr/lat
check_dmesg group_wait
finish
