#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-cgroup policy through tsqctl and tsq_cgroup: different cgroups get
# different queues in the same run, children inherit, a child's own policy
# wins, changes reach running flows that opted in, bad input changes nothing, reset
# restores stock.
. "$(dirname "$0")/lib.sh"

tbf_on 100mbit
iperf_server
cgr=/sys/fs/cgroup
mkdir -p $cgr/bulk-a/child $cgr/bulk-b $cgr/idle $cgr/paced

check "tsqctl status: hook present" 'h == "true"' \
	h="$("$TSQCTL" -j status | jq -r .hook)"
check "tsqctl status: napi_tx on the virtio NIC" 'n == "true"' \
	n="$("$TSQCTL" -j status | jq -r --arg d "$TSQ_DEV" '.nics[] | select(.dev == $d) | .napi_tx')"
check "tsqctl status: BQL limit of its TX queue" 'b >= 0' \
	b="$("$TSQCTL" -j status | jq -r --arg d "$TSQ_DEV" '.nics[] | select(.dev == $d) | .bql["tx-0"]')"
"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /bulk-a limit 8k tso 8k || fail "tsqctl set /bulk-a"
"$TSQCTL" set /idle limit 4k || fail "tsqctl set /idle"
check "show lists both policies" 'n == 2' n="$("$TSQCTL" -j show | jq length)"

CG=$cgr/bulk-a measure a 5
CG=$cgr/bulk-b measure b 5
CG=$cgr/bulk-a/child measure inherit 5
log "bulk-a $(peak a) B $(goodput a) Mbit/s; bulk-b $(peak b) B $(goodput b) Mbit/s;" \
	"bulk-a/child (inherits) $(peak inherit) B"
check "policy cgroup: peak backlog <= 24.6 KB" 'p <= 24600' p="$(peak a)"
check "cgroup without policy: stock backlog" 'p >= 60000' p="$(peak b)"
check "child inherits its parent's policy" 'p <= 24600' p="$(peak inherit)"

"$TSQCTL" set /bulk-a/child limit 256k
CG=$cgr/bulk-a/child measure own 5
check "child's own policy wins" 'p >= 60000' p="$(peak own)"

# limit-us: a time at the socket's rate, kept in the socket by the kernel
# (series v3): the flow's sockets carry limit_us 1000, read mid-flow
# through the tsq_socks iterator. Paced by SO_MAX_PACING_RATE (iperf3
# --fq-rate, 40 Mbit/s: 5000 bytes for 1000 us), bbr's own pacing keeps
# its queue below that, so TSQ seldom throttles it: the limit in force is
# not what this checks, only that the policy reached the socket and the
# flow still moves.
# The same flow without a policy first, for its goodput in this run.
socks_on
CC=bbr CG=$cgr/paced measure paced_stock 5 1 --fq-rate 40000000
"$TSQCTL" set /paced limit-us 1000 || fail "tsqctl set /paced limit-us 1000"
CC=bbr CG=$cgr/paced measure paced 5 1 --fq-rate 40000000 &
mp=$!
sleep 2
us=$(awk '$2 == 5201 { print $6 }' /sys/fs/bpf/tsq_socks | sort -n | tail -1)
wait $mp
log "bbr at --fq-rate 40000000 with limit-us 1000: $(goodput paced) Mbit/s" \
	"(without: $(goodput paced_stock)), the socket's limit_us $us"
check "limit-us 1000: the flow's sockets carry it" 'u == 1000' u="${us:-0}"
check "limit-us 1000: the flow moved data (a quarter of the same flow's without)" \
	'g >= s / 4 && s > 0' g="$(goodput paced)" s="$(goodput paced_stock)"

# A running flow that opted in follows a change of its policy at its next
# transmit, without reconnecting: bulk-a's 8 KB limit raised to 256 KB.
CG=$cgr/bulk-a flow live 10 1 &
pid=$!
sample live "$pid" &
spl=$!
sleep 4
"$TSQCTL" set /bulk-a limit 256k
wait "$pid" "$spl"
"$TSQCTL" set /bulk-a limit 8k tso 8k
log "live: peak $(peak live 1000 4000) B before the change, $(peak live 5500 10000) B after"
check "running flow before the change: <= 24.6 KB" 'p <= 24600' p="$(peak live 1000 4000)"
check "running flow after the change to 256 KB: stock-sized queue" 'p >= 60000' p="$(peak live 5500 10000)"

stats=$("$TSQCTL" -j stats)
log "stats: $stats"
check "stats: throttles for the limited cgroup" 't > 0' \
	t="$(jq '[.[] | select(.cgroup == "/bulk-a") | .throttles] | add // 0' <<<"$stats")"
check "stats: nothing for the idle cgroup" 't == 0' \
	t="$(jq '[.[] | select(.cgroup == "/idle") | .throttles] | add // 0' <<<"$stats")"

# Bad input: one line, exit 2, nothing changed.
before=$("$TSQCTL" show /bulk-a)
for args in "limit -1" "limit inf" "limit 0x1p20" "limit 1e9" "limit 11gb" \
	"tso 0" "limit" "speed 1k" "limit 8k limit 8k"; do
	# shellcheck disable=SC2086
	"$TSQCTL" set /bulk-a $args 2>"$TMP/err"
	rc=$?
	check "set /bulk-a $args: exit 2, one line" 'rc == 2 && n == 1' rc=$rc \
		n="$(wc -l <"$TMP/err")"
done
for tgt in /../etc /bulk-a/../../x /nonexistent /etc nope.service; do
	"$TSQCTL" set "$tgt" limit 8k 2>/dev/null
	check "set $tgt refused" 'rc == 2' rc=$?
done
check "policy unchanged by bad input" 'a == b' a="$before" \
	b="$("$TSQCTL" show /bulk-a)"

# Names are the user's: JSON output stays valid with a quote in one.
mkdir "$cgr/q\"x"
"$TSQCTL" set "/q\"x" limit 8k || fail "set a cgroup with a quote in its name"
check "JSON output escapes cgroup names" 'n == 1' \
	n="$("$TSQCTL" -j show | jq '[.[] | select(.cgroup == "/q\"x")] | length')"
rmdir "$cgr/q\"x"

# No depth escapes a policy: a socket 40 levels below /deep (a user
# with a delegated subtree can nest that deep; 16 was the bound).
deep=$cgr/deep
for i in $(seq 40); do deep=$deep/d$i; done
mkdir -p "$deep"
"$TSQCTL" set /deep limit 8k tso 8k || fail "tsqctl set /deep"
CG=$deep measure deep 5
log "40 levels below /deep: peak $(peak deep) B, $(goodput deep) Mbit/s"
check "a socket 40 levels below its policy is limited: peak <= 24.6 KB" 'p <= 24600' \
	p="$(peak deep)"
while [ "$deep" != "$cgr" ]; do rmdir "$deep"; deep=${deep%/*}; done

"$TSQCTL" unset /bulk-a/child
"$TSQCTL" reset || fail "tsqctl reset"
CG=$cgr/bulk-a measure after_reset 4
check "after reset: stock backlog" 'p >= 60000' p="$(peak after_reset)"
"$TSQCTL" show 2>/dev/null
check "show after reset: not attached" 'rc == 1' rc=$?
rmdir $cgr/bulk-a/child $cgr/bulk-a $cgr/bulk-b $cgr/idle $cgr/paced
check_dmesg cgroup
finish
