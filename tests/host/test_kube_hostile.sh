#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsq-kube against a hostile cluster (issue 36): stub API servers
# (tests/host/kube/apiserver.py) play each attack, with lists and events
# from kube/mkhostile.py, and what matters is asserted: the drop-ins'
# contents and number, requests counted in the stub's log, the agent's
# peak RSS in KiB, valgrind's error count, the bytes of the agent's log.
#
#   mirror     a tenant's pod with config.mirror=<victim uid>, one with a
#              forged config.source too
#   memory     4 MiB of {}; 30 pods of 23k annotations; 500 pods of 256 KiB
#   big        twelve 1.4 MB pods, one of 3 MB, one normal pod
#   ca         a server whose CA is in the system's CA path, not --ca
#   backoff    HTTP 410, ERROR 410 events, empty watches, refused connections;
#              the failures in --metrics-file as in the log
#   metrics    --metrics-file: a missing directory, a symlink at the file or
#              at its temporary name, a crash's leftover
#   uninit     an ERROR event (not 410) under valgrind
#   inject     a resourceVersion with ESC and a newline
#   endless    continue tokens without end, each page new pods
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/kube/host.sh"
kube_host_init test_kube_hostile jq
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT

. "$here/stub.sh"

# stub NAME: a stub API server of its own, in $t/NAME.
stub() {
	mkdir -p "$t/$1"
	kube_stub_start "$t/$1" || { echo "FAIL: $1: the stub API server did not start"; exit 1; }
	pids+=("$KUBE_STUB_PID")
	echo "$KUBE_URL" >"$t/$1/url"
}
ctl() { echo "${*:2}" >"$t/$1/ctl"; }
# agent NAME [ARGS]: tsq-kube against stub NAME, drop-ins in $t/NAME/d,
# log $t/NAME/log; its pid in $agent. PRE: a command to run it under.
agent() {
	local s=$t/$1
	mkdir -p "$s/d"
	# shellcheck disable=SC2086
	${PRE:-} "$kube" --node node-1 --server "$(cat "$s/url")" --ca "$s/ca.crt" \
		--token "$s/token" --cgroup-driver systemd --dropin-dir "$s/d" "${@:2}" \
		>"$s/log" 2>&1 &
	agent=$!
	pids+=("$agent")
}
stop() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }
# wait_log NAME TEXT [MS]: until NAME's agent log has TEXT (10 s).
wait_log() {
	local t0
	t0=$(now_ms)
	until grep -qF -- "$2" "$t/$1/log" 2>/dev/null; do
		(( $(now_ms) - t0 > ${3:-10000} )) && return 1
		sleep 0.05
	done
}
hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }
cpu_ms() {
	local ut st
	read -r _ _ _ _ _ _ _ _ _ _ _ _ _ ut st _ <"/proc/$1/stat"
	echo $(( (ut + st) * 1000 / $(getconf CLK_TCK) ))
}
lists() { jq -c 'select(.query.watch == null)' "$t/$1/requests" 2>/dev/null | wc -l; }
watches() { jq -c 'select(.query.watch == "1")' "$t/$1/requests" 2>/dev/null | wc -l; }
file() { echo "$t/$1/d/tsq-kube-pod-$2.conf"; }
line2() { sed -n 2p "$1" 2>/dev/null; }
mk() { "$py" "$here/mkhostile.py" "$@"; }
# metric NAME FILE: the sample's value in a Prometheus text file.
metric() { awk -v n="$1" '$1 == n { print $2 }' "$2" 2>/dev/null; }

