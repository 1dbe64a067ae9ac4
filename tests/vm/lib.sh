# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests that run inside the VM (sourced by tests/vm/t_*.sh).
# Every check prints PASS or FAIL with the numbers it compared; the file's
# exit code is the number of failures. run-tests counts the lines.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUTPUT:-$TOP/.output}
HOOK_TEST=$OUT/hook_test
PIN=/sys/fs/bpf/tsq_test
RESULTS=/mnt/out/results
TMP=$(mktemp -d)
failed=0

# shellcheck source=tests/vm/netsetup
. "$TOP/tests/vm/netsetup" || exit 1

log() { echo "# $*"; }

pass() { echo "PASS: $1"; echo "PASS $1" >>"$RESULTS"; }
fail() { echo "FAIL: $1"; echo "FAIL $1" >>"$RESULTS"; failed=$((failed + 1)); }

# check NAME AWK-CONDITION: the condition sees the numbers as variables,
# e.g. check "backlog small" "peak <= 24600" peak=$p. (24,600 B, the bound
# the tests use for limit 8k tso 8k: the kernel's floor of two skbs of
# 8,200 B, and one more that TSQ's retransmit-queue rule may send.)
check() {
	local name=$1 cond=$2 kv args=()
	shift 2
	for kv in "$@"; do args+=(-v "$kv"); done
	if awk "${args[@]}" "BEGIN { exit !($cond) }" </dev/null; then
		pass "$name ($*)"
	else
		fail "$name: want $cond ($*)"
	fi
}

# End of a test file: undo what it set up; the exit code counts failures.
finish() {
	cleanup_hook
	ip netns exec "$TSQ_NETNS" pkill iperf3 2>/dev/null
	rm -rf "$TMP"
	exit "$failed"
}

dmesg -C

# No WARN, BUG, oops, lockdep splat or stall since the test began.
check_dmesg() {
	local bad

	bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace|possible circular|stall|blocked for more' | head -5)
	if [ -z "$bad" ]; then
		pass "$1: dmesg clean"
	else
		fail "$1: dmesg: $bad"
	fi
}

# stallwatch_begin NAME PORT_LO PORT_HI, then stallwatch_end NAME: the
# longest time a socket to those ports held unsent data with room in the
# peer's window (tests/vm/stallwatch.c) in between, logged. stall_ms NAME
# is that time; check_no_stall NAME REF checks that it stayed under a
# third of REF's, a 3-s blackhole that the same instrument measured in
# the same run (stall_reference REF).
stallwatch_begin() {
	"$OUT/stallwatch" "$2" "$3" >"$TMP/$1.sw" 2>&1 &
	STALLWATCH_PID=$!
}

stallwatch_end() {
	kill -INT "$STALLWATCH_PID"
	wait "$STALLWATCH_PID"
	log "$1: $(cat "$TMP/$1.sw")"
}

stall_ms() {
	sed -n 's/.*longest wait \([0-9]*\) ms.*/\1/p' "$TMP/$1.sw"
}

check_no_stall() {
	check "$1: no socket held unsent data a third as long as a 3-s blackhole did" \
		'n > 10 && h > 0 && w < h / 3' \
		n="$(sed -n 's/^stallwatch: \([0-9]*\) samples.*/\1/p' "$TMP/$1.sw")" \
		w="$(stall_ms "$1")" h="$(stall_ms "$2")"
}

# stall_reference NAME PORT: what a real stall looks like to stallwatch
# in this run: a flow to PORT through 3 s of blackhole (netem drops every
# packet). Tail loss probes and F-RTO send new data into the hole, so
# the wait measured is shorter than the hole: 1.8-2.2 s. Leaves the
# 100 Mbit/s TBF on. The hole's own length, as timed, in $TMP/NAME.hole.
stall_reference() {
	local pid t0
	stallwatch_begin "$1" "$2" "$2"
	flow "$1" 9 1 -p "$2" &
	pid=$!
	sleep 3
	t0=$(now_ms)
	tc qdisc replace dev "$TSQ_DEV" root netem loss 100%
	sleep 3
	tbf_on 100mbit
	echo $(( $(now_ms) - t0 )) >"$TMP/$1.hole"
	wait $pid
	stallwatch_end "$1"
}

