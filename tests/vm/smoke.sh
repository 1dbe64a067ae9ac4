#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Smoke test of the VM itself: kernel, mounts, NICs, test network, iperf3.
# On the host it boots a VM via run-vm and runs itself inside.
# shellcheck source-path=SCRIPTDIR
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ "${TSQ_IN_VM:-}" = 1 ] || exec "$here/run-vm" "$@" -- "$here/smoke.sh"

failed=0
check() { # NAME CMD...: one PASS/FAIL line per check
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "PASS $name${out:+: $out}"
	else
		echo "FAIL $name${out:+: $out}"
		failed=$((failed + 1))
	fi
}

# The release the caller names (run-vm -e TSQ_KREL=R, from the release
# file scripts/build-kernel.sh keeps beside the kernel), or a 6.12.
kernel_release() {
	local r
	r=$(uname -r)
	echo "$r"
	[[ $r == "${TSQ_KREL:-6.12}"* ]]
}
root_9p_ro() {
	# the last mount on / is the one in use
	local m
	m=$(awk '$2 == "/" {l = $3 " " $4} END {print l}' /proc/self/mounts)
	echo "${m%%,*}"
	[[ $m == "9p ro,"* || $m == "9p ro" ]]
}
mounted() { # FSTYPE DIR
	awk -v t="$1" -v d="$2" '$2 == d && $3 == t {f = 1} END {exit !f}' \
		/proc/self/mounts || { echo "no $1 on $2"; return 1; }
}
driver() { # NETNS|"" DEV
	local drv ns=()
	[ -z "$1" ] || ns=(ip netns exec "$1")
	drv=$("${ns[@]}" readlink "/sys/class/net/$2/device/driver") || return 1
	echo "$2 ${drv##*/}"
	[ "${drv##*/}" = virtio_net ]
}
napi_tx() {
	local p=/sys/module/virtio_net/parameters/napi_tx
	cat "$p" || return 1
	[ "$(cat "$p")" = Y ]
}
ping_peer() {
	local f=/sys/class/net/$TSQ_DEV/statistics/tx_packets tx0 tx1
	tx0=$(cat "$f")
	ping -q -c1 -W5 "$TSQ_PEER_IP" >/dev/null || { echo "no reply"; return 1; }
	tx1=$(cat "$f")
	echo "$TSQ_DEV tx_packets +$((tx1 - tx0))"
	[ "$tx1" -gt "$tx0" ]
}
iperf() {
	local out mbps
	ip netns exec "$TSQ_NETNS" iperf3 -s -D -1 -B "$TSQ_PEER_IP" || return 1
	# the daemon needs a moment to listen
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		out=$(iperf3 -c "$TSQ_PEER_IP" -t 3 -f m 2>&1) && break
		sleep 0.5
	done
	mbps=$(awk '/receiver/ {print $(NF - 2)}' <<<"$out")
	[ -n "$mbps" ] || { echo "$out"; return 1; }
	echo "$mbps Mbit/s"
	awk -v m="$mbps" 'BEGIN {exit !(m > 10)}'
}

check "kernel is ${TSQ_KREL:-6.12}" kernel_release
check "root is 9p, read-only" root_9p_ro
check "cgroup2 on /sys/fs/cgroup" mounted cgroup2 /sys/fs/cgroup
check "bpffs on /sys/fs/bpf" mounted bpf /sys/fs/bpf
check "virtio_net napi_tx" napi_tx
# shellcheck source=netsetup
if . "$here/netsetup"; then
	echo "PASS netsetup: $TSQ_DEV / $TSQ_NETNS:$TSQ_PEER_DEV"
	check "NIC driver (root ns)" driver "" "$TSQ_DEV"
	check "NIC driver (peer ns)" driver "$TSQ_NETNS" "$TSQ_PEER_DEV"
	check "ping $TSQ_PEER_IP via $TSQ_DEV" ping_peer
	check "iperf3 3s > 10 Mbit/s" iperf
else
	echo "FAIL netsetup (see above)"
	failed=$((failed + 1))
fi

if [ "$failed" -gt 0 ]; then
	echo "smoke: $failed check(s) failed"
	exit 1
fi
echo "smoke: all checks passed"
