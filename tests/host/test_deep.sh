#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cgroups as deep as anyone makes them: TCP flows from a cgroup 100
# levels down and from one whose path is over PATH_MAX (18 levels of
# 250-byte names), natively on this host. tsqd's /stats.json and
# /metrics and tsqctl -j top name both; tsqctl show and stats list
# policies 100 levels down (scale_maps pins the maps in a private
# bpffs), and tsqctl set counts them when it checks the per-cgroup maps'
# room (maps of 3, 3 policies deep: a 4th is refused).
set -u
. "$(dirname "$0")/netpair.sh"

netpair_start test_deep tsqdeep python3
deep=$(printf 'd/%.0s' $(seq 100)); deep=${deep%/}
long=$(printf '%0250d' 0 | tr 0 L)
longpath=$(printf "$long/%.0s" $(seq 18)); longpath=${longpath%/}

trap netpair_cleanup EXIT
if ! netpair_up rcv "$deep" || ! mkdir -p "$base/$longpath"; then
	echo "FAIL: setup of netns, veth and cgroups"
	exit 1
fi
spawn rcv "$rcv" iperf3 -s -p 5401
spawn rcv "$rcv" iperf3 -s -p 5402
sleep 1
spawn "$deep" "$snd" iperf3 -c 198.18.0.2 -p 5401 -t 20 -b 20M
# Over PATH_MAX: no path reaches its cgroup.procs, a directory at a time does.
(
	cd "$base" || exit 1
	IFS=/
	for c in $longpath; do cd "$c" || exit 1; done
	echo $BASHPID >cgroup.procs || exit 1
	exec nsenter --net=/run/netns/"$snd" iperf3 -c 198.18.0.2 -p 5402 -t 20 -b 20M
) >>"$t/spawn.log" 2>&1 &
pids+=($!)

netpair_tsqd || echo "FAIL: tsqd did not start: $(head -c 300 "$t/tsqd.log")"
sleep 2
netpair_get /stats.json >"$t/stats.json"
netpair_get /metrics >"$t/metrics"
nsenter --net=/run/netns/"$snd" "$tsqctl" -j top -i 0.5 >"$t/top.json"
rel=${base#"$cgmnt"}
python3 - "$rel/$deep" "$rel/$longpath" "$t/stats.json" "$t/top.json" "$t/metrics" <<'PY'
import json, sys
deep, longp = sys.argv[1], sys.argv[2]
for name, path in (("tsqd /stats.json", sys.argv[3]), ("tsqctl -j top", sys.argv[4])):
    doc = json.loads(open(path, 'rb').read())
    est = {c["cgroup"]: c["established"] for c in doc["cgroups"]}
    nulls = sum(1 for c in doc["cgroups"] if c["cgroup"] is None and c["established"])
    for what, p in (("100 levels down", deep), (f"a path of {len(longp)} bytes", longp)):
        if est.get(p, 0) >= 1:
            print(f"PASS: {name}: the flow's cgroup {what}, named")
        else:
            print(f"FAIL: {name}: no cgroup {what} ({nulls} sockets' cgroups unnamed)")
metrics = open(sys.argv[5], 'rb').read().decode()
for what, p in (("100 levels down", deep), ("over PATH_MAX", longp)):
    line = f'tsq_obs_sockets{{cgroup="{p}"}}'
    ok = any(l.startswith(line) and int(l.split()[-1]) >= 1 for l in metrics.splitlines())
    print(f"PASS: /metrics: tsq_obs_sockets of the cgroup {what}" if ok else
          f"FAIL: /metrics: no tsq_obs_sockets for the cgroup {what}")
PY

# show, stats and set's room count, on maps scale_maps pins (3 entries
# each) with policies on three cgroups 101 levels down.
mkdir -p "$base/$deep"/c1 "$base/$deep"/c2 "$base/$deep"/c3
cat >"$t/pinned.sh" <<'EOS'
mount -t bpf bpf /sys/fs/bpf || exit 1
"$1" setup "$2" 3 3 >/dev/null || exit 1
"$3" -j show >"$4/show"
"$3" -j stats >"$4/stats"
"$3" set "$5" limit 8k >"$4/set.out" 2>"$4/set.err"
echo $? >"$4/set.rc"
"$3" -j show >"$4/show2"
EOS
if unshare -m bash "$t/pinned.sh" "$out/scale_maps" "$base/$deep" "$tsqctl" "$t" "$rel/rcv"; then
	for f in show stats; do
		n=$(jq --arg p "$rel/$deep/c" '[.[] | select(.cgroup | startswith($p))] | length' "$t/$f")
		if [ "$n" = 3 ]; then
			echo "PASS: tsqctl $f: the 3 policies 101 levels down"
		else
			echo "FAIL: tsqctl $f: $n of 3 policies 101 levels down: $(head -c 200 "$t/$f")"
		fi
	done
	if [ "$(cat "$t/set.rc")" = 1 ] && [ "$(wc -l <"$t/set.err")" = 1 ] &&
	   grep -q '3 cgroups have a policy, as many as' "$t/set.err" &&
	   [ "$(jq length "$t/show2")" = 3 ]; then
		echo "PASS: tsqctl set: a 4th policy refused, the deep ones counted: $(cat "$t/set.err")"
	else
		echo "FAIL: tsqctl set: exit $(cat "$t/set.rc"), $(head -c 200 "$t/set.err"), show lists $(jq length "$t/show2")"
	fi
else
	echo "FAIL: scale_maps could not pin the maps in a private bpffs"
fi
exit 0
