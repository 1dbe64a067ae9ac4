# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/host/test_observe.sh and bench/observe.sh: two netns
# joined by a veth (198.18.0.1/30 sends, .2 receives), cgroups below the
# cgroup2 root, and processes started in both. netpair_cleanup undoes it
# all; callers trap it on EXIT.
#
#   netpair_init PREFIX    names, $t (a temp dir), $cgmnt; 1 if unusable
#   netpair_start TEST PREFIX CMD...
#                          netpair_init, or a SKIP and exit; a FAIL and
#                          exit when a CMD the test needs is missing
#   netpair_up GROUP...    cgroups $base/GROUP, netns $snd and $rcv, veth
#   spawn GROUP NETNS CMD  CMD in that cgroup and netns, in the background
#   netpair_tsqd           tsqd in the sender's netns, its own bpffs, log
#                          in $t/tsqd.log; stopped by netpair_cleanup
#   netpair_get PATH       tsqd's answer for PATH (/metrics, /stats.json)
#   topj ARGS              tsqctl -j top ARGS in the sender's netns
#   backlog                the root qdisc's backlog on the sender's veth
#   cg FRAME GROUP         GROUP's object in a tsqctl top -j frame
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${OUTPUT:-$top/.output}
tsqctl=$out/tsqctl
pids=() groups=()

netpair_init() {
	local c
	[ "$(id -u)" = 0 ] || { why="needs root"; return 1; }
	for c in iperf3 jq nsenter tc ss; do
		command -v $c >/dev/null || { why="no $c"; return 1; }
	done
	[ -r /sys/kernel/btf/vmlinux ] || { why="no kernel BTF"; return 1; }
	cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$cgmnt" ] || { why="no cgroup2 mount"; return 1; }
	snd=$1-s$$ rcv=$1-r$$ va=tqo$$a vb=tqo$$b base=$cgmnt/$1-$$
	t=$(mktemp -d)
}

netpair_start() {
	local name=$1 prefix=$2 c
	shift 2
	if ! netpair_init "$prefix"; then
		echo "# SKIP: $name: $why"
		exit 0
	fi
	for c; do
		command -v "$c" >/dev/null ||
			{ echo "FAIL: $name: no $c (scripts/install-deps.sh)"; exit 1; }
	done
}

netpair_cleanup() {
	local p g
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	ip netns del "$snd" 2>/dev/null
	ip netns del "$rcv" 2>/dev/null
	for g in "${groups[@]}"; do
		[ -d "$base/$g" ] || continue
		# Anything left (a straggler's child) goes back to the root.
		while read -r p; do echo "$p" >"$cgmnt/cgroup.procs"; done \
			<"$base/$g/cgroup.procs" 2>/dev/null
	done
	# Bottom-up, groups nested or not; find walks paths past PATH_MAX
	# a directory at a time.
	[ -d "$base" ] && find "$base" -depth -type d -execdir rmdir {} \; 2>/dev/null
	rm -rf "$t"
}

netpair_up() {
	local g
	groups=("$@")
	for g in "$@"; do
		mkdir -p "$base/$g" || return 1
	done
	ip netns add "$snd" && ip netns add "$rcv" || return 1
	ip link add "$va" netns "$snd" type veth peer name "$vb" netns "$rcv" || return 1
	ip -n "$snd" addr add 198.18.0.1/30 dev "$va" &&
	ip -n "$rcv" addr add 198.18.0.2/30 dev "$vb" &&
	ip -n "$snd" link set "$va" up && ip -n "$rcv" link set "$vb" up &&
	ip -n "$snd" link set lo up && ip -n "$rcv" link set lo up
}

spawn() {
	local g=$1 ns=$2
	shift 2
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec nsenter --net=/run/netns/"$@"' \
		sh "$base/$g" "$ns" "$@" >>"$t/spawn.log" 2>&1 &
	pids+=($!)
}

netpair_tsqd() {
	local i
	tsqd_port=$((20000 + ($$ + 41) % 20000))
	# tsqd lists the sockets of its own netns: the sender's.
	nsenter --net=/run/netns/"$snd" unshare -m sh -c \
		'mount -t bpf bpf /sys/fs/bpf && exec "$0" "$@"' "$out/tsqd" \
		--listen "127.0.0.1:$tsqd_port" --log-interval 0 2>"$t/tsqd.log" &
	pids+=($!)
	for i in $(seq 50); do
		grep -q 'statistics on' "$t/tsqd.log" && return 0
		sleep 0.1
	done
	return 1
}

netpair_get() {
	nsenter --net=/run/netns/"$snd" curl -sf --max-time 5 "http://127.0.0.1:$tsqd_port$1"
}

topj() {
	nsenter --net=/run/netns/$snd "$tsqctl" -j top "$@"
}

backlog() {
	tc -n "$snd" -s -j qdisc show dev "$va" | jq '.[0].backlog'
}

cg() {
	jq -c --arg p "${base#"$cgmnt"}/$2" '.cgroups[] | select(.cgroup == $p)' <<<"$1"
}
