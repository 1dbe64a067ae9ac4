#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Programs that return nonsense (0, U32_MAX, alternating) must not stall a
# socket or upset the kernel: it clamps the limit to one skb and the TSO
# count to [1, sk_gso_max_segs]. Every second of every flow moves data,
# and no socket holds unsent data for a second (stallwatch, see t_race).
. "$(dirname "$0")/lib.sh"

tbf_on 100mbit
iperf_server

for prog in ret_zero ret_max ret_alt limit_only; do
	attach "$prog"
	stallwatch_begin "$prog" 5201 5201
	flow "$prog" 4 2
	stallwatch_end "$prog"
	calls=$(hook_calls)
	detach
	gp=$(goodput "$prog")
	# Smallest per-second rate of any stream: a stall shows as 0.
	minint=$(jq '[.intervals[].streams[].bits_per_second] | min / 1e6' \
		"$TMP/$prog.json")
	log "$prog: $gp Mbit/s, slowest stream-second $minint Mbit/s, $calls calls"
	check "$prog: hook called" 'c > 0' c="$calls"
	check "$prog: no stream-second without progress" 'm > 1' m="$minint"
	check_no_stall "$prog"
	check "$prog: goodput" 'g > 5' g="$gp"
done

# Back to stock afterwards: nothing lingers.
measure after 3
check "stock after the misbehaving programs" 'p >= 60000' p="$(peak after)"
check_dmesg safety
finish
