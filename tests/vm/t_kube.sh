#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsq-test: systemd
# Pods as a kubelet makes them, with tsq-kube reading their annotation
# from a stub API server (tests/host/kube) and tsqd applying the drop-ins:
# - systemd driver: pod slices made by systemd-run
#   --slice=kubepods-<qos>-pod<uid_>.slice, a sandbox process holding the
#   pod's own netns (a macvlan on the virtio NIC, where tsq sees the NIC's
#   queue), and bulk flows from inside it. The annotated pod's flow keeps
#   a small queue, the other pod's the stock one, in the same run. An
#   annotation added to a running pod reaches its running flow in the
#   pod's netns; deleting the pod takes the policy away again.
# - cgroupfs driver: /kubepods/<qos>/pod<uid> made by hand, the same.
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/host/kube/stub.sh
. "$TOP/tests/host/kube/stub.sh"

TSQD=$OUT/tsqd
KUBE=$OUT/tsq-kube
MKPODS=$TOP/tests/host/kube/mkpods.py
node=vm-node
uid_a=0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9	# annotated from the start
uid_b=2b3c4d5e-6f70-4b9c-8d1e-2f3a4b5c6d7e	# none, until the change
uid_c=5e6f7081-92a3-4b4c-8d5e-6f708192a3b4	# cgroupfs, annotated
slice() { echo "kubepods-burstable-pod${1//-/_}.slice"; }
slice_path() { echo "/kubepods.slice/kubepods-burstable.slice/$(slice "$1")"; }
pol='limit 8k tso 8k'

tbf_on 100mbit
iperf_server
conf=$TMP/tsq.conf
mkdir -m 755 "$TMP/conf.d"
echo '# node-wide policy: none in this test' >"$conf"
"$TSQD" -c "$conf" -d "$TMP/conf.d" -i 0 2>>"$TMP/tsqd.log" &
tsqd_pid=$!
until_ok 20000 curl -sf http://127.0.0.1:9731/metrics >/dev/null ||
	fail "tsqd did not start: $(tail -3 "$TMP/tsqd.log")"

# A pod's netns: a macvlan of the virtio NIC, so its skbs reach the NIC's
# qdisc with their socket (tsqctl doctor: "macvlan").
pod_netns() {
	ip netns add "$1" &&
	ip link add link "$TSQ_DEV" name "mv-$1" type macvlan mode bridge &&
	ip link set "mv-$1" netns "$1" &&
	ip -n "$1" link set lo up &&
	ip -n "$1" addr add "$2/24" dev "mv-$1" &&
	ip -n "$1" link set "mv-$1" up &&
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.mv-$1.disable_ipv6=1"
}
pod_netns pod-a 198.18.0.11 && pod_netns pod-b 198.18.0.12 && pod_netns pod-c 198.18.0.13 ||
	fail "pod network namespaces"
check "pod-a's netns reaches the peer" 'rc == 0' \
	rc="$(ip netns exec pod-a ping -q -c1 -W3 "$TSQ_PEER_IP" >/dev/null; echo $?)"

# The sandbox ("pause") process: in the pod's slice and netns for the
# pod's life, as the kubelet's pod sandbox is.
sandboxes=()
sandbox() {
	systemd-run --quiet --scope --slice="$(slice "$1")" --unit="sandbox-$2" \
		ip netns exec "$2" sleep 600 &
	sandboxes+=($!)
}
# pod_flow NAME UID NETNS SECS: a bulk flow in a container scope of the pod.
pod_flow() {
	systemd-run --quiet --scope --slice="$(slice "$2")" --unit="ctr-$1" \
		ip netns exec "$3" iperf3 -c "$TSQ_PEER_IP" -t "$4" -C cubic -J \
		>"$TMP/$1.json" 2>"$TMP/$1.err"
}
pod_measure() {
	local pid
	pod_flow "$@" &
	pid=$!
	sample "$1" "$pid"
	wait "$pid"
}
# tsqctl show lists the cgroup (0), does not (1), or failed (2): jq -e
# says true on empty input.
shown() {
	local j
	j=$("$TSQCTL" -j show) && [ -n "$j" ] || return 2
	jq -e --arg c "$1" '[.[] | select(.cgroup == $c)] | length == 1' <<<"$j" >/dev/null
}
not_shown() { shown "$1"; [ $? = 1 ]; }

