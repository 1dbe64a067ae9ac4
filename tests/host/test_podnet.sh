#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqctl doctor names the network set-up of each pod-like netns: one
# behind a routed veth, a bridged veth, a macvlan and an ipvlan of a
# NIC (a veth here: this host has no dummy), a veth with a BPF filter on its host side; the routed one
# gets a line of advice, as it defeats tsq.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tsqctl=${OUTPUT:-$top/.output}/tsqctl
[ "$(id -u)" = 0 ] || { echo "# SKIP: test_podnet: needs root"; exit 0; }
p=tqpn$$ nic=tqnic$$
t=$(mktemp -d)
cleanup() {
	for n in routed bridged macvlan ipvlan bpf; do ip netns del "$p-$n" 2>/dev/null; done
	ip link del "$nic" 2>/dev/null
	ip link del "${p}br" 2>/dev/null
	ip link del "${p}r" 2>/dev/null
	ip link del "${p}b" 2>/dev/null
	ip link del "${p}x" 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT

# pod_side NETNS DEV: up, with the default route through DEV.
pod_side() {
	ip -n "$1" link set "$2" up && ip -n "$1" route add default dev "$2"
}
# veth_pod NAME HOSTDEV: a netns behind a veth whose host end is HOSTDEV.
veth_pod() {
	ip netns add "$p-$1" && ip link add "$2" type veth peer name eth0 netns "$p-$1" &&
	ip link set "$2" up && pod_side "$p-$1" eth0
}
ip link add "$nic" type veth peer name "${nic}p" && ip link set "$nic" up &&
veth_pod routed "${p}r" &&
ip link add "${p}br" type bridge && ip link set "${p}br" up &&
veth_pod bridged "${p}b" && ip link set "${p}b" master "${p}br" &&
ip netns add "$p-macvlan" && ip link add "${p}m" link "$nic" type macvlan mode bridge &&
ip link set "${p}m" netns "$p-macvlan" && pod_side "$p-macvlan" "${p}m" &&
veth_pod bpf "${p}x" && tc qdisc add dev "${p}x" clsact &&
tc filter add dev "${p}x" ingress bpf bytecode '1,6 0 0 4294967295,' flowid 1:1 ||
	{ echo "FAIL: setting up the namespaces"; exit 1; }
# Built as a module on most kernels; this host has no modules.
ipvlan="ipvlan ipvlan -"
ip netns add "$p-ipvlan" &&
	{ ip link add "${p}i" link "$nic" type ipvlan mode l2 2>/dev/null &&
	  ip link set "${p}i" netns "$p-ipvlan" && pod_side "$p-ipvlan" "${p}i"; } ||
	{ echo "# SKIP: ipvlan netns: this kernel has no ipvlan"; ipvlan=; }

"$tsqctl" -j doctor >"$t/j"
rc=$?
via() { jq -r --arg n "$p-$1" '.pod_netns[] | select(.netns == $n) | .via' "$t/j"; }
host_dev() { jq -r --arg n "$p-$1" '.pod_netns[] | select(.netns == $n) | .host_dev' "$t/j"; }
br=bridged-veth
[ "$(cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null)" = 1 ] &&
	br=bridged-veth-br-netfilter
for c in "routed routed-veth ${p}r" "bridged $br ${p}b" "macvlan macvlan -" ${ipvlan:+"$ipvlan"} \
	 "bpf bpf ${p}x"; do
	read -r n want hd <<<"$c"
	if [ "$(via "$n")" = "$want" ] && [ "$(host_dev "$n")" = "$hd" ]; then
		echo "PASS: $n netns: $want (host side $hd)"
	else
		echo "FAIL: $n netns: $(via "$n") (host side $(host_dev "$n")), want $want ($hd)"
	fi
done
adv=$(jq -r '.advice[] | select(contains("routed veth"))' "$t/j")
[ "$rc" = 1 ] && [ -n "$adv" ] && echo "PASS: advice on the routed veth, exit 1: $adv" ||
	echo "FAIL: advice: rc $rc, $(jq -c .advice "$t/j")"
"$tsqctl" doctor | grep -q "^  $p-routed: routed veth (eth0, host side ${p}r): skbs orphaned" &&
	echo "PASS: text output names the routed veth" ||
	echo "FAIL: text: $("$tsqctl" doctor | grep "$p-routed")"
