#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tsq demo, run inside the VM by `make demo`: 8 cubic bulk flows in
# cgroup /bulk and a ping in cgroup /lat share a 100 Mbit/s bottleneck on
# virtio-net. First stock 6.12, then with a per-cgroup policy on /bulk only,
# set with tsqctl; last, tsqctl's statistics.
. "$(dirname "$0")/../tests/vm/lib.sh"

secs=${DEMO_SECONDS:-8}
cgr=/sys/fs/cgroup
mkdir -p $cgr/bulk $cgr/lat
tbf_on 100mbit
iperf_server

run() {
	(echo $BASHPID >$cgr/lat/cgroup.procs
	 exec ping -q -i 0.05 -w "$secs" "$TSQ_PEER_IP") >"$TMP/$1.ping" &
	CG=$cgr/bulk measure "$1" "$secs" 8
	wait
	printf '%-24s peak backlog %7d B  mean %7d B  goodput %5.1f Mbit/s  ping avg %s ms\n' \
		"$2" "$(peak "$1")" "$(mean "$1" 1000)" "$(goodput "$1")" \
		"$(sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p' "$TMP/$1.ping")"
}

echo "8 flows in /bulk + ping in /lat, 100 Mbit/s TBF on $TSQ_DEV (virtio-net), ${secs} s each"
run stock "stock 6.12"
"$TSQCTL" attach
"$TSQCTL" set /bulk budget 32k
echo "# tsqctl set /bulk budget 32k"
run budget "/bulk budget 32k"
"$TSQCTL" set /bulk limit 8k tso 8k
echo "# tsqctl set /bulk limit 8k tso 8k"
run limit "/bulk limit 8k tso 8k"
echo "# tsqctl stats"
"$TSQCTL" stats
"$TSQCTL" reset
rmdir $cgr/bulk $cgr/lat
rm -rf "$TMP"
