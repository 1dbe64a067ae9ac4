#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsq-kube offline: a stub API server on loopback (HTTPS, a test CA made
# here, a bearer token) replays recorded list and watch responses
# (tests/host/kube/recorded, in the shape kubectl get pods -o json
# --watch --output-watch-events prints), and after each step the drop-in
# directory must equal its golden copy (tests/host/kube/golden). Then
# 5,000 pods: every drop-in right, the agent's memory and CPU, the time
# to converge after the list and after 1,000 watch events.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/kube/host.sh"
kube_host_init test_kube
stub= agent=
cleanup() {
	[ -z "$agent" ] || kill "$agent" 2>/dev/null
	[ -z "$stub" ] || kill "$stub" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT

. "$here/stub.sh"
kube_stub_start "$t" || { echo "FAIL: the stub API server did not start"; exit 1; }
stub=$KUBE_STUB_PID
ctl() { kube_ctl "$@"; }

# start_agent DRIVER DIR [ARGS]: tsq-kube against the stub, log in $t/agent.log.
start_agent() {
	: >"$t/agent.log"
	# shellcheck disable=SC2046
	"$kube" -v --node node-1 $(kube_args) --cgroup-driver "$1" --dropin-dir "$2" "${@:3}" \
		>>"$t/agent.log" 2>&1 &
	agent=$!
}
stop_agent() {
	kill "$agent" 2>/dev/null
	wait "$agent" 2>/dev/null
	agent=
}

# wait_log TEXT [MS]: until the agent's log has TEXT; fails after MS (10 s).
wait_log() {
	local t0
	t0=$(now_ms)
	until grep -qF -- "$1" "$t/agent.log"; do
		(( $(now_ms) - t0 > ${2:-10000} )) && return 1
		sleep 0.02
	done
}
count_log() { grep -cF -- "$1" "$t/agent.log"; }

# golden NAME DIR: DIR holds exactly the files of golden/NAME.
# KUBE_GOLDEN_UPDATE=1 writes them instead: review the diff before committing.
golden() {
	local d
	if [ "${KUBE_GOLDEN_UPDATE:-0}" = 1 ]; then
		rm -rf "$here/golden/$1" && mkdir -p "$here/golden/$1" && cp -a "$2/." "$here/golden/$1/"
		echo "# golden/$1 updated"
		return
	fi
	if d=$(diff -r "$here/golden/$1" "$2" 2>&1); then
		pass "$1: drop-ins as golden ($(ls "$2" | wc -l) files)"
	else
		fail "$1: drop-ins differ from golden: $(head -c 600 <<<"$d")"
	fi
}

# step NAME RV: the agent has applied everything up to resourceVersion RV.
step() {
	if wait_log "at resourceVersion $2"; then
		golden "$1" "$dir"
	else
		fail "$1: the agent never reached resourceVersion $2"
		tail -5 "$t/agent.log" | sed 's/^/# /'
	fi
}

# Requests as the stub logged them: jq over one JSON object a line.
requests() { jq -c "$1" "$t/requests"; }
watches() { requests 'select(.query.watch == "1")' | wc -l; }
# wait_watch N: until the agent made watch request N + 1. Events for a
# new watch go to the stub after it: a cut connection's handler could
# take them otherwise.
wait_watch() {
	for _ in $(seq 200); do
		[ "$(watches)" -gt "$1" ] && return
		sleep 0.05
	done
}

rec=$here/recorded
alive() {
	if kill -0 "$agent" 2>/dev/null; then pass "$1: the agent still runs"
	else fail "$1: the agent died: $(tail -3 "$t/agent.log")"; fi
}

### systemd driver: every kind of step
dir=$t/systemd
mkdir -m 755 "$dir"
# A drop-in a previous run left for a pod that is gone by now.
printf '# tsq-kube: pod default/gone-0, annotation tsq.io/policy\nkubepods-pod9f9f9f9f_0000_4000_8000_000000000001.slice limit 8k\n' \
	>"$dir/tsq-kube-pod-9f9f9f9f-0000-4000-8000-000000000001.conf"
touch "$dir/.tsq-kube-pod-9f9f9f9f-0000-4000-8000-000000000002.tmp"
ctl list "$rec/list-1.json"
start_agent systemd "$dir"
# The list's resourceVersion: the newest of its pods (kubectl's List has none).
wait_log "listed the pods of node node-1 at resourceVersion 995" ||
	fail "list: not listed: $(tail -3 "$t/agent.log")"
golden systemd/1-list "$dir"
r=$(requests 'select(.query.watch == null) | [.auth, .query.fieldSelector, .query.limit]' | head -1)
[ "$r" = '[true,"spec.nodeName=node-1","500"]' ] &&
	pass "list: bearer token, field selector spec.nodeName=node-1, pages of 500" ||
	fail "list: request $r"
[ "$(count_log 'uid 9f9f9f9f-0000-4000-8000-000000000001: policy removed (pod no longer listed)')" = 1 ] &&
	pass "list: a drop-in of a pod no longer there removed" ||
	fail "list: stale drop-in: $(grep 9f9f9f9f "$t/agent.log")"

ctl events "$rec/events-1.json"
step systemd/2-events 1006
r=$(requests 'select(.query.watch == "1") | [.query.resourceVersion, .query.allowWatchBookmarks]' | head -1)
[ "$r" = '["995","true"]' ] && pass "watch: from the list's resourceVersion, with bookmarks" ||
	fail "watch: request $r"
[ "$(count_log 'default/job-0: policy removed (pod finished)')" = 1 ] &&
	[ "$(count_log 'default/db-0: policy removed (pod deleted)')" = 1 ] &&
	[ "$(count_log 'default/cache-0: ')" = 1 ] &&
	pass "events: a deleted and a finished pod lose their drop-in; an unchanged policy is not rewritten" ||
	fail "events: $(grep -E 'job-0|db-0|cache-0' "$t/agent.log" | head -5)"

ctl events "$rec/bookmark.json"
wait_log "BOOKMARK, at resourceVersion 1010" && pass "bookmark: resourceVersion 1010 taken" ||
	fail "bookmark: not seen"
# Half an event, then the connection cut: nothing of it applies, and the
# watch resumes from the bookmark.
n0=$(watches)
ctl drop "$rec/events-2.json"
wait_log "connection lost" || fail "drop: not noticed"
wait_watch "$n0"
r=$(requests 'select(.query.watch == "1") | .query.resourceVersion' | tail -1)
[ "$r" = '"1010"' ] && pass "drop: watched again from the bookmark's resourceVersion 1010" ||
	fail "drop: watched again from $r"
golden systemd/2-events "$dir"
ctl events "$rec/events-2.json"
step systemd/3-after-drop 1011

# Bad values: one line each, nothing changed, the agent runs on.
ctl events "$rec/events-bad.json"
step systemd/3-after-drop 1017
alive "bad values"
[ "$(count_log 'default/web-0: annotation tsq.io/policy: ')" = 1 ] &&
	[ "$(count_log 'its policy stays as it was')" = 1 ] &&
	pass "bad value on web-0: one line for two events, its policy kept" ||
	fail "bad value on web-0: $(grep web-0 "$t/agent.log" | tail -3)"
[ "$(count_log 'default/evil-0: annotation tsq.io/policy: ')" = 1 ] &&
	[ "$(count_log 'a pod skipped: uid "../../../etc/tsq/x" is not a pod uid')" = 1 ] &&
	[ "$(count_log 'default/evil-2: no QoS class known')" = 1 ] &&
	[ "$(count_log 'default/evil-3: annotation tsq.io/policy: duplicate "limit"')" = 1 ] &&
	pass "hostile input: a newline in the value, a uid with slashes, an unknown QoS class, a duplicate keyword: one line each" ||
	fail "hostile input: $(grep -E 'evil|skipped' "$t/agent.log")"
grep -F 'evil-0' "$t/agent.log" | sed 's/^/# /'

# Bytes that are no JSON: the stream cannot be trusted past them, so
# the watch starts again from the last good resourceVersion. A JSON
# value that is no event is skipped on the same connection.
n0=$(watches)
ctl raw '{"type":"MODIFIED","object":{"metadata":{"uid":}}}'
wait_log "watch: JSON value" || fail "malformed: not noticed"
wait_watch "$n0"
ctl raw '[1,2]'
ctl events "$rec/events-3.json"
step systemd/4-malformed 1018
r=$(requests 'select(.query.watch == "1") | .query.resourceVersion' | tail -1)
[ "$(watches)" -gt "$n0" ] && [ "$r" = '"1017"' ] &&
	[ "$(count_log 'an event without type or object skipped')" = 1 ] &&
	pass "malformed: watched again from 1017; a non-event skipped" ||
	fail "malformed: from $r; $(grep -E 'JSON|skipped' "$t/agent.log")"
alive malformed

# 410 Gone: list again; pods that went meanwhile lose their drop-in.
ctl list "$rec/list-2.json"
ctl gone
wait_log "listed the pods of node node-1 at resourceVersion 1040" &&
	golden systemd/5-relist "$dir" || fail "410: no second list"
r=$(requests 'select(.query.watch == "1") | .query.resourceVersion' | tail -1)
for _ in $(seq 100); do
	[ "$r" = '"1040"' ] && break
	sleep 0.05
	r=$(requests 'select(.query.watch == "1") | .query.resourceVersion' | tail -1)
done
[ "$r" = '"1040"' ] && pass "410: watching from the new list's resourceVersion" ||
	fail "410: watching from $r"
ctl events "$rec/events-4.json"
step systemd/6-deleted 1041

stop_agent
ls -a "$dir" | grep -q '^\.tsq' && fail "a temporary file left" || pass "no temporary file left"

### cgroupfs driver: the same pods, /kubepods/<qos>/pod<uid>
dir=$t/cgroupfs
ctl list "$rec/list-1.json"
start_agent cgroupfs "$dir"
wait_log "listed the pods of node node-1" || fail "cgroupfs: not listed"
golden cgroupfs/1-list "$dir"
echo "# 6 pods: peak RSS $(awk '/^VmHWM/ { print $2 }' "/proc/$agent/status") KiB"
stop_agent

# A continue token that expired (410 on the second page): the list
# starts over, and what the first page wrote goes if the new list lacks it.
"$py" "$here/mkpods.py" many 600 node-1 "$t/six.json" "$t/golden-six"
dir=$t/expire
ctl list "$t/six.json" expire
ctl list "$rec/list-1.json"
start_agent systemd "$dir"
wait_log "listed the pods of node node-1 at resourceVersion 995" || fail "expire: not listed"
[ "$(count_log 'list: 410 Gone (a continue token expired)')" = 1 ] &&
	[ "$(count_log 'policy removed (pod no longer listed)')" = 250 ] &&
	pass "expired continue token: listed again, the 250 drop-ins of the first page removed" ||
	fail "expire: $(grep -c 'no longer listed' "$t/agent.log") removed; $(grep 'list:' "$t/agent.log")"
golden systemd/1-list "$dir"
stop_agent

### 5,000 pods on the node, 2,500 with a policy, each with the annotations
### of a Deployment's pod (mkpods.py realistic())
"$py" "$here/mkpods.py" many 5000 node-1 "$t/many.json" "$t/golden-many"
"$py" "$here/mkpods.py" churn 5000 1000 "$t/churn.json" "$t/golden-churn"
dir=$t/many
pages0=$(requests 'select(.query.watch == null)' | wc -l)
ctl list "$t/many.json"
t0=$(now_ms)
start_agent systemd "$dir" --max-pods 5000
wait_log "listed the pods of node node-1 at resourceVersion 14999" 120000 ||
	fail "5000: not listed within 120 s"
t1=$(now_ms)
read -r _ _ _ _ _ _ _ _ _ _ _ _ _ ut st _ <"/proc/$agent/stat"
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$agent/status")
hz=$(getconf CLK_TCK)
if d=$(diff -r "$t/golden-many" "$dir"); then
	pass "5000 pods: $(ls "$dir" | wc -l) drop-ins, each as expected"
else
	fail "5000 pods: $(head -c 400 <<<"$d")"
fi
pages=$(requests 'select(.query.watch == null)' | wc -l)
pages=$((pages - pages0))
echo "# 5000 pods: converged $((t1 - t0)) ms after start ($pages pages of 500 listed so far)," \
	"CPU $(( (ut + st) * 1000 / hz )) ms, peak RSS $hwm KiB"
ctl events "$t/churn.json"
t0=$(now_ms)
wait_log "at resourceVersion 20999" 60000 || fail "5000: churn events not applied"
t1=$(now_ms)
read -r _ _ _ _ _ _ _ _ _ _ _ _ _ ut2 st2 _ <"/proc/$agent/stat"
hwm2=$(awk '/^VmHWM/ { print $2 }' "/proc/$agent/status")
if d=$(diff -r "$t/golden-churn" "$dir"); then
	pass "5000 pods, 1000 events: $(ls "$dir" | wc -l) drop-ins, each as expected"
else
	fail "5000 pods, 1000 events: $(head -c 400 <<<"$d")"
fi
echo "# 5000 pods: 1000 events applied in $((t1 - t0)) ms, CPU $(( (ut2 + st2 - ut - st) * 1000 / hz )) ms;" \
	"peak RSS $hwm2 KiB"
# Pods are read one at a time, and only the fields used: the peak is the
# agent's own (libcurl, GnuTLS, json-c) and its table, not the list's.
[ "$hwm2" -lt 16384 ] && pass "5000 pods: peak RSS $hwm2 KiB < 16 MiB" ||
	fail "5000 pods: peak RSS $hwm2 KiB, not < 16 MiB"
stop_agent
