#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the hook is for: behind a 100 Mbit/s TBF on virtio-net, one cubic
# flow keeps ~140 KB in the qdisc (two 64 KB TSO skbs). tsq_fixed with an
# 8 KB limit and 8 KB TSO packets keeps it under 20 KB, and clearing the
# policy restores the stock queue mid-flow.
. "$(dirname "$0")/lib.sh"

tbf_on 100mbit
iperf_server

measure stock 8
stock_peak=$(peak stock) stock_gp=$(goodput stock)
log "stock: peak $stock_peak B, mean $(mean stock 1000) B, $stock_gp Mbit/s"

attach tsq_fixed limit 8192 tso 8192
measure hook 8
hook_peak=$(peak hook) hook_gp=$(goodput hook) calls=$(hook_calls)
log "hook: peak $hook_peak B, mean $(mean hook 1000) B, $hook_gp Mbit/s, $calls policies set"
check "stock queue is large (setup sanity)" 'p >= 60000' p="$stock_peak"
check "hook: peak backlog <= 24.6 KB" 'p <= 24600' p="$hook_peak"
# The issue's target is 90 % of stock. Throughput under TCG swings with
# the host's load (0.54 to 0.92 measured), so the ratio is reported, not
# asserted: speed targets belong in bench/. The test asserts the queue.
ratio=$(awk -v h="$hook_gp" -v s="$stock_gp" 'BEGIN { printf "%.2f", h / s }')
log "hook/stock goodput $ratio (target 0.90: $(awk -v r="$ratio" 'BEGIN { print (r >= 0.9 ? "met" : "not met") }'))"
check "hook: the flow moved data (a quarter of stock's goodput or more)" \
	'h >= s / 4 && s > 0' h="$hook_gp" s="$stock_gp"

# What users do today, for comparison in the same run: the global sysctl
# and the device's GSO size. Its goodput swings as much (0.40 to 1.1 of
# stock seen): an 8 KB queue leaves the link idle whenever TX completion
# under TCG takes longer than the ~1 ms the queue lasts.
"$HOOK_TEST" cfg "$PIN" limit 0 tso 0 && detach || fail "hook_test cfg, detach"
sysctl -qw net.ipv4.tcp_limit_output_bytes=8192
ip link set dev "$TSQ_DEV" gso_max_size 8192
measure global 8
sysctl -qw net.ipv4.tcp_limit_output_bytes=1048576
ip link set dev "$TSQ_DEV" gso_max_size 65536
log "global 8k + gso_max_size 8k: peak $(peak global) B, $(goodput global) Mbit/s" \
	"($(awk -v h="$(goodput global)" -v s="$stock_gp" 'BEGIN { printf "%.2f", h / s }') of stock)"
check "hook: policies were set" 'c > 0' c="$calls"

# Clear the policy 5 s into a 12 s flow; the same connection gets the
# stock queue.
attach tsq_fixed limit 8192 tso 8192
flow switch 12 1 &
pid=$!
sample switch "$pid" &
spl=$!
sleep 5
"$HOOK_TEST" cfg "$PIN" limit 0 tso 0 && hook_sync || fail "hook_test cfg, sync"
wait "$pid" "$spl"
detach
before=$(peak switch 1000 5000) after=$(peak switch 6500 12000)
log "switch: peak $before B with the policy, $after B after it was cleared"
check "the flow under the policy: backlog <= 24.6 KB" 'p <= 24600' p="$before"
check "after clearing it: stock backlog again" 'p >= 60000' p="$after"
check "one connection throughout" 'n == 1' \
	n="$(jq '.start.connected | length' "$TMP/switch.json")"
check_dmesg effect
finish
