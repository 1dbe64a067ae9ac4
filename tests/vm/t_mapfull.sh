#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The per-cgroup maps full: a cgroup whose tsq_stats entry finds no room
# has no statistics. Its policy and budget still hold (the kernel keeps
# them in the sockets, series v3), but the missing statistics must not
# pass in silence: the refused inserts are counted in the kernel
# (tsq_map_full) and shown by tsqctl stats and status and on tsqd's
# /metrics. The map is filled by mapfill with ids of no cgroup, as
# 65,536 cgroups with policies would fill it.
. "$(dirname "$0")/lib.sh"

tbf_on 100mbit
iperf_server
cgr=/sys/fs/cgroup
mkdir -p $cgr/shared $cgr/late
"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /shared budget 32k || fail "tsqctl set /shared budget 32k"
"$TSQCTL" set /late budget 32k || fail "tsqctl set /late budget 32k"

# While there is room.
CG=$cgr/shared measure shared 4 4
st=$("$TSQCTL" -j status)
check "room in the maps: nothing refused" 'n == 0' n="$(jq '.map_full.stats' <<<"$st")"

fill=$("$OUT/mapfill" /sys/fs/bpf/tsq/stats)
log "mapfill stats: $fill"
CG=$cgr/late measure late 4 4
st=$("$TSQCTL" -j status)
n=$(jq '.map_full.stats' <<<"$st")
log "4 flows under budget 32k: qdisc peak $(peak shared 1000) B with room in the maps," \
	"$(peak late 1000) B without; refused inserts: $(jq -c .map_full <<<"$st")"
check "tsq_stats full: the refused inserts counted" 'f == 1 && n > 0' \
	f="$([[ $fill == *full* ]] && echo 1)" n="$n"
check "tsq_stats full: the budget still bounds the qdisc (32 KiB + 4 skbs of 64 KiB)" \
	'p > 0 && p <= 32768 + 4 * 65536' p="$(peak late 1000)"
"$TSQCTL" stats >"$TMP/stats.txt"
check "tsqctl stats says the maps are full, in one line" 'n == 1' \
	n="$(grep -c '^per-cgroup maps full: [1-9][0-9]* statistics' "$TMP/stats.txt")"
"$TSQCTL" status >"$TMP/status.txt"
check "tsqctl status too" 'n == 1' n="$(grep -c '^per-cgroup maps full:' "$TMP/status.txt")"

# tsqd adopts the link and serves the count.
: >"$TMP/tsq.conf"
"$OUT/tsqd" -c "$TMP/tsq.conf" -d "$TMP/none" -i 0 2>"$TMP/tsqd.log" &
tsqd=$!
until_ok 20000 curl -sf http://127.0.0.1:9731/metrics >/dev/null
m=$(curl -sf http://127.0.0.1:9731/metrics)
check "/metrics: tsq_map_full_total{map=\"stats\"} as status counts it" 'm >= n && n > 0' \
	m="$(sed -n 's/^tsq_map_full_total{map="stats"} //p' <<<"$m")" n="$n"
kill $tsqd
wait $tsqd
"$TSQCTL" reset
rmdir $cgr/shared $cgr/late
check_dmesg mapfull
finish