kube_stub_start "$TMP" || fail "stub API server"
"$MKPODS" list "$TMP/list.json" "$node" "pod-a:$uid_a:Burstable:$pol" "pod-b:$uid_b:Burstable"
kube_ctl list "$TMP/list.json"
# shellcheck disable=SC2046
"$KUBE" -v --node "$node" -g systemd -d "$TMP/conf.d" $(kube_args) 2>"$TMP/kube.log" &
kube_pid=$!
t=$(until_ok 20000 grep -q 'listed the pods' "$TMP/kube.log")
log "tsq-kube listed after $t ms: $(grep -c . "$TMP/kube.log") log lines"
check "tsq-kube: a drop-in for pod-a only" 'a == 1 && n == 1' n="$(ls "$TMP/conf.d" | wc -l)" \
	a="$(grep -lc "$(slice "$uid_a") $pol" "$TMP/conf.d"/*.conf | wc -l)"

sandbox "$uid_a" pod-a
sandbox "$uid_b" pod-b
t=$(until_logged 10000 "$(slice "$uid_a"): policy applied to $(slice_path "$uid_a")")
check "tsqd: pod-a's slice got its policy once systemd made it" 't < 10000' t="$t"

pod_measure stock-b "$uid_b" pod-b 4
sleep 1
pod_measure annot-a "$uid_a" pod-a 4
log "pod-b (no annotation): peak $(peak stock-b 500) B, mean $(mean stock-b 500) B," \
	"$(goodput stock-b) Mbit/s; pod-a ($pol): peak $(peak annot-a 500) B," \
	"mean $(mean annot-a 500) B, $(goodput annot-a) Mbit/s"
check "pod without annotation: stock queue" 'p >= 60000' p="$(peak stock-b 500)"
check "annotated pod, in its own netns: small queue" 'p <= 24600 && p > 0' p="$(peak annot-a 500)"

# A running flow in pod-b: the annotation arrives, then the pod goes.
# Times in ms from the start of the sampling, as qdisc_backlog's are.
RV=200 "$MKPODS" event "$TMP/ev1.json" MODIFIED "$node" "pod-b:$uid_b:Burstable:$pol"
RV=201 "$MKPODS" event "$TMP/ev2.json" DELETED "$node" "pod-b:$uid_b:Burstable:$pol"
syncs() { grep -c "synced the established connections of 1 network namespaces" "$TMP/tsqd.log"; }
# wait_sync N: ms from now until tsqd logged more than N syncs of a pod's netns.
wait_sync() {
	local t0
	t0=$(now_ms)
	until [ "$(syncs)" -gt "$1" ]; do
		(( $(now_ms) - t0 > 8000 )) && { echo 999999; return 1; }
		sleep 0.05
	done
	echo $(( $(now_ms) - t0 ))
}
# Times on one clock, without an exec: bash's $EPOCHREALTIME here,
# qdisc_backlog's wall clock (unix) there, as ms since the flow began.
epoch_ms() { local t=${EPOCHREALTIME/./}; echo $(( t / 1000 )); }
sleep 1
pod_flow live-b "$uid_b" pod-b 22 &
fpid=$!
ts=$(epoch_ms)
"$OUT/qdisc_backlog" "$TSQ_DEV" 2000 "$fpid" unix >"$TMP/live-b.unix" &
spid=$!
# event_sync FILE: send FILE's event; prints when (ms into the flow)
# and how long until tsqd had synced a pod's netns after it.
event_sync() {
	local n at
	n=$(syncs)
	at=$(( $(epoch_ms) - ts ))
	kube_ctl events "$1"
	echo "$at $(wait_sync "$n")"
}
sleep 5
read -r t_ev t_on < <(event_sync "$TMP/ev1.json")
sh_on=$(until_ok 5000 shown "$(slice_path "$uid_b")")
sleep 6
read -r t_ev2 t_off < <(event_sync "$TMP/ev2.json")
sh_off=$(until_ok 5000 not_shown "$(slice_path "$uid_b")")
wait "$fpid" "$spid"
awk -v t0="$ts" '{ printf "%d %s\n", $1 * 1000 - t0, $2 }' "$TMP/live-b.unix" >"$TMP/live-b.bl"
cp "$TMP/live-b.bl" /mnt/out/ 2>/dev/null
on=$((t_ev + t_on + 500)) off=$((t_ev2 + t_off + 500))
# When in a window the peak was, for a failure's diagnosis.
peak_at() {
	awk -v a="$2" -v b="${3:-1e12}" '$1 >= a && $1 < b && $2 > m { m = $2; t = $1 }
		END { print t + 0 }' "$TMP/$1.bl"
}
log "live pod-b: peaks at $(peak_at live-b 1000 "$t_ev"), $(peak_at live-b "$on" "$t_ev2")," \
	"$(peak_at live-b "$off") ms; $(wc -l <"$TMP/live-b.bl") samples"
