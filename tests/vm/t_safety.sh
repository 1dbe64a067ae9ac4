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
	"$OUT/stallwatch" 5201 5201 >"$TMP/$prog.sw" 2>&1 &
	sw=$!
	flow "$prog" 4 2
	kill -INT $sw
	wait $sw
	calls=$(hook_calls)
	detach
	gp=$(goodput "$prog")
	# Smallest per-second rate of any stream: a stall shows as 0.
	minint=$(jq '[.intervals[].streams[].bits_per_second] | min / 1e6' \
		"$TMP/$prog.json")
	log "$prog: $gp Mbit/s, slowest stream-second $minint Mbit/s, $calls calls"
	check "$prog: hook called" 'c > 0' c="$calls"
	check "$prog: no stream-second without progress" 'm > 1' m="$minint"
	log "$prog: $(cat "$TMP/$prog.sw")"
	check "$prog: no socket held unsent data for a second (stallwatch)" 'n > 10 && w < 1000' \
		n="$(sed -n 's/^stallwatch: \([0-9]*\) samples.*/\1/p' "$TMP/$prog.sw")" \
		w="$(sed -n 's/.*longest wait \([0-9]*\) ms.*/\1/p' "$TMP/$prog.sw")"
	check "$prog: goodput" 'g > 5' g="$gp"
done

# Back to stock afterwards: nothing lingers.
measure after 3
check "stock after the misbehaving programs" 'p >= 60000' p="$(peak after)"
check_dmesg safety
finish
