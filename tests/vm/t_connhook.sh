#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The connection hook (issue 37, item 3): what the policy program costs
# a connection, and that its per-cgroup cache (tsq_eff, include/tsq.h)
# never gives a wrong policy.
#  - Correct: a socket 8 levels below the policy's cgroup gets it; a
#    change of the ancestor's policy, a descendant's own policy and its
#    removal, a cgroup made after the cache was warm, and the policy's
#    removal each reach the next connection (read back from the socket,
#    tsq_socks); a walk that failed in a client's cgroup namespace is not
#    cached; a cache filled to its size with other entries leaves the
#    policy right and the map at its size.
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

cgr=/sys/fs/cgroup
BPFTOOL=$OUT/tools/bpftool
RRPROBE=$OUT/rrprobe
MANYSOCKS=$TOP/bench/manysocks.py
REPS=${REPS:-5}
CONNS=${CONNS:-100}
t_start=$(now_ms)
took() { log "$1 took $(( ($(now_ms) - t_start) / 1000 )) s so far"; }

# /ch, then /ch/l2 ... /ch/l32: depth d is the cgroup d levels down
# from the policy's (depth 1 is /ch itself).
deep=$cgr/ch
for i in $(seq 2 32); do deep=$deep/l$i; done
mkdir -p "$deep" $cgr/np
at_depth() {
	local d=$cgr/ch i
	for i in $(seq 2 "$1"); do d=$d/l$i; done
	echo "$d"
}
d8=$(at_depth 8)

# in_cg DIR CMD...: CMD with its sockets made in DIR. bg_in_cg: the
# same in the background, $! its pid.
in_cg() { (echo $BASHPID >"$1/cgroup.procs" && exec "${@:2}"); }
bg_in_cg() {
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$@" &
}
least() { sort -n | head -1; }
# ratio_se A B: the ratio of the means of files A and B, one number a
# line, and its standard error (first-order, from each file's sample
# variance): "0 0" when either has fewer than two numbers.
ratio_se() {
	awk 'NR == FNR { a[++na] = $1; sa += $1; next } { b[++nb] = $1; sb += $1 }
	END {
		if (na < 2 || nb < 2 || sa <= 0 || sb <= 0) { print 0, 0; exit }
		ma = sa / na; mb = sb / nb
		for (i = 1; i <= na; i++) va += (a[i] - ma) ^ 2
		for (i = 1; i <= nb; i++) vb += (b[i] - mb) ^ 2
		va /= na - 1; vb /= nb - 1
		r = ma / mb
		print r, r * sqrt(va / na / ma ^ 2 + vb / nb / mb ^ 2)
	}' "$1" "$2"
}

# hold: one loopback connection, both ends held until killed.
hold='import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname()); a = s.accept(); time.sleep(60)'

# limit_of DIR: the limit the kernel keeps for a new loopback connection
# made in DIR (both ends are), "none" without a policy.
limit_of() {
	local id pid l
	id=$(stat -c %i "$1")
	bg_in_cg "$1" python3 -c "$hold"
	pid=$!
	for _ in $(seq 50); do
		l=$(awk -v id="$id" '$11 == id { print ($4 ? $5 : "none") }' /sys/fs/bpf/tsq_socks |
			sort -u | tr '\n' ' ')
		[ -z "$l" ] || break
		sleep 0.2
	done
	kill $pid
	wait $pid 2>/dev/null
	echo "${l% }"
}

"$TSQCTL" attach || fail "tsqctl attach"
socks_on
"$TSQCTL" set /ch limit 16000 || fail "tsqctl set /ch"

info=$("$BPFTOOL" -j map show pinned /sys/fs/bpf/tsq/eff |
	jq -r '"\(.type) \(.max_entries)"')
check "the cache is an LRU of 16384 entries, pinned" 'i == "lru_hash 16384"' i="$info"

# 1. The policy, through the cache.
check "8 levels below /ch: its limit" 'l == 16000' l="$(limit_of "$d8")"
check "again, from the cache: its limit" 'l == 16000' l="$(limit_of "$d8")"
"$TSQCTL" set /ch limit 24000
check "/ch's limit changed: the next connection has the new one" 'l == 24000' \
	l="$(limit_of "$d8")"
"$TSQCTL" set /ch/l2 limit 12000
check "/ch/l2 has its own: the next connection 6 levels below has it" 'l == 12000' \
	l="$(limit_of "$d8")"
