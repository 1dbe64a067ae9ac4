#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqctl doctor on this host: its exit code follows its advice, it reads
# links through netlink as ip(8) does, TCP's knobs of each named netns,
# and advises on the ones that work against TSQ.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tsqctl=${OUTPUT:-$top/.output}/tsqctl
ns=tsqdoc-$$ dev=tqd$$a
[ "$(id -u)" = 0 ] || { echo "# SKIP: test_doctor: needs root"; exit 0; }
command -v jq >/dev/null || { echo "# SKIP: test_doctor: no jq"; exit 0; }
t=$(mktemp -d)
trap 'ip netns del "$ns" 2>/dev/null; rm -rf "$t"' EXIT

# doctor OUT [NSENTER-ARGS]: -j output in OUT, exit code in OUT.rc.
doctor() {
	local o=$1
	shift
	"$@" "$tsqctl" -j doctor >"$o"
	echo $? >"$o.rc"
}

doctor "$t/host"
rc=$(cat "$t/host.rc") n=$(jq '.advice | length' "$t/host" 2>/dev/null)
if [ -n "$n" ] && { { [ "$rc" = 1 ] && [ "$n" -gt 0 ]; } || { [ "$rc" = 0 ] && [ "$n" = 0 ]; }; }; then
	echo "PASS: host: exit $rc with $n lines of advice"
else
	echo "FAIL: host: exit $rc, advice '$n'"
fi
lob=$(sysctl -n net.ipv4.tcp_limit_output_bytes)
if [ "$(jq '.sysctl.tcp_limit_output_bytes' "$t/host")" = "$lob" ] &&
   [ "$(jq -r '.congestion_control' "$t/host")" = "$(sysctl -n net.ipv4.tcp_congestion_control)" ]; then
	echo "PASS: host: tcp_limit_output_bytes $lob and congestion control as sysctl says"
else
	echo "FAIL: host: sysctl $(jq -c '{sysctl, congestion_control}' "$t/host")"
fi

# A netns with knobs that work against TSQ and a veth with a small GSO size.
ip netns add "$ns"
ip -n "$ns" link add "$dev" type veth peer name "${dev%a}b"
ip -n "$ns" link set "$dev" gso_max_size 16384 gso_max_segs 11
ip netns exec "$ns" sysctl -qw net.ipv4.tcp_limit_output_bytes=65536 net.ipv4.tcp_min_tso_segs=4
doctor "$t/host2"
e=$(jq -c --arg n "$ns" '.netns[] | select(.name == $n)' "$t/host2")
if [ "$(jq '.sysctl.tcp_limit_output_bytes' <<<"$e")" = 65536 ] &&
   [ "$(jq '.sysctl.tcp_min_tso_segs' <<<"$e")" = 4 ] && [ "$(cat "$t/host2.rc")" = 1 ] &&
   [ "$(jq --arg n "$ns" '[.advice[] | select(startswith("netns " + $n + ": "))] | length' "$t/host2")" = 2 ]; then
	echo "PASS: named netns: its sysctls read, two lines of advice on them"
else
	echo "FAIL: named netns: $e; advice $(jq -c .advice "$t/host2")"
fi
doctor "$t/ns" nsenter --net=/run/netns/"$ns"
l=$(jq -c --arg d "$dev" '.nics[] | select(.dev == $d)' "$t/ns")
ipl=$(ip -n "$ns" -d -j link show dev "$dev")
if [ "$(jq -r .driver <<<"$l")" = veth ] &&
   [ "$(jq .gso_max_size <<<"$l")" = "$(jq '.[0].gso_max_size' <<<"$ipl")" ] &&
   [ "$(jq .gso_max_segs <<<"$l")" = "$(jq '.[0].gso_max_segs' <<<"$ipl")" ] &&
   [ "$(jq .tx_queues <<<"$l")" = "$(jq '.[0].num_tx_queues' <<<"$ipl")" ] &&
   [ "$(jq .gso_max_size <<<"$l")" = 16384 ]; then
	echo "PASS: link in a netns as ip -d -j link says: $l"
else
	echo "FAIL: link: doctor $l, ip $(jq -c '.[0] | {gso_max_size, gso_max_segs, num_tx_queues}' <<<"$ipl")"
fi
"$tsqctl" doctor extra >/dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && echo "PASS: doctor with an argument: exit 2" ||
	echo "FAIL: doctor with an argument: exit $rc"
