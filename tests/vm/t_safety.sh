#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Programs that return nonsense (0, U32_MAX, alternating) must not stall a
# socket or upset the kernel: it clamps the limit to one skb and the TSO
# count to [1, sk_gso_max_segs]. Every second of every flow moves data,
# and no socket holds unsent data a third as long as a blackhole makes it
# (stallwatch, see t_race). Rates are checked against stock's in the same
# run: a tenth of its goodput and of its slowest stream-second, floors
# that a stall (0) fails and a loaded machine does not.
. "$(dirname "$0")/lib.sh"

tbf_on 100mbit
iperf_server
flow stock 4 2
stock_gp=$(goodput stock)
stock_min=$(jq '[.intervals[].streams[].bits_per_second] | min / 1e6' "$TMP/stock.json")
log "stock: $stock_gp Mbit/s, slowest stream-second $stock_min Mbit/s"
stall_reference hole 5201

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
	check "$prog: no stream-second without progress (a tenth of stock's slowest)" \
		'm >= s / 10 && s > 0' m="$minint" s="$stock_min"
	check_no_stall "$prog" hole
	check "$prog: goodput, a tenth of stock's" 'g >= s / 10 && s > 0' g="$gp" s="$stock_gp"
done

# Back to stock afterwards: nothing lingers.
measure after 3
check "stock after the misbehaving programs" 'p >= 60000' p="$(peak after)"
check_dmesg safety
finish
