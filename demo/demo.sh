#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tsq demo, run inside the VM by `make demo`: 8 cubic bulk flows in
# cgroup /bulk, and a ping and a TCP request/response probe in cgroup /lat,
# share a 100 Mbit/s bottleneck on virtio-net. tsqd runs throughout; first
# stock 6.12 (no policy), then a per-cgroup policy on /bulk only, set with
# tsqctl; last, the statistics.
. "$(dirname "$0")/../tests/vm/lib.sh"

secs=${DEMO_SECONDS:-8}
cgr=/sys/fs/cgroup
mkdir -p $cgr/bulk $cgr/lat
tbf_on 100mbit
iperf_server
ip netns exec "$TSQ_NETNS" "$OUT/rrprobe" -s 7000 &
rrsrv=$!
: >"$TMP/tsq.conf"
"$OUT/tsqd" -c "$TMP/tsq.conf" -d "$TMP/none.d" -i 0 2>"$TMP/tsqd.log" &
tsqd=$!
for _ in $(seq 100); do grep -q 'statistics on' "$TMP/tsqd.log" && break; sleep 0.1; done
sed 's/^/# /' "$TMP/tsqd.log"

run() {
	(echo $BASHPID >$cgr/lat/cgroup.procs
	 exec ping -q -i 0.05 -w "$secs" "$TSQ_PEER_IP") >"$TMP/$1.ping" &
	local ping=$!
	(echo $BASHPID >$cgr/lat/cgroup.procs
	 exec "$OUT/rrprobe" -c "$TSQ_PEER_IP" 7000 "$((secs - 1))") >"$TMP/$1.rr" &
	local rr=$!
	CG=$cgr/bulk measure "$1" "$secs" 8
	wait "$ping" "$rr"
	printf '%-22s backlog peak %7d B mean %7d B  goodput %5.1f Mbit/s\n' \
		"$2" "$(peak "$1")" "$(mean "$1" 1000)" "$(goodput "$1")"
	printf '%-22s ping avg %s ms; TCP request/response (ms): %s\n' "" \
		"$(sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p' "$TMP/$1.ping")" "$(cat "$TMP/$1.rr")"
}

echo "8 flows in /bulk, ping and TCP request/response in /lat, 100 Mbit/s TBF on $TSQ_DEV (virtio-net), ${secs} s each"
run stock "stock 6.12"
"$TSQCTL" set /bulk budget 32k
echo "# tsqctl set /bulk budget 32k"
run budget "/bulk budget 32k"
"$TSQCTL" set /bulk limit 8k tso 8k
echo "# tsqctl set /bulk limit 8k tso 8k"
run limit "/bulk limit 8k tso 8k"
echo "# tsqctl stats"
"$TSQCTL" stats
"$TSQCTL" reset
wait "$tsqd"
kill "$rrsrv" 2>/dev/null
rmdir $cgr/bulk $cgr/lat
rm -rf "$TMP"
