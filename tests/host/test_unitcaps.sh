#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqd with no more privilege than systemd/tsqd.service.in gives it: the
# capabilities of its CapabilityBoundingSet= (setpriv), nothing
# inheritable, and few fds (ulimit -n), in a mount namespace with its own
# bpffs and /run; observation mode on this host. A cgroup 1,100 levels
# down holding a live TCP socket must be named in /stats.json and
# /metrics: a walk that held an fd a level lost it past the fd limit,
# and a delegated user could hide traffic that way. Also without
# CAP_DAC_READ_SEARCH (which the unit's seccomp filter makes useless for
# file handles anyway), and with a subtree its owner made mode 0700:
# named with the unit's capabilities, counted as unreadable without.
# tsqctl doctor names what tsqd runs without.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUTPUT:-$top/.output}
tsqd=$out/tsqd tsqctl=$out/tsqctl
unit=$top/systemd/tsqd.service.in
DEPTH=${DEPTH:-1100} NOFILE=${NOFILE:-1024}
[ "$(id -u)" = 0 ] || { echo "# SKIP: test_unitcaps: needs root"; exit 0; }
for c in setpriv unshare curl jq python3; do
	command -v $c >/dev/null || { echo "FAIL: test_unitcaps: no $c"; exit 1; }
done
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cgmnt" ] || { echo "# SKIP: test_unitcaps: no cgroup2"; exit 0; }
t=$(mktemp -d) base=$cgmnt/tsqcaps-$$ pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -d "$base" ] && find "$base" -depth -type d -execdir rmdir {} \; 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT

# CAP_BPF CAP_PERFMON ... -> -all,+bpf,+perfmon,...
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
set_of() {
	local s=-all c
	for c in "$@"; do s+=",+$(tr 'A-Z' 'a-z' <<<"${c#CAP_}")"; done
	echo "$s"
}
# shellcheck disable=SC2086
unitset=$(set_of $caps)
# shellcheck disable=SC2086
nodacset=$(set_of $(tr ' ' '\n' <<<"$caps" | grep -vx CAP_DAC_READ_SEARCH))
echo "# the unit's capabilities: $caps; ulimit -n $NOFILE; depth $DEPTH"

deep=$(printf 'd/%.0s' $(seq "$DEPTH")); deep=${deep%/}
if ! mkdir -p "$base/$deep" "$base/priv/inner"; then
	echo "FAIL: setup: mkdir of a cgroup $DEPTH levels down"
	exit 1
fi
# A socket pair on loopback, in GROUP, for as long as the test runs.
hold() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec python3 -c "
import socket, time
s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen()
c = socket.create_connection(s.getsockname()); a = s.accept()
time.sleep(120)"' sh "$1" &
	pids+=($!)
}
hold "$base/$deep"
hold "$base/priv/inner"
chown -R 65534:65534 "$base/priv"
chmod 0700 "$base/priv"
sleep 0.5