# A 100 Mbit/s bottleneck on the sender's virtio NIC. The limit is large
# so that the queue shows what TCP puts in it, not what TBF drops.
tbf_on() {
	tc qdisc replace dev "$TSQ_DEV" root handle 1: tbf rate "${1:-100mbit}" \
		burst 32kb limit 8mb
}

iperf_server() {
	ip netns exec "$TSQ_NETNS" iperf3 -s -D -p "${1:-5201}" \
		--logfile "$TMP/iperf3-server-${1:-5201}.log"
	sleep 0.3
}

# flow NAME SECONDS [PARALLEL] [extra iperf3 args]: JSON in $TMP/NAME.json
# With CG=/sys/fs/cgroup/x set, the flow's sockets are created in that
# cgroup; CC picks the congestion control (cubic); NETNS, a netns to
# send from.
flow() {
	local name=$1 secs=$2 par=${3:-1} ns=()
	shift 3 2>/dev/null || shift $#
	[ -z "${NETNS:-}" ] || ns=(ip netns exec "$NETNS")
	(
		[ -z "${CG:-}" ] || echo $BASHPID >"$CG/cgroup.procs"
		exec "${ns[@]}" iperf3 -c "$TSQ_PEER_IP" -t "$secs" -P "$par" -C "${CC:-cubic}" -J "$@"
	) >"$TMP/$name.json" 2>"$TMP/$name.err"
}

# Mbit/s the receiver counted.
goodput() {
	jq -r '.end.sum_received.bits_per_second / 1e6' "$TMP/$1.json"
}

# sample NAME PID: root qdisc backlog in bytes every 2 ms, "ms bytes" a
# line, until PID exits.
sample() {
	"$OUT/qdisc_backlog" "$TSQ_DEV" 2000 "$2" >"$TMP/$1.bl"
}

# socks_on: sample() also sums the bytes the sockets to QB_DPORT hold in
# queues (their sk_wmem_alloc), through the tsq_socks iterator.
socks_on() {
	"$OUT/tools/bpftool" iter pin "$OUT/tsq_socks.bpf.o" /sys/fs/bpf/tsq_socks ||
		fail "bpftool iter pin tsq_socks"
	export QB_SOCKS=/sys/fs/bpf/tsq_socks
}

# wpeak NAME [FROM_MS [TO_MS]]: the largest sum of those bytes sampled.
wpeak() {
	awk -v a="${2:-0}" -v b="${3:-1e12}" \
		'$1 >= a && $1 < b && $4 > m { m = $4 } END { print m + 0 }' "$TMP/$1.bl"
}

# pktmax_begin, then pktmax_end: the largest skb truesize that TCP handed
# to a device meanwhile (bpftrace on net_dev_queue), in bytes: the "one
# packet" of the bounds, in PKTMAX ("" without a result). pktmax_end runs
# in the shell that started bpftrace, not in $(...): a subshell cannot
# wait for it, and would read the file before bpftrace wrote its map.
pktmax_begin() {
	bpftrace -e 'tracepoint:net:net_dev_queue
		{ @m = max(((struct sk_buff *)args->skbaddr)->truesize); }' \
		>"$TMP/pktmax" 2>&1 &
	PKTMAX_PID=$!
	# bpftrace takes seconds to start under TCG.
	for _ in $(seq 300); do
		grep -q '^Attaching' "$TMP/pktmax" && break
		sleep 0.1
	done
}
pktmax_end() {
	kill -INT "$PKTMAX_PID"
	# A bpftrace that does not end (still loading under a loaded TCG
	# host, or stuck) must not hang the test: 30 s, then SIGKILL, said.
	for _ in $(seq 300); do
		kill -0 "$PKTMAX_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$PKTMAX_PID" 2>/dev/null &&
		log "bpftrace did not end in 30 s after SIGINT: killed"
	wait "$PKTMAX_PID"
	PKTMAX=$(sed -n 's/^@m: \([0-9]*\)$/\1/p' "$TMP/pktmax")
}
# skb_of BUDGET: the largest skb the policy lets TCP build under BUDGET,
# for when bpftrace gave no PKTMAX: a TSO packet of BUDGET/4
# (tsq_cgroup's policy_tso()) and an skb's overhead beyond its payload
# (1,280 B at most on x86_64; 8,200 B measured under budget 32k).
skb_of() { echo $(( $1 / 4 + 1280 )); }
# median: the median of numbers on stdin, one a line.
median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# What bpftrace printed, on one line: why there is no PKTMAX.
pktmax_said() { head -c 300 "$TMP/pktmax" | tr '\n' ' '; }

