#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqd's policy code on this host's real cgroup tree and real BPF maps
# (tests/host/tsqd_policies.c): units where systemd puts them and not
# where anyone can make a directory of their name, a policy taken off a
# squat (its name escaped in the log), the per-cgroup maps' room counted
# at any depth over what tsqd and tsqctl set alike, and "rate delivered"
# from a reloaded file to the map and back out through tsqctl show and
# tsqd's /metrics. In a private cgroup namespace rooted at a fresh
# cgroup, with its own cgroup2 mount and bpffs.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUTPUT:-$top/.output}
[ "$(id -u)" = 0 ] || { echo "# SKIP: test_policies_maps: needs root"; exit 0; }
for c in jq promtool; do
	command -v $c >/dev/null || { echo "FAIL: test_policies_maps: no $c (scripts/install-deps.sh)"; exit 1; }
done
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cgmnt" ] || { echo "# SKIP: test_policies_maps: no cgroup2 mount"; exit 0; }
t=$(mktemp -d)
root=$cgmnt/tsqpol-$$
trap '[ -d "$root" ] && find "$root" -depth -type d -execdir rmdir {} \; 2>/dev/null; rm -rf "$t"' EXIT
deep=$(printf 'd/%.0s' $(seq 70)); deep=${deep%/}
mkdir -p "$root/$deep/c1" "$t/cg" "$t/conf"
cat >"$t/run.sh" <<'EOS'
# In the new cgroup namespace: its root is this shell's cgroup.
mount -t cgroup2 none "$2/cg" && mount -t bpf bpf /sys/fs/bpf || exit 1
"$1/scale_maps" setup "$2/cg/$3" 1 4 >/dev/null || exit 1
"$1/tsqd_policies" "$2/cg" "$2/conf" "$2" 2>"$2/log"
# The same maps read back by tsqctl, which walks the first cgroup2 mount.
"$1/tsqctl" show >"$2/show.txt" 2>&1
"$1/tsqctl" -j show >"$2/show.json" 2>&1
EOS
# The shell moves to the fresh cgroup, then unshares: the namespace's
# root is that cgroup; the programs it starts go back out after.
sh -c 'echo $$ >"$1/cgroup.procs" && exec unshare -m -C bash "$2/run.sh" "$3" "$2" "$4"' \
	sh "$root" "$t" "$out" "$deep"
rc=$?
while read -r p; do echo "$p" >"$cgmnt/cgroup.procs"; done <"$root/cgroup.procs" 2>/dev/null
sed 's/^/# /' "$t/log"
if grep -q '/y: not applied to /y: 4 cgroups have a policy, as many as' "$t/log"; then
	echo "PASS: room: tsqd's log says why /y waits, in one line"
else
	echo "FAIL: room: no refusal in tsqd's log"
fi
[ "$rc" -lt 128 ] || echo "FAIL: tsqd_policies: killed by signal $((rc - 128))"
# A tenant's cgroup name in tsqd's log: escaped, never raw bytes.
if grep -qF 'policy taken off /user.slice/user-1000.slice/user@1000.service/esc\x1b]0;pwned\x07/backup.service: not the unit' "$t/log" &&
   ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$t/log"; then
	echo "PASS: the log names a squat under an ESC name as \\x1b, no control byte"
else
	echo "FAIL: the log of the ESC squat: $(grep esc "$t/log" | cat -v | head -c 300)"
fi

# rate: /y ends as "limit-us 1000 rate delivered"; backup.service has a
# limit only, so no rate at all.
y=/y
if grep -qx "$y limit-us 1000 rate delivered" "$t/show.txt"; then
	echo "PASS: rate: tsqctl show: $y limit-us 1000 rate delivered"
else
	echo "FAIL: rate: tsqctl show: $(head -c 300 "$t/show.txt")"
fi
if jq -e --arg y "$y" '(.[] | select(.cgroup == $y) | .limit_us == 1000 and .rate == "delivered")
	and (.[] | select(.cgroup | endswith("/system.slice/backup.service")) | has("rate") | not)' \
	"$t/show.json" >/dev/null 2>&1; then
	echo "PASS: rate: tsqctl -j show: \"rate\":\"delivered\" with limit_us, none with a limit only"
else
	echo "FAIL: rate: tsqctl -j show: $(head -c 300 "$t/show.json")"
fi
for r in pacing delivered; do
	m=$t/metrics.$r
	want=$([ $r = delivered ] && echo 1 || echo 0)
	if ! promtool check metrics <"$m" >"$t/promtool" 2>&1; then
		echo "FAIL: rate $r: promtool check metrics: $(head -c 300 "$t/promtool")"
	elif grep -qx "tsq_policy_rate_delivered{cgroup=\"/y\"} $want" "$m" &&
	     grep -qx 'tsq_policy_limit_seconds{cgroup="/y"} 0.001000' "$m" &&
	     ! grep -q '^tsq_policy_rate_delivered{cgroup="/system.slice/backup.service"}' "$m"; then
		echo "PASS: rate $r: /metrics: tsq_policy_rate_delivered $want for /y, none without limit-us; promtool takes it"
	else
		echo "FAIL: rate $r: /metrics: $(grep -E '^tsq_policy_(rate|limit_seconds)' "$m" | head -c 300)"
	fi
done
exit 0
