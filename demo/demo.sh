#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tsq demo, run inside the VM by `make demo`: 8 cubic bulk flows and a
# ping share a 100 Mbit/s bottleneck on virtio-net. First with stock 6.12
# TSQ, then with the tcp_tsq_ops hook holding every socket to 8 KB in the
# queue and 8 KB TSO packets (tsq_fixed). Per-cgroup policy comes with
# tsqd/tsqctl.
. "$(dirname "$0")/../tests/vm/lib.sh"

secs=${DEMO_SECONDS:-8}
tbf_on 100mbit
iperf_server

run() {
	ping -q -i 0.05 -w "$secs" "$TSQ_PEER_IP" >"$TMP/$1.ping" &
	measure "$1" "$secs" 8
	wait
	printf '%-22s peak backlog %7d B  mean %7d B  goodput %5.1f Mbit/s  ping %s ms\n' \
		"$2" "$(peak "$1")" "$(mean "$1" 1000)" "$(goodput "$1")" \
		"$(sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p' "$TMP/$1.ping")"
}

echo "8 flows + ping, 100 Mbit/s TBF on $TSQ_DEV (virtio-net), ${secs} s each"
run stock "stock 6.12"
attach tsq_fixed limit 8192 tso 8192
run hook "tsq limit 8k tso 8k"
detach
rm -rf "$TMP"
