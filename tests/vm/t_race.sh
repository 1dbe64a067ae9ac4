#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Attach, update and detach from 2 threads x 1000 while 4 flows run: every
# flow keeps moving every second, and the kernel stays quiet. Run it on the
# lockdep build with `make check-vm DEBUG=1 TESTS=race`. The last second is
# left out: iperf3 reports the one it was interrupted in.
. "$(dirname "$0")/lib.sh"

tbf_on 100mbit
iperf_server
flow race 300 4 &
pid=$!
sleep 2
start=$(date +%s)
if "$HOOK_TEST" race; then pass "race: 2x1000 attach/update/detach"; else fail "race: hook_test"; fi
log "race loop took $(( $(date +%s) - start )) s"
# iperf3 still writes its JSON when interrupted.
pkill -INT -f "^iperf3 -c"
wait "$pid"
minint=$(jq '[.intervals[:-1][] | select(.sum.seconds > 0.5) | .streams[].bits_per_second] | min / 1e6' \
	"$TMP/race.json")
log "per-second Mbit/s of each stream: $(jq -c '[.intervals[] | [.streams[].bits_per_second / 1e6 | floor]]' "$TMP/race.json")"
log "retransmits per second: $(jq -c '[.intervals[] | [.streams[].retransmits]]' "$TMP/race.json")"
check "race: no stream-second without progress" 'm > 0.5' m="$minint"
check_dmesg race
finish
