#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Programs that set nonsense (1 byte of limit, TSO and budget, U32_MAX of
# each, the two by turns in one group, arguments the kfunc refuses) must
# not stall a socket or upset the kernel: it bounds the limit below by
# two skbs (or stock's), a TSO packet to one segment at least, and lets a
# group with nothing queued send. Every second of every flow moves data,
# and no socket holds unsent data for a second (stallwatch, see t_race).
. "$(dirname "$0")/lib.sh"

tbf_on 100mbit
iperf_server
# What a real stall looks like to stallwatch in this run (lib.sh).
stall_reference hole 5201

for prog in set_min set_max set_alt set_bad; do
	attach "$prog"
	stallwatch_begin "$prog" 5201 5201
	flow "$prog" 4 2
	stallwatch_end "$prog"
	calls=$(hook_calls)
	# Before the detach, which unpins the program's data.
	refused=$("$HOOK_TEST" refused "$PIN" 2>/dev/null)
	detach
	gp=$(goodput "$prog")
	# Smallest per-second rate of any stream: a stall shows as 0.
	minint=$(jq '[.intervals[].streams[].bits_per_second] | min / 1e6' \
		"$TMP/$prog.json")
	log "$prog: $gp Mbit/s, slowest stream-second $minint Mbit/s, $calls calls"
	check "$prog: hook called" 'c > 0' c="$calls"
	check "$prog: no stream-second without progress" 'm > 1' m="$minint"
	check_no_stall "$prog" hole
	check "$prog: goodput" 'g > 1' g="$gp"
	[ "$prog" != set_bad ] ||
		check "set_bad: the kfunc refused all 4 calls, each time" 'r == 4 * c' \
			r="$refused" c="$calls"
done

# Back to stock afterwards: nothing lingers.
measure after 3
check "stock after the misbehaving programs" 'p >= 60000' p="$(peak after)"
check_dmesg safety
finish