# mirror: a tenant's pod cannot name another pod's cgroup
t_mirror() {
	V=0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9 A=a77ac4e5-0000-4000-8000-0000000000b2
	S=6f1e0c3b9a8d7e6f5a4b3c2d1e0f9a8b
	stub mirror
	mk mirror "$t/mirror.json" "$V" "$A" "$S"
	ctl mirror list "$t/mirror.json"
	agent mirror
	wait_log mirror "listed the pods" || fail "mirror: not listed: $(tail -2 "$t/mirror/log")"
	want="kubepods-burstable-pod${V//-/_}.slice limit 16k"
	[ "$(line2 "$(file mirror "$V")")" = "$want" ] &&
		pass "mirror: the victim's drop-in stays \"limit 16k\" beside a pod with its uid as mirror" ||
		fail "mirror: the victim's drop-in is \"$(line2 "$(file mirror "$V")")\""
	grep -q "a pod skipped: kubernetes.io/config.mirror \"$V\" is not a static pod's uid" \
		"$t/mirror/log" && [ ! -e "$(file mirror f0f0f0f0-0000-4000-8000-0000000000c3)" ] &&
		pass "mirror: a pod with a forged config.source cannot name a pod with a UUID" ||
		fail "mirror: the forger: $(grep -m1 forger "$t/mirror/log")"
	[ "$(line2 "$(file mirror "$A")")" = "kubepods-burstable-pod${A//-/_}.slice budget 1" ] &&
		pass "mirror: the attacker's policy names its own cgroup" ||
		fail "mirror: the attacker's drop-in: $(cat "$(file mirror "$A")" 2>&1)"
	[ "$(line2 "$(file mirror "$S")")" = "kubepods-burstable-pod$S.slice limit 32k" ] &&
		pass "mirror: a static pod of this node (config.source file) is named by its mirror uid" ||
		fail "mirror: static pod: $(ls "$t/mirror/d")"
	cp "$(file mirror "$V")" "$t/victim.conf"
	mk event "$t/del.json" DELETED "$t/mirror.json" attacker-0
	ctl mirror events "$t/del.json"
	wait_log mirror "tenant-b/attacker-0: policy removed (pod deleted)" ||
		fail "mirror: the attacker's deletion not applied"
	cmp -s "$t/victim.conf" "$(file mirror "$V")" && [ ! -e "$(file mirror "$A")" ] &&
		pass "mirror: deleting the attacker's pod leaves the victim's drop-in as it was" ||
		fail "mirror: after the deletion: $(ls "$t/mirror/d" | tr '\n' ' ')"
	stop "$agent"
}