"$TSQCTL" unset /ch/l2
check "/ch/l2's removed: /ch's again" 'l == 24000' l="$(limit_of "$d8")"
mkdir "$cgr/ch/l2/new"
check "a cgroup made after the cache was warm: /ch's" 'l == 24000' \
	l="$(limit_of "$cgr/ch/l2/new")"
rmdir "$cgr/ch/l2/new"
"$TSQCTL" unset /ch
check "/ch's policy removed: none" 'l == "none"' l="$(limit_of "$d8")"
check "a cgroup without a policy anywhere: none" 'l == "none"' l="$(limit_of $cgr/np)"
"$TSQCTL" set /ch limit 16000

# A connection's other end made in another task's cgroup namespace: on
# loopback the server's end is established in the client's softirq,
# where bpf_cgroup_from_id() sees only the client's namespace and finds
# no /ch. That walk, which could not be made, must not be cached: the
# next server end, established from a client outside any namespace, gets
# /ch's policy; and once that cached /ch's, the namespaced client's
# server end gets it too.
mkdir -p $cgr/cns/c
# server_limit DIR [WRAPPER...]: the limit of the server's end, in /ch,
# of one connection to port 7010 that a client in DIR makes (run by
# WRAPPER).
server_limit() {
	local id spid cpid l
	id=$(stat -c %i $cgr/ch)
	bg_in_cg $cgr/ch python3 -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 7010)); s.listen(); c = s.accept(); time.sleep(30)' &
	spid=$!
	sleep 0.5
	bg_in_cg "$@" python3 -c 'import socket, time
c = socket.create_connection(("127.0.0.1", 7010)); time.sleep(30)'
	cpid=$!
	for _ in $(seq 50); do
		l=$(awk -v id="$id" '$1 == 7010 && $11 == id { print ($4 ? $5 : "none") }' \
			/sys/fs/bpf/tsq_socks)
		[ -z "$l" ] || break
		sleep 0.2
	done
	kill $spid $cpid
	wait $spid $cpid 2>/dev/null
	echo "$l"
}
"$TSQCTL" set /ch limit 16000
l=$(server_limit $cgr/cns/c unshare -C)
log "server end of a connection from a client in a cgroup namespace, cache cold: $l"
check "a client outside a cgroup namespace: the server end has /ch's limit" 'l == 16000' \
	l="$(server_limit $cgr/np)"
check "the namespaced client again: the server end has it too, from the cache" 'l == 16000' \
	l="$(server_limit $cgr/cns/c unshare -C)"

# A cache full of others' entries (ids no cgroup has, of this
# generation): still the right policy, and no more entries than its size.
gen=$("$BPFTOOL" -j map lookup pinned /sys/fs/bpf/tsq/gen key 0 0 0 0 |
	jq -r '.formatted.value // empty')
# 17,000 "map update" lines for bpftool batch: keys 2^40 + i, values
# of this generation with cgroup 1's policy, limit 4096.
awk -v gen="$gen" 'function le(v,  i, s) {
		for (i = 0; i < 8; i++) { s = s (v % 256) " "; v = int(v / 256) }
		return s
	}
	BEGIN {
		for (i = 1; i <= 17000; i++)
			printf "map update pinned /sys/fs/bpf/tsq/eff key %svalue %s%s1 0 0 0 0 16 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
				le(2^40 + i), le(gen), le(1)
	}' >"$TMP/fill"
"$BPFTOOL" batch file "$TMP/fill" >/dev/null 2>"$TMP/fill.err" ||
	log "bpftool batch: $(tail -1 "$TMP/fill.err")"
n=$("$BPFTOOL" -j map dump pinned /sys/fs/bpf/tsq/eff | jq length)
check "17,000 entries into the cache: it holds no more than its size" 'n <= 16384 && n > 1000' n="$n"
check "full cache: 8 levels below /ch, its limit" 'l == 16000' l="$(limit_of "$d8")"
check "full cache: a new cgroup below /ch, its limit" 'l == 16000' \
	l="$(mkdir $cgr/ch/full && limit_of $cgr/ch/full)"
rmdir $cgr/ch/full

took "the policy's checks"

# 2. Cost per call.
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

# 3. Connections a second, with a policy and without.
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
check_dmesg connhook
finish