# run NAME CAPSET: tsqd under CAPSET, its answers in $t/NAME.*, and
# tsqctl doctor's, with the unit's set too, while it runs.
run() {
	local name=$1 set=$2 port=$((20000 + ($$ + ${#1} * 7) % 20000))
	unshare -m bash -c '
		mount -t tmpfs -o mode=0755 tmpfs /run && mount -t bpf bpf /sys/fs/bpf || exit 1
		ulimit -n "$4"
		setpriv --bounding-set "$3" --inh-caps -all "$1" --listen "127.0.0.1:$5" \
			--log-interval 0 2>"$2.log" &
		for _ in $(seq 100); do grep -q "statistics on" "$2.log" && break; sleep 0.1; done
		curl -sf --max-time 20 "http://127.0.0.1:$5/stats.json" >"$2.json"
		curl -sf --max-time 20 "http://127.0.0.1:$5/metrics" >"$2.metrics"
		setpriv --bounding-set "$3" --inh-caps -all "$6" -j doctor >"$2.doctor"
		kill %1; wait' sh "$tsqd" "$t/$name" "$set" "$NOFILE" "$port" "$tsqctl"
}
run unit "$unitset"
run nodac "$nodacset"

rel=${base#"$cgmnt"}
python3 - "$rel" "$DEPTH" "$t" <<'PY'
import json, re, sys
rel, depth, t = sys.argv[1], int(sys.argv[2]), sys.argv[3]
deep = rel + "/d" * depth
priv = rel + "/priv/inner"

def load(name):
    try:
        doc = json.load(open(f"{t}/{name}.json"))
    except (OSError, ValueError) as e:
        print(f"FAIL: {name}: no /stats.json: {e}; log: {open(f'{t}/{name}.log').read()[:300]}")
        return None, ""
    return doc, open(f"{t}/{name}.metrics").read()

def named(doc, metrics, path):
    est = {c["cgroup"]: c["established"] for c in doc["cgroups"]}
    prom = any(l.startswith(f'tsq_obs_sockets{{cgroup="{path}"}}') and int(l.split()[-1]) >= 1
               for l in metrics.splitlines())
    return est.get(path, 0) >= 1 and prom

def unreadable(doc, metrics):
    m = re.search(r"^tsq_obs_cgroups_unreadable (\d+)$", metrics, re.M)
    return doc.get("cgroups_unreadable"), int(m.group(1)) if m else None

for name, what in (("unit", "the unit's capabilities"),
                   ("nodac", "the unit's capabilities but CAP_DAC_READ_SEARCH")):
    doc, metrics = load(name)
    if doc is None:
        continue
    nulls = sum(c["established"] for c in doc["cgroups"] if c["cgroup"] is None)
    if named(doc, metrics, deep):
        print(f"PASS: {what}: the cgroup {depth} levels down and its socket, in /stats.json and /metrics")
    else:
        print(f"FAIL: {what}: no cgroup {depth} levels down ({nulls} sockets unnamed, "
              f"{len(doc['cgroups'])} cgroups)")
    u = unreadable(doc, metrics)
    if name == "unit":
        ok = named(doc, metrics, priv) and u == (0, 0)
        print(f"PASS: {what}: a subtree of mode 0700 owned by nobody, named; nothing unreadable"
              if ok else f"FAIL: {what}: the 0700 subtree: named {named(doc, metrics, priv)}, "
              f"unreadable {u}")
    else:
        ok = not named(doc, metrics, priv) and u[0] == u[1] and isinstance(u[0], int) and u[0] >= 1
        print(f"PASS: {what}: the 0700 subtree cannot be read, and /stats.json and /metrics count it ({u[0]})"
              if ok else f"FAIL: {what}: the 0700 subtree: unreadable {u}")
PY

# tsqd's own word on what it runs without.
if grep -q '^tsqd: without CAP_DAC_READ_SEARCH, cgroups their owners made unreadable are counted' "$t/nodac.log" &&
   ! grep -q 'CAP_DAC_READ_SEARCH' "$t/unit.log"; then
	echo "PASS: tsqd's log names CAP_DAC_READ_SEARCH when it lacks it, and only then"
else
	echo "FAIL: tsqd's log: $(tr '\n' ' ' <"$t/nodac.log" | head -c 300)"
fi

# doctor, run as tsqd is: what tsqd runs without, and what that costs.
for n in unit nodac; do
	if ! jq -e '.tsqd.pid > 0' "$t/$n.doctor" >/dev/null 2>&1; then
		echo "FAIL: doctor ($n): no tsqd found: $(head -c 300 "$t/$n.doctor")"
		continue
	fi
	off=$(jq -r '.tsqd.features_off | join(",")' "$t/$n.doctor")
	adv=$(jq -r '.advice[] | select(startswith("tsqd runs without"))' "$t/$n.doctor")
	want=netns_sync
	[ $n = nodac ] && want=netns_sync,unreadable_cgroups
	if [ "$off" = "$want" ] && grep -q CAP_SYS_ADMIN <<<"$adv"; then
		echo "PASS: doctor ($n): features off: $off; advice: $(tr "\n" ";" <<<"$adv" | head -c 300)"
	else
		echo "FAIL: doctor ($n): features off '$off' (want $want), advice '$adv'"
	fi
done
exit 0