# memory: bounded by what is read, not by the page
t_memory() {
	# mem NAME LISTFILE RV WHAT MAX_KIB [ARGS]: the peak RSS after the list.
	mem() {
		local t0 ms h c
		stub "$1"
		ctl "$1" rawlist "$2"
		t0=$(now_ms)
		agent "$1" "${@:6}"
		if ! wait_log "$1" "listed the pods of node node-1 at resourceVersion $3" 120000; then
			fail "$4: not listed: $(tail -2 "$t/$1/log")"
			stop "$agent"
			return 1
		fi
		ms=$(( $(now_ms) - t0 )) h=$(hwm "$agent") c=$(cpu_ms "$agent")
		echo "# $4: $(( $(stat -c %s "$2") / 1024 )) KiB listed in $ms ms, CPU $c ms, peak RSS $h KiB"
		[ "$h" -lt "$5" ] && pass "$4: peak RSS $h KiB < $5 KiB" ||
			fail "$4: peak RSS $h KiB, not < $5 KiB"
	}
	mk empties "$t/empties.json" $((4 << 20))
	if mem empties "$t/empties.json" 100 "4 MiB of {}" 16384; then
		grep -q ': 1 with a policy or a refused one, 0 removed; 1398101 skipped' "$t/empties/log" &&
			[ "$(line2 "$(file empties 7e570000-0000-4000-8000-000000000000)")" = \
				"kubepods-burstable-pod7e570000_0000_4000_8000_000000000000.slice limit 16k" ] &&
			[ "$(grep -c 'a pod skipped' "$t/empties/log")" = 10 ] &&
			pass "4 MiB of {}: 1,398,101 skipped, 10 lines of it logged, the pod after them applied" ||
			fail "4 MiB of {}: $(grep -E 'listed|skipped' "$t/empties/log" | tail -2)"
		stop "$agent"
	fi
	mk annotated "$t/ann.json" 30 23000 0
	if mem ann "$t/ann.json" 100 "30 pods of 23k annotations" 16384; then
		[ "$(ls "$t/ann/d" | wc -l)" = 30 ] && pass "30 pods of 23k annotations: 30 drop-ins" ||
			fail "30 pods of 23k annotations: $(ls "$t/ann/d" | wc -l) drop-ins"
		stop "$agent"
	fi
	# The DaemonSet's limit for tsq-kube (deploy/kubernetes/daemonset.yaml).
	lim=$(awk '/name: tsq-kube/ { k = 1 } k && /limits:/ { l = 1 } k && l && /memory:/ {
		sub(/Mi/, "", $2); print $2 * 1024; exit }' "$top/deploy/kubernetes/daemonset.yaml")
	mk annotated "$t/ann500.json" 500 2000 126
	if mem ann500 "$t/ann500.json" 100 "500 pods of 256 KiB annotations" "$lim"; then
		[ "$(ls "$t/ann500/d" | wc -l)" = 500 ] &&
			pass "500 pods of 256 KiB annotations: 500 drop-ins" ||
			fail "500 pods of 256 KiB annotations: $(ls "$t/ann500/d" | wc -l) drop-ins"
		stop "$agent"
	fi
	rm -f "$t"/*.json
}

# big: no page size stops the agent; one oversized pod is skipped
t_big() {
	stub big
	mk big "$t/big.json" 12 1400000 3000000
	ctl big list "$t/big.json"
	agent big
	if wait_log big "listed the pods of node node-1 at resourceVersion 300" 60000; then
		n=$(ls "$t/big/d" | grep -c 7e570002)
		[ "$n" = 12 ] && [ ! -e "$(file big 7e570003-0000-4000-8000-000000000000)" ] &&
			[ "$(line2 "$(file big 7e570004-0000-4000-8000-000000000000)")" = \
				"kubepods-burstable-pod7e570004_0000_4000_8000_000000000000.slice limit 16k" ] &&
			grep -q '1 skipped (1 over 2097152 bytes)' "$t/big/log" &&
			grep -q 'default/over-0: a pod of [0-9]* bytes, over the limit of 2097152: skipped' \
				"$t/big/log" &&
			pass "big: twelve 1.4 MB pods and the normal one applied, the 3 MB one skipped and counted" ||
			fail "big: $n of 12; $(grep -E 'listed|over' "$t/big/log" | head -3)"
		mk event "$t/mod.json" MODIFIED "$t/big.json" normal-0
		sed -i 's/limit 16k/limit 24k/' "$t/mod.json"
		ctl big events "$t/mod.json"
		wait_log big "default/normal-0: kubepods-burstable-pod7e570004_0000_4000_8000_000000000000.slice limit 24k" &&
			pass "big: the watch goes on: normal-0's new policy applied" ||
			fail "big: no watch: $(tail -2 "$t/big/log")"
		# over-0 small with "limit 4k", then 3 MB with "limit 2k", then
		# listed again at 3 MB: its drop-in stays as it was.
		o=$(file big 7e570003-0000-4000-8000-000000000000)
		mk big "$t/small.json" 0 0 0
		mk event "$t/o1.json" MODIFIED "$t/small.json" over-0
		mk event "$t/o2.json" MODIFIED "$t/big.json" over-0
		sed -i 's/limit 4k/limit 2k/' "$t/o2.json"
		ctl big events "$t/o1.json"
		wait_log big "default/over-0: kubepods-burstable-pod7e570003_0000_4000_8000_000000000000.slice limit 4k" ||
			fail "big: over-0 at its small size not applied"
		ctl big events "$t/o2.json"
		wait_log big "skipped, its policy stays as it was" ||
			fail "big: over-0 at 3 MB not skipped: $(tail -1 "$t/big/log")"
		ctl big list "$t/big.json"
		ctl big gone
		for _ in $(seq 200); do
			[ "$(grep -c 'listed the pods of node node-1 at resourceVersion 300' "$t/big/log")" = 2 ] &&
				break
			sleep 0.1
		done
		[ "$(grep -c 'listed the pods of node node-1 at resourceVersion 300' "$t/big/log")" = 2 ] &&
			[ "$(line2 "$o")" = "kubepods-burstable-pod7e570003_0000_4000_8000_000000000000.slice limit 4k" ] &&
			[ "$(ls "$t/big/d" | wc -l)" = 14 ] &&
			pass "big: a pod grown past 2 MiB keeps its drop-in, in an event and in a list" ||
			fail "big: over-0's drop-in: \"$(line2 "$o")\", $(ls "$t/big/d" | wc -l) files"
	else
		fail "big: not listed in 60 s: $(grep -c 'list' "$t/big/log") list lines; $(tail -1 "$t/big/log")"
	fi
	stop "$agent"
	rm -f "$t"/big.json "$t"/o2.json
}

# ca: only --ca is trusted, not the system's CA path (/etc/ssl/certs)
t_ca() {
	if unshare -m true 2>/dev/null; then
		stub good
		stub rogue
		mkdir "$t/sysca"
		cp "$t/rogue/ca.crt" "$t/sysca/"
		openssl rehash "$t/sysca" 2>/dev/null
		ctl rogue sticky "$here/recorded/list-1.json"
		# The rogue CA in a system-like store, as /etc/ssl/certs seen by the agent only.
		# Run in the background only: it execs.
		sysca() { exec unshare -m sh -c 'mount --bind "$0" /etc/ssl/certs && exec "$@"' "$t/sysca" "$@"; }
		PRE=sysca agent rogue --ca "$t/good/ca.crt"
		sleep 3
		n=$(cat "$t/rogue/requests" 2>/dev/null | wc -l)
		[ "$n" = 0 ] && grep -q 'request failed: .*certificate' "$t/rogue/log" &&
			pass "ca: a server whose CA is only in the system's CA path got no request, no token" ||
			fail "ca: the rogue server got $n requests: $(head -c 300 "$t/rogue/requests" 2>/dev/null)"
		stop "$agent"
		# The same set-up, the rogue CA given as --ca: the test can tell.
		PRE=sysca agent rogue --ca "$t/rogue/ca.crt"
		wait_log rogue "listed the pods" && pass "ca: with its CA as --ca, the same server is listed" ||
			fail "ca: the control case failed: $(tail -2 "$t/rogue/log")"
		stop "$agent"
	else
		echo "# SKIP: ca: no mount namespace here (unshare -m)"
	fi
}

# backoff: every failure waits, doubling; ERROR events reset nothing
t_backoff() {
	local prom=$t/bo-prom/tsq_kube.prom args log nf wait_ms mf ml mw mw_ms mc md nd out
	mkdir -p "$t/bo-prom"
	for m in gone-http gone-event empty; do
		stub "bo-$m"
		ctl "bo-$m" sticky "$here/recorded/list-1.json"
		ctl "bo-$m" watchmode "$m"
		args=()
		[ "$m" = gone-http ] && args=(--metrics-file "$prom")
		agent "bo-$m" "${args[@]}"
		eval "bo_$(tr - _ <<<"$m")=$agent"
	done
	mkdir -p "$t/bo-refused"
	echo https://127.0.0.1:1 >"$t/bo-refused/url"
	cp "$t/bo-empty/ca.crt" "$t/bo-empty/token" "$t/bo-refused/"
	agent bo-refused
	bo_refused=$agent
	sleep 10
	for m in gone-http gone-event empty refused; do
		v=bo_$(tr - _ <<<"$m")
		stop "${!v}"
	done
	l1=$(lists bo-gone-http) l2=$(lists bo-gone-event) w3=$(watches bo-empty)
	f4=$(grep -c 'list failed; again' "$t/bo-refused/log")
	echo "# backoff, 10 s: $l1 lists on HTTP 410, $l2 on ERROR 410 events; $w3 empty watches;" \
		"$f4 refused connections"
	[ "$l1" -le 8 ] && [ "$l1" -ge 3 ] && pass "backoff: HTTP 410 on every watch: $l1 lists in 10 s" ||
		fail "backoff: HTTP 410: $l1 lists in 10 s"
	[ "$l2" -le 8 ] && [ "$l2" -ge 3 ] && pass "backoff: ERROR 410 events: $l2 lists in 10 s" ||
		fail "backoff: ERROR 410 events: $l2 lists in 10 s"
	[ "$w3" -le 8 ] && [ "$w3" -ge 3 ] && pass "backoff: watches that end at once: $w3 in 10 s" ||
		fail "backoff: empty watches: $w3 in 10 s"
	[ "$f4" -le 8 ] && [ "$f4" -ge 3 ] && pass "backoff: connection refused: $f4 tries in 10 s" ||
		fail "backoff: connection refused: $f4 tries in 10 s"
	grep -q 'in [0-9]* ms (failure [0-9]*, back-off up to 30 s)' "$t/bo-gone-event/log" &&
		pass "backoff: each failure a line, counted, the ceiling stated" ||
		fail "backoff: no counted failure lines: $(tail -2 "$t/bo-gone-event/log")"
	# The file as the agent left it at exit, against its log and the stub.
	log=$t/bo-gone-http/log
	nf=$(sed -n 's/.*(failure \([0-9]*\), back-off up to 30 s)$/\1/p' "$log" | tail -1)
	wait_ms=$(sed -n 's/.* in \([0-9]*\) ms (failure [0-9]*, back-off.*/\1/p' "$log" | tail -1)
	mf=$(metric tsq_kube_failures_total "$prom") ml=$(metric tsq_kube_lists_total "$prom")
	mw=$(metric tsq_kube_backoff_seconds "$prom") mc=$(metric tsq_kube_backoff_max_seconds "$prom")
	md=$(metric tsq_kube_dropins "$prom") nd=$(ls "$t/bo-gone-http/d" | wc -l)
	echo "# backoff, HTTP 410, --metrics-file: $mf failures (the log: $nf), $ml lists" \
		"(the stub: $l1), wait ${mw}s (the log: $wait_ms ms), ceiling ${mc}s, $md drop-ins ($nd)"
	[ -n "$nf" ] && [ "$mf" = "$nf" ] && [ "$ml" = "$l1" ] &&
		pass "backoff: the metrics file counts $mf failures as the log does, $ml lists as served" ||
		fail "backoff: metrics file: failures ${mf:-none} (log: ${nf:-none}), lists ${ml:-none} (stub: $l1)"
	mw_ms=$(awk -v s="$mw" 'BEGIN { printf "%.0f", s * 1000 }')
	[ "$mc" = 30 ] && [ -n "$wait_ms" ] && [ "$mw_ms" = "$wait_ms" ] &&
		[ "$md" = "$nd" ] && [ "$nd" -gt 0 ] &&
		[ "$(grep -c '^# TYPE tsq_kube_' "$prom")" = 8 ] &&
		[ "$(grep -c '^# HELP tsq_kube_' "$prom")" = 8 ] &&
		pass "backoff: the metrics file: ceiling 30 s, the wait chosen last, $md drop-ins, 8 families" ||
		fail "backoff: metrics file: ceiling ${mc:-none}, wait ${mw:-none} s (log: ${wait_ms:-none} ms), drop-ins ${md:-none} ($nd): $(head -c 300 "$prom" 2>&1)"
	if command -v promtool >/dev/null; then
		out=$({ promtool check metrics <"$prom"; } 2>&1) &&
			pass "backoff: promtool check metrics takes the metrics file" ||
			fail "backoff: promtool check metrics: $out"
	else
		echo "# SKIP: backoff: promtool check metrics: no promtool"
	fi
}