# cg_stat FILE CGROUP FIELD: FIELD of CGROUP (/bulk) in a tsqctl -j
# stats output, summed over its rows, or -1 without one.
cg_stat() { jq --arg c "$2" "[.[] | select(.cgroup == \$c) | .$3] | add // -1" "$1"; }
# stats_after NAME CGROUP: once CGROUP's sockets have closed, tsqctl
# stats counts none of them in the queues and no bytes (a second for
# the last completions); the stats in $TMP/end.json.
stats_after() {
	sleep 1
	"$TSQCTL" -j stats >"$TMP/end.json"
	log "stats after: $(jq -c --arg c "$2" '.[] | select(.cgroup == $c)' "$TMP/end.json")"
	check "$1: closed sockets leave nothing counted" 'n == 0 && q == 0' \
		n="$(cg_stat "$TMP/end.json" "$2" queued_sockets)" \
		q="$(cg_stat "$TMP/end.json" "$2" queued_bytes)"
}

# peak NAME [FROM_MS [TO_MS]]: the largest backlog sampled in the window.
peak() {
	awk -v a="${2:-0}" -v b="${3:-1e12}" \
		'$1 >= a && $1 < b && $2 > m { m = $2 } END { print m + 0 }' "$TMP/$1.bl"
}

mean() {
	awk -v a="${2:-0}" -v b="${3:-1e12}" \
		'$1 >= a && $1 < b { s += $2; n++ } END { print n ? int(s / n) : 0 }' \
		"$TMP/$1.bl"
}

# measure NAME SECONDS [PARALLEL]: a flow with its backlog sampled.
measure() {
	local pid
	flow "$@" &
	pid=$!
	sample "$1" "$pid"
	wait "$pid"
}

TSQCTL=$OUT/tsqctl

# ms since boot, for "within N ms" checks.
now_ms() { read -r up _ </proc/uptime; echo $(( ${up/./} * 10 )); }
# until_ok MS CMD...: run CMD every 50 ms until it succeeds; prints the ms taken.
until_ok() {
	local t0 limit=$1
	shift
	t0=$(now_ms)
	while ! "$@" >/dev/null 2>&1; do
		[ $(( $(now_ms) - t0 )) -gt "$limit" ] && { echo 999999; return 1; }
		sleep 0.05
	done
	echo $(( $(now_ms) - t0 ))
}

# until_logged MS TEXT: the ms until a line of $TMP/tsqd.log has TEXT,
# or 999999. Bash alone, polling every 10 ms with read -t on a FIFO
# nobody writes: an exec (sleep, grep, tsqctl) costs 0.1 s and more
# under TCG, and would be timed instead of tsqd.
logged() {
	local l
	while IFS= read -r l; do [[ $l == *"$1"* ]] && return 0; done <"$TMP/tsqd.log"
	return 1
}
until_logged() {
	local t0
	[ -p "$TMP/never" ] || mkfifo "$TMP/never"
	[ -n "${NEVER_FD:-}" ] || exec {NEVER_FD}<>"$TMP/never"
	t0=$(now_ms)
	until logged "$2"; do
		(( $(now_ms) - t0 > $1 )) && { echo 999999; return 1; }
		read -r -t 0.01 -u "$NEVER_FD"
	done
	echo $(( $(now_ms) - t0 ))
}

attach() { "$HOOK_TEST" attach "$1" "$PIN" "${@:2}"; }
detach() { "$HOOK_TEST" detach "$PIN"; }
hook_calls() { "$HOOK_TEST" calls "$PIN"; }
hook_sync() { "$HOOK_TEST" sync "$PIN"; }
cleanup_hook() {
	[ ! -e "$PIN/link" ] || detach
	rmdir "$PIN" 2>/dev/null
	rm -f /sys/fs/bpf/tsq_socks
}
