#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bpftrace scripts in tools/bpftrace, run as users run them, under a
# limited flow in /bulk and an unlimited one in /free: their output names
# the cgroups and carries plausible numbers.
. "$(dirname "$0")/lib.sh"

bt=$TOP/tools/bpftrace
tbf_on 100mbit
iperf_server 5201
iperf_server 5202
cgr=/sys/fs/cgroup
mkdir -p $cgr/bulk $cgr/free
"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /bulk limit 8k tso 8k

# run SCRIPT: the script for ~5 s under both flows, its output in $TMP/SCRIPT.
run() {
	local pid
	"$bt/$1" >"$TMP/$1" 2>&1 &
	pid=$!
	# bpftrace takes its time to attach under TCG.
	for _ in $(seq 150); do grep -q Ctrl-C "$TMP/$1" && break; sleep 0.2; done
	CG=$cgr/bulk flow bulk 5 1 &
	CG=$cgr/free flow free 5 1 -p 5202
	wait %2 2>/dev/null
	kill -INT $pid
	wait $pid
	sed 's/^/# /' "$TMP/$1" | head -40
}

run tsq-throttles.bt
# @throttles[bulk]: 1234 (keyed by the cgroup's name)
bulk=$(awk -F': ' '/^@throttles\[bulk\]/ { s += $2 } END { print s + 0 }' "$TMP/tsq-throttles.bt")
check "tsq-throttles.bt: throttles per second for /bulk" 'n > 0' n="$bulk"
check "tsq-throttles.bt: a line a second" 'n >= 3' \
	n="$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$TMP/tsq-throttles.bt")"

run tsq-wmem.bt
check "tsq-wmem.bt: a histogram for /bulk" 'n == 1' \
	n="$(grep -c '^@wmem_bytes\[bulk\]' "$TMP/tsq-wmem.bt")"
# The buckets of /bulk's histogram: none past 64K (limit 8k, two-skb floor).
maxb=$(awk '/^@wmem_bytes\[bulk\]/ { on = 1; next } /^@/ { on = 0 }
	on && /^\[/ { gsub(/[\[\],)]/, " "); print $1 }' "$TMP/tsq-wmem.bt" | tail -1)
log "largest /bulk bucket starts at ${maxb:-none}"
check "tsq-wmem.bt: /bulk's sk_wmem_alloc at throttle under 64K" 'b != "" && b !~ /M/ && (b + 0) < 64' \
	b="${maxb:-}"

run tsq-limits.bt
# @limit_bytes[bulk, 1]: count 123, average 8192, total 1007616
lim=$(sed -n 's/^@limit_bytes\[bulk, 1\]: count [0-9]*, average \([0-9]*\),.*/\1/p' \
	"$TMP/tsq-limits.bt" | sort -n | tail -1)
tso=$(sed -n 's/^@tso_bytes\[bulk\]: count [0-9]*, average \([0-9]*\),.*/\1/p' \
	"$TMP/tsq-limits.bt" | sort -n | tail -1)
check "tsq-limits.bt: /bulk's limit between 8 KB and the two-skb floor" \
	'l >= 8192 && l <= 65536' l="${lim:-0}"
check "tsq-limits.bt: /bulk's TSO packets at most 8 KB" 't > 0 && t <= 8192' t="${tso:-0}"
# /free has no policy: its sockets keep the kernel's own limit.
free=$(sed -n 's/^@limit_bytes\[free, 0\]: count [0-9]*, average \([0-9]*\),.*/\1/p' \
	"$TMP/tsq-limits.bt" | sort -n | tail -1)
check "tsq-limits.bt: /free keeps a stock-sized limit" 'f >= 32768' f="${free:-0}"

"$TSQCTL" reset
rmdir $cgr/bulk $cgr/free
check_dmesg bpftrace
finish