log "live pod-b: tsqctl show had the policy $sh_on ms after the sync, had it no more" \
	"$sh_off ms after the second"
log "live pod-b: annotation at $t_ev ms, its netns synced $t_on ms later; deletion at $t_ev2 ms," \
	"synced $t_off ms later; peak $(peak live-b 1000 "$t_ev") B before," \
	"$(peak live-b "$on" "$t_ev2") B with the policy, $(peak live-b "$off") B after the deletion"
check "running flow before its pod's annotation: stock queue" 'p >= 60000' \
	p="$(peak live-b 1000 "$t_ev")"
check "annotation change reached the running flow in the pod's netns" \
	'p <= 24600 && p > 0 && s < 5000 && t < 8000' p="$(peak live-b "$on" "$t_ev2")" s="$sh_on" t="$t_on"
check "pod deleted: the policy is gone (show) and the flow's queue is stock again" \
	'p >= 60000 && s < 5000 && t < 8000' p="$(peak live-b "$off")" s="$sh_off" t="$t_off"
check "tsq-kube removed pod-b's drop-in" 'n == 1' \
	n="$(grep -c "default/pod-b: policy removed (pod deleted)" "$TMP/kube.log")"

### cgroupfs driver
kill "$kube_pid"
wait "$kube_pid"
mkdir -p /sys/fs/cgroup/kubepods/burstable/"pod$uid_c"
RV=300 "$MKPODS" list "$TMP/list2.json" "$node" "pod-c:$uid_c:Burstable:$pol"
kube_ctl list "$TMP/list2.json"
# shellcheck disable=SC2046
"$KUBE" -v --node "$node" -g cgroupfs -d "$TMP/conf.d" $(kube_args) 2>"$TMP/kube2.log" &
kube_pid=$!
t=$(until_logged 10000 "/kubepods/burstable/pod$uid_c: policy applied")
check "cgroupfs: tsqd applied pod-c's policy to /kubepods/burstable/pod<uid>" 't < 10000' t="$t"
check "cgroupfs: the systemd pods' drop-ins removed at the new list" 'n == 1' \
	n="$(ls "$TMP/conf.d" | wc -l)"
sleep 1
CG=/sys/fs/cgroup/kubepods/burstable/pod$uid_c NETNS=pod-c measure annot-c 4
log "pod-c (cgroupfs, $pol): peak $(peak annot-c 500) B, $(goodput annot-c) Mbit/s"
check "cgroupfs: annotated pod in its netns: small queue" 'p <= 24600 && p > 0' p="$(peak annot-c 500)"

check "tsqd ran throughout" 'r == 0' r="$(kill -0 "$tsqd_pid"; echo $?)"
kill "$kube_pid" "$KUBE_STUB_PID" "$tsqd_pid" "${sandboxes[@]}"
wait "$kube_pid" "$KUBE_STUB_PID" "$tsqd_pid" "${sandboxes[@]}" 2>/dev/null
grep -E 'synced|applied|removed' "$TMP/tsqd.log" | sed 's/^/# /'
"$TSQCTL" reset
rmdir /sys/fs/cgroup/kubepods/burstable/"pod$uid_c" /sys/fs/cgroup/kubepods/burstable \
	/sys/fs/cgroup/kubepods 2>/dev/null
check_dmesg kube
finish
