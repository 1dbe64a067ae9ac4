#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsq-test: base-only the same BPF programs and hook as on the base, timed under TCG; make check times them on 7.x, within its 60 minutes
# What the connection hook (issue 37, item 3) costs a connection; that
# its cache gives the right policy is t_connhook.sh.
#  - Cost: BPF run time per call (kernel.bpf_stats_enabled) of
#    policy_established over CONNS loopback connections a sample, at
#    cgroup depths 1, 8 and 32 below the policy's cgroup, against
#    tsq_fixed's fixed_established (one map lookup and the kfunc), REPS
#    samples each, in the same boot; the reference before and after.
#    The least sample of each: TCG's noise (the host preempting a vCPU,
#    interrupts in the guest) only ever adds time, and one sample of a
#    loaded CI host varies by 3x. The policy program within 2x the
#    reference at every depth, depth 32 within 1.25x of depth 1.
#  - Connections a second (connect, one 64-byte request and its answer,
#    close: TCP_CRR) from a cgroup with a policy against one without,
#    tsq attached, REPS pairs: a pair is 6 runs of a second, ABBAAB, so
#    that TCG's drift falls on both alike. The ratio of the two means over
#    all runs, with its standard error from the runs' own spread: the
#    policy is not shown slower than 0.90 of none (the ratio plus two
#    standard errors reaches 0.90), and the ratio itself is 0.80 or more
#    whatever the noise. A second's runs vary by 10 % under TCG and by 20 %
#    on a loaded CI host, where a mean of 15 runs each put the ratio at
#    0.883 with one pair at 0.75 (stop 40's CI); a fixed 0.90 on the
#    ratio alone failed there on noise. The 0.95 at the worst pair is
#    bench/'s target, measured there. Runs with tsq detached, before and
#    after, are logged.
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/connhook.sh
. "$(dirname "$0")/connhook.sh"

# 1. Cost per call.
prog_cost() {
	"$BPFTOOL" -j prog show | jq -r --arg n "$1" '.[] | select(.name[0:15] == ($n[0:15])) |
		"\(.run_time_ns // 0) \(.run_cnt // 0)"'
}
# percall PROG DIR: ns per call of PROG over CONNS connections from DIR.
percall() {
	local a_ns a_cnt b_ns b_cnt
	sysctl -qw kernel.bpf_stats_enabled=1
	read -r a_ns a_cnt < <(prog_cost "$1")
	in_cg "$2" python3 "$MANYSOCKS" $((CONNS * 2)) true >/dev/null
	read -r b_ns b_cnt < <(prog_cost "$1")
	sysctl -qw kernel.bpf_stats_enabled=0
	echo $(( (b_cnt - a_cnt) > 0 ? (b_ns - a_ns) / (b_cnt - a_cnt) : -1 ))
}

reference() {
	attach tsq_fixed limit 16000 >/dev/null || fail "hook_test attach tsq_fixed"
	for rep in $(seq "$REPS"); do percall fixed_established $cgr/ch; done >>"$TMP/fixed"
	detach
}
"$TSQCTL" reset
reference
"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /ch limit 16000
for rep in $(seq "$REPS"); do
	for d in 1 8 32; do
		percall policy_established "$(at_depth $d)" >>"$TMP/depth$d"
	done
	# Not the hook: the socket counter, which makes its socket storage.
	percall policy_sk_state "$d8" >>"$TMP/sk_state"
done
log "policy_sk_state ns/call: $(tr '\n' ' ' <"$TMP/sk_state")(median $(median <"$TMP/sk_state"))"
"$TSQCTL" reset
reference
fixed=$(least <"$TMP/fixed")
log "fixed_established ns/call: $(tr '\n' ' ' <"$TMP/fixed")(least $fixed)"
declare -A low
for d in 1 8 32; do
	m=$(least <"$TMP/depth$d")
	low[$d]=$m
	log "policy_established depth $d ns/call: $(tr '\n' ' ' <"$TMP/depth$d")(least $m, $(awk -v a="$m" -v b="$fixed" 'BEGIN { printf "%.2f", a / b }') x the reference)"
	check "depth $d: the policy program within 2x the kfunc-only program (least samples)" \
		'p > 0 && f > 0 && p <= 2 * f' p="$m" f="$fixed"
done
check "depth 32 costs what depth 1 does (least samples, within 1.25x)" \
	'a > 0 && b <= 1.25 * a' a="${low[1]}" b="${low[32]}"

took "the cost per call"

# 2. Connections a second, with a policy and without.
sysctl -qw net.ipv4.ip_local_port_range="10000 60999"
bg_in_cg $cgr/ch "$RRPROBE" -S 7001
srv1=$!
bg_in_cg $cgr/np "$RRPROBE" -S 7002
srv2=$!
sleep 0.5
# crr DIR PORT: connections a second, one second from DIR to the server
# on PORT.
crr() {
	in_cg "$1" "$RRPROBE" -C 127.0.0.1 "$2" 1 | awk '{ print $4 }'
}
# Detached: the server in /np, whichever client.
detached() { for _ in 1 2 3; do crr $cgr/np 7002; done >>"$TMP/detached"; }
detached
"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /ch limit 16000
for rep in $(seq "$REPS"); do
	: >"$TMP/p" && : >"$TMP/n"
	for arm in p n n p p n; do
		if [ $arm = p ]; then crr $cgr/ch 7001; else crr $cgr/np 7002; fi >>"$TMP/$arm"
	done
	p=$(awk '{ s += $1 } END { print s / NR }' "$TMP/p")
	n=$(awk '{ s += $1 } END { print s / NR }' "$TMP/n")
	log "crr pair $rep: policy $(tr '\n' ' ' <"$TMP/p")(mean $p/s), none $(tr '\n' ' ' <"$TMP/n")(mean $n/s), ratio $(awk -v a="$p" -v b="$n" 'BEGIN { printf "%.3f", a / b }')"
	awk -v a="$p" -v b="$n" 'BEGIN { print a / b }' >>"$TMP/crr"
	cat "$TMP/p" >>"$TMP/policy"
	cat "$TMP/n" >>"$TMP/none"
done
"$TSQCTL" reset
detached
log "crr detached: $(tr '\n' ' ' <"$TMP/detached")(median $(median <"$TMP/detached")/s); attached, no policy: median $(median <"$TMP/none")/s"
read -r ratio se < <(ratio_se "$TMP/policy" "$TMP/none")
log "crr all pairs: policy $(awk '{ s += $1 } END { print s / NR }' "$TMP/policy")/s," \
	"none $(awk '{ s += $1 } END { print s / NR }' "$TMP/none")/s; pairs $(tr '\n' ' ' <"$TMP/crr")"
log "crr ratio of the means $ratio, standard error $se"
check "connections a second with a policy vs without, all runs: not below 0.90 beyond two standard errors" \
	'r > 0 && r + 2 * se >= 0.90' r="$ratio" se="$se"
check "connections a second with a policy vs without, all runs: 0.80 or more" \
	'r >= 0.80' r="$ratio"
kill $srv1 $srv2
wait $srv1 $srv2 2>/dev/null
took "the connection rate"
check_dmesg connhook_cost
finish