# metrics: --metrics-file in a directory others may write to
t_metrics() {
	local d=$t/textfile n out rc prom tmp nf mf w
	# start: one line and exit 2 for a path the agent cannot use.
	for n in "$t/none/tsq_kube.prom" ""; do
		out=$("$kube" --node node-1 --server https://127.0.0.1:1 --cgroup-driver systemd \
			--dropin-dir "$t/none-d" --metrics-file "$n" 2>&1)
		rc=$?
		[ "$rc" = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] &&
			[[ $out == "tsq-kube: --metrics-file \"$n\": "* ]] && [ ! -e "$t/none-d" ] &&
			pass "metrics: --metrics-file \"$n\" refused at start, one line, exit 2" ||
			fail "metrics: --metrics-file \"$n\": exit $rc, $(wc -l <<<"$out") lines: ${out%%$'\n'*}"
	done
	# Three agents on one stub, each with a directory of its own.
	stub prom
	ctl prom sticky "$here/recorded/list-1.json"
	ctl prom watchmode gone-http
	echo "not metrics" >"$t/victim"
	cp "$t/victim" "$t/victim.orig"
	for n in link tmp left; do
		mkdir -p "$t/prom-$n" "$d-$n"
		cp "$t/prom/url" "$t/prom/ca.crt" "$t/prom/token" "$t/prom-$n/"
	done
	# link: the file is a symlink to another file.
	ln -s "$t/victim" "$d-link/tsq_kube.prom"
	agent prom-link --metrics-file "$d-link/tsq_kube.prom"
	a_link=$agent
	# tmp: a symlink at the temporary name (.FILE.PID.tmp), the pid known
	# before the agent execs with it; left: a regular file of ours there.
	plant() { ln -s "$t/victim" "$d-tmp/.tsq_kube.prom.$BASHPID.tmp"; exec "$@"; }
	PRE=plant agent prom-tmp --metrics-file "$d-tmp/tsq_kube.prom"
	a_tmp=$agent
	leave() { echo "half a file" >"$d-left/.tsq_kube.prom.$BASHPID.tmp"; exec "$@"; }
	PRE=leave agent prom-left --metrics-file "$d-left/tsq_kube.prom"
	a_left=$agent
	for n in link tmp left; do
		wait_log "prom-$n" "(failure 3," 20000 ||
			fail "metrics: $n: no third failure: $(tail -1 "$t/prom-$n/log")"
	done
	stop "$a_link"
	stop "$a_tmp"
	stop "$a_left"
	prom=$d-link/tsq_kube.prom
	nf=$(sed -n 's/.*(failure \([0-9]*\), back-off.*/\1/p' "$t/prom-link/log" | tail -1)
	mf=$(metric tsq_kube_failures_total "$prom")
	cmp -s "$t/victim" "$t/victim.orig" && [ -f "$prom" ] && [ ! -L "$prom" ] && [ "$mf" = "$nf" ] &&
		pass "metrics: a symlink at the file is replaced ($nf failures), its target unchanged" ||
		fail "metrics: link: $(ls -l "$d-link" | tail -n +2 | tr '\n' ' '); failures $mf (log: $nf)"
	tmp=$d-tmp/.tsq_kube.prom.$a_tmp.tmp
	n=$(grep -c -- '--metrics-file' "$t/prom-tmp/log")
	# Writes tried: after each list and failure, and at exit.
	w=$(sed -n 's/.*exiting after \([0-9]*\) lists and \([0-9]*\) failures.*/\1 \2/p' \
		"$t/prom-tmp/log" | awk '{ print $1 + $2 + 1 }')
	cmp -s "$t/victim" "$t/victim.orig" && [ -L "$tmp" ] && [ ! -e "$d-tmp/tsq_kube.prom" ] &&
		[ "$n" = 1 ] && [ "${w:-0}" -ge 7 ] &&
		grep -qF "creating .tsq_kube.prom.$a_tmp.tmp: File exists, and not a regular file of ours" \
			"$t/prom-tmp/log" &&
		pass "metrics: a symlink at the temporary name left alone, its target unchanged; 1 line, $w writes" ||
		fail "metrics: tmp: $(ls -lA "$d-tmp" | tail -n +2 | tr '\n' ' '); $n lines: $(grep -m2 -- '--metrics-file' "$t/prom-tmp/log")"
	prom=$d-left/tsq_kube.prom
	n=$(metric tsq_kube_lists_total "$prom")
	[ "$(ls -A "$d-left")" = tsq_kube.prom ] && [ "${n:-0}" -ge 3 ] &&
		! grep -q -- '--metrics-file' "$t/prom-left/log" &&
		pass "metrics: a crash's leftover at the temporary name is replaced, the file written" ||
		fail "metrics: left: $(ls -A "$d-left" | tr '\n' ' '); $(grep -m1 -- '--metrics-file' "$t/prom-left/log")"
}

