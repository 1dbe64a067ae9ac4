#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A policy change at a cgroup can only matter to the sockets of its
# subtree, and its sync visits those alone: after tsqctl set /a, the
# sockets made in /a/x have the new policy, those in /b keep theirs and
# were not visited (tsq_sync_count: synced goes up by /a's sockets
# exactly). Syncs at once: one process's scope, held open, neither hides
# another's change nor adds to its work; a change to /b in a loop beside
# one to /a is never lost. tsqd's syncs are scoped alike. What makes a
# sync visit every socket: pins without the scope map (an older tsq's,
# for tsqctl and tsqd), a full scope map, a scope cgroup removed during
# its sync, and reset, which gives every socket stock TSQ back.
. "$(dirname "$0")/lib.sh"

cgr=/sys/fs/cgroup
BPFTOOL=$OUT/tools/bpftool
NA=200 NB=200 NC=4000
mkdir -p $cgr/a/x $cgr/b $cgr/c $cgr/d
ulimit -n $((NC * 2 + 1024))
socks_on
"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /a limit 16000 || fail "tsqctl set /a"
"$TSQCTL" set /b limit 20000 || fail "tsqctl set /b"

# hold CGROUP N: N established loopback sockets made in CGROUP (both
# ends), held until the end.
hold() {
	(echo $BASHPID >"$cgr/$1/cgroup.procs" &&
	 exec python3 "$TOP/bench/manysocks.py" "$2" sleep 3600) >/dev/null 2>&1 &
}
# limits CGROUP: how many established sockets were made in CGROUP, then
# each distinct TSQ limit they have (0: stock), sorted.
limits() {
	local vals
	vals=$(awk -v id="$(stat -c %i "$cgr/$1")" '$11 == id { print $5 }' /sys/fs/bpf/tsq_socks)
	echo "$(grep -c . <<<"$vals") $(sort -nu <<<"$vals" | tr '\n' ' ')" | sed 's/ *$//'
}
# counts: "synced skipped", policy_sync's, summed over the CPUs.
counts() {
	"$BPFTOOL" -j map dump pinned /sys/fs/bpf/tsq/sync_count |
		jq -r '[.[0] | (.formatted // .) | .values[].value] |
			"\(map(.synced) | add) \(map(.skipped) | add)"'
}
# delta BEFORE AFTER: "synced skipped" between two counts.
delta() {
	local a b c d
	read -r a b <<<"$1"
	read -r c d <<<"$2"
	echo "$((c - a)) $((d - b))"
}
# change CMD...: CMD, then "synced skipped" that it made policy_sync do.
change() {
	local c0
	c0=$(counts)
	"$@" >/dev/null || fail "$*"
	delta "$c0" "$(counts)"
}

hold a/x $NA
hold b $NB
hold c $NC
t0=$(now_ms)
until [ "$(limits a/x | cut -d' ' -f1)" = $NA ] && [ "$(limits b | cut -d' ' -f1)" = $NB ] &&
      [ "$(limits c | cut -d' ' -f1)" = $NC ]; do
	[ $(( $(now_ms) - t0 )) -lt 300000 ] || break
	sleep 1
done
log "sockets held: /a/x [$(limits a/x)] /b [$(limits b)] /c [$(limits c)] after $(( $(now_ms) - t0 )) ms"
check "held: /a/x's under /a's limit, /b's under theirs, /c's stock" \
	'a == A " 16000" && b == B " 20000" && c == C " 0"' \
	a="$(limits a/x)" b="$(limits b)" c="$(limits c)" A=$NA B=$NB C=$NC

# 1. A change at /a: its subtree's sockets, and only they, are visited.
read -r syn skip < <(change "$TSQCTL" set /a limit 32000)
log "set /a: synced $syn, skipped $skip"
check "set /a: /a/x's sockets have the new limit" 'a == A " 32000"' a="$(limits a/x)" A=$NA
check "set /a: /b's keep theirs" 'b == B " 20000"' b="$(limits b)" B=$NB
check "set /a: synced /a's sockets alone, skipped /b's and /c's" \
	's == A && k >= B + C' s="$syn" k="$skip" A=$NA B=$NB C=$NC

# 2. A sync of /a in flight (its scope in the map, not ended) while
# tsqctl changes /b: the /b change reaches /b's sockets, and neither run
# visits the other's.
coproc H { exec "$OUT/scope_tool" hold "$cgr/a"; }
read -r w rc <&"${H[0]}"
check "scope_tool: a scope for /a begun" 'r == "begin 0"' r="$w $rc"
read -r syn skip < <(change "$TSQCTL" set /b limit 24000)
check "/b changed beside /a's scope: /b's sockets have it" 'b == B " 24000"' b="$(limits b)" B=$NB
check "/b changed beside /a's scope: synced /b's alone" 's == B' s="$syn" B=$NB
c0=$(counts)
echo sync >&"${H[1]}"
read -r w rc <&"${H[0]}"
read -r syn skip <<<"$(delta "$c0" "$(counts)")"
check "/a's sync after /b's change: synced /a's alone" 'r == "sync 0" && s == A' \
	r="$w $rc" s="$syn" A=$NA
exec {H[1]}>&-
wait "$H_PID"