# uninit: an ERROR event under valgrind
t_uninit() {
	if command -v valgrind >/dev/null; then
		stub vg
		ctl vg list "$here/recorded/list-1.json"
		PRE="valgrind -q --error-exitcode=99 --log-file=$t/vg/valgrind" agent vg
		if wait_log vg "listed the pods" 60000; then
			for _ in $(seq 100); do [ "$(watches vg)" -gt 0 ] && break; sleep 0.1; done
			ctl vg raw '{"type":"ERROR","object":{"kind":"Status","code":500,"message":"etcd timeout"}}'
			wait_log vg "ended by an error event" 20000 ||
				wait_log vg 'again from resourceVersion' 20000
			sleep 1
			kill "$agent"
			wait "$agent"
			rc=$?
			[ "$rc" = 0 ] && ! grep -q 'uninitialised' "$t/vg/valgrind" &&
				pass "uninit: an ERROR event under valgrind: no error (exit $rc)" ||
				fail "uninit: valgrind exit $rc: $(grep -m3 -E 'uninit|at 0x' "$t/vg/valgrind")"
		else
			fail "uninit: not listed under valgrind: $(tail -2 "$t/vg/log")"
			stop "$agent"
		fi
	else
		echo "# SKIP: uninit: no valgrind"
	fi
}