# 3. Changes to /a in a loop, and to /b at the same time: each /b change
# is in /b's sockets when its tsqctl returns.
(for _ in $(seq 200); do "$TSQCTL" set /a limit 32000; "$TSQCTL" set /a limit 40000; done) \
	>/dev/null 2>&1 &
loop=$!
got=0 bad=
for v in 21000 22000 23000 25000 26000 27000 28000 29000 30000 31000; do
	"$TSQCTL" set /b limit $v || fail "tsqctl set /b limit $v"
	l=$(limits b)
	if [ "$l" = "$NB $v" ]; then got=$((got + 1)); else bad+=" [$v: $l]"; fi
done
kill "$loop" 2>/dev/null
wait "$loop" 2>/dev/null
check "10 changes to /b beside a loop of changes to /a: none lost" 'g == 10' g="$got" bad="${bad:-none}"

# 4. A scope whose cgroup is removed before its sync: every socket.
coproc D { exec "$OUT/scope_tool" hold "$cgr/d"; }
read -r w rc <&"${D[0]}"
rmdir $cgr/d
c0=$(counts)
echo sync >&"${D[1]}"
read -r w rc <&"${D[0]}"
read -r syn skip <<<"$(delta "$c0" "$(counts)")"
check "scope cgroup removed: its sync visits every socket" \
	'r == "sync 0" && s >= A + B + C && k == 0' r="$w $rc" s="$syn" k="$skip" A=$NA B=$NB C=$NC
exec {D[1]}>&-
wait "$D_PID"

# tsqd_once LINE: tsqd with LINE as its policy file, until it has
# loaded it (and synced), then stopped; "synced skipped" of its syncs.
tsqd_once() {
	local c0 pid
	echo "$1" >"$TMP/tsq.conf"
	mkdir -p "$TMP/conf.d"
	: >"$TMP/tsqd.log"
	c0=$(counts)
	"$OUT/tsqd" -c "$TMP/tsq.conf" -d "$TMP/conf.d" -i 0 2>>"$TMP/tsqd.log" &
	pid=$!
	until_logged 60000 'loaded 1 policies' >/dev/null
	kill "$pid"
	wait "$pid"
	log "tsqd: $(tr '\n' '|' <"$TMP/tsqd.log")"
	delta "$c0" "$(counts)" >"$TMP/tsqd.delta"
}

# 5. tsqd, adopting the pins: a policy file that changes /b syncs /b's
# sockets alone.
tsqd_once '/b limit 36000'
read -r syn skip <"$TMP/tsqd.delta"
check "tsqd: /b's sockets have its policy" 'b == B " 36000"' b="$(limits b)" B=$NB
check "tsqd: synced /b's sockets alone" 's == B' s="$syn" B=$NB

# 6. A full scope map: tsqctl falls back to a full sync.
sleepers=()
for _ in $(seq 256); do sleep 600 </dev/null & sleepers+=($!); done
n=$("$OUT/scope_tool" fill "${sleepers[@]}")
read -r syn skip < <(change "$TSQCTL" set /b limit 20000)
log "scope map filled with $n entries; set /b: synced $syn, skipped $skip"
check "full scope map: set /b still reaches /b's sockets" 'b == B " 20000"' b="$(limits b)" B=$NB
check "full scope map: a full sync" 'n == 256 && s >= A + B + C && k == 0' \
	n="$n" s="$syn" k="$skip" A=$NA B=$NB C=$NC
kill "${sleepers[@]}" 2>/dev/null
wait "${sleepers[@]}" 2>/dev/null
check "processes gone: prune empties the map" 'p == 256' p="$("$OUT/scope_tool" prune)"

# 7. Pins without the scope map, as an older tsq made them: full syncs,
# by tsqctl and by a tsqd that adopts them.
rm /sys/fs/bpf/tsq/scope
read -r syn skip < <(change "$TSQCTL" set /b limit 24000)
check "pins without the scope map: set /b reaches /b's sockets" 'b == B " 24000"' \
	b="$(limits b)" B=$NB
check "pins without the scope map: a full sync" 's >= A + B + C && k == 0' \
	s="$syn" k="$skip" A=$NA B=$NB C=$NC
tsqd_once '/b limit 38000'
read -r syn skip <"$TMP/tsqd.delta"
check "tsqd on pins without the scope map: /b's sockets have its policy" 'b == B " 38000"' \
	b="$(limits b)" B=$NB
check "tsqd on pins without the scope map: a full sync, and the log says why" \
	's >= A + B + C && k == 0 && n == 1' s="$syn" k="$skip" A=$NA B=$NB C=$NC \
	n="$(grep -c 'policy syncs visit every socket: the pins have no scope map' "$TMP/tsqd.log")"

# 8. reset: every socket back to stock TSQ.
"$TSQCTL" reset || fail "tsqctl reset"
check "reset: every socket stock" 'a == A " 0" && b == B " 0"' \
	a="$(limits a/x)" b="$(limits b)" A=$NA B=$NB

for g in a/x b c; do
	while read -r p; do kill "$p" 2>/dev/null; done <"$cgr/$g/cgroup.procs"
done
sleep 1
rmdir $cgr/a/x $cgr/a $cgr/b $cgr/c 2>/dev/null
check_dmesg scope
finish