# inject: what the server writes reaches the log quoted
t_inject() {
	stub inj
	evil='5\u001b[31m\ntsq-kube: forged'
	printf '{"kind":"PodList","metadata":{"resourceVersion":"%s list"},"items":[]}' "$evil" >"$t/inj.json"
	ctl inj rawlist "$t/inj.json"
	ctl inj sticky "$here/recorded/list-1.json"
	agent inj
	wait_log inj "listed the pods" || fail "inject: not listed"
	for _ in $(seq 100); do [ "$(watches inj)" -gt 0 ] && break; sleep 0.1; done
	ctl inj raw "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"resourceVersion\":\"$evil bookmark\"}}}"
	ctl inj gone
	wait_log inj "listed the pods of node node-1 at resourceVersion 995" ||
		fail "inject: no second list: $(tail -2 "$t/inj/log")"
	stop "$agent"
	if grep -q '^tsq-kube: forged' "$t/inj/log" || grep -q $'\x1b' "$t/inj/log"; then
		grep -an -e "^tsq-kube: forged" -e $'\x1b' "$t/inj/log" | cat -v | sed "s/^/# /"
		fail "inject: a forged line or a raw ESC in the log: $(grep -a -m2 forged "$t/inj/log" | cat -v)"
	else
		[ "$(grep -o 'x1b\[31m\\x0atsq-kube: forged' "$t/inj/log" | wc -l)" -ge 3 ] &&
			pass "inject: resourceVersion with ESC and newline logged escaped, no forged line" ||
			fail "inject: $(grep -m3 forged "$t/inj/log")"
	fi
}

# endless: continue tokens without end cannot make files without end
t_endless() {
	stub endless
	ctl endless endless
	agent endless
	wait_log endless "more than 8192 pods in one list: refused" 30000 ||
		fail "endless: the list was never refused: $(tail -1 "$t/endless/log")"
	sleep 1
	stop "$agent"
	n=$(ls "$t/endless/d" | wc -l)
	r=$(sed -n 's/.*, \([0-9]*\) refused (--max-pods 1024).*/\1/p' "$t/endless/log" | tail -1)
	[ "$n" = 1024 ] && [ "${r:-0}" -ge 7168 ] &&
		grep -q 'refused: 1024 pods with a policy already (--max-pods 1024)' "$t/endless/log" &&
		pass "endless: $n drop-ins (--max-pods 1024), $r pods refused and counted" ||
		fail "endless: $n drop-ins, refused ${r:-none}: $(grep -m2 refused "$t/endless/log")"
}

# KUBE_HOSTILE="mirror ca": those attacks only.
for s in mirror memory big ca backoff metrics uninit inject endless; do
	case " ${KUBE_HOSTILE:-$s} " in *" $s "*) "t_$s" ;; esac
done
