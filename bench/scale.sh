#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqctl show and stats with 10,000 cgroups with policies, timed natively
# on the host. The host kernel has no hook, so scale_maps creates and pins
# tsq's maps alone (no program) and fills them; the VM's t_scale times the
# same commands under TCG, where every syscall is emulated. One JSON line
# per run on stdout.
#
# usage: bench/scale.sh   (root; BENCH_SCALE_N cgroups, 10000; BENCH_REPS, 5)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUTPUT:-$top/.output}
n=${BENCH_SCALE_N:-10000}
reps=${BENCH_REPS:-5}
pins=/sys/fs/bpf/tsq

mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$mnt" ] || { echo "bench/scale.sh: no cgroup2 mount" >&2; exit 1; }
if [ -e "$pins" ]; then
	echo "bench/scale.sh: $pins exists, a tsq in use here: not touching it" >&2
	exit 1
fi
dir=$mnt/tsq-bench.$$
tmp=$(mktemp)
mounted=
cleanup() {
	"$out/scale_maps" teardown
	[ -d "$dir" ] && find "$dir" -mindepth 1 -maxdepth 1 -type d -exec rmdir {} + && rmdir "$dir"
	[ -z "$mounted" ] || umount /sys/fs/bpf
	rm -f "$tmp"
}
trap cleanup EXIT
if ! mountpoint -q /sys/fs/bpf; then
	mount -t bpf bpf /sys/fs/bpf
	mounted=1
fi
mkdir "$dir"
(cd "$dir" && seq -f 'c%.0f' "$n" | xargs mkdir)
"$out/scale_maps" setup "$dir" "$n"
total=$(find "$mnt" -type d | wc -l)
date=$(date -u +%FT%TZ)
rev=${BENCH_REV:-$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)}

# run CMD: one JSON line with its wall time and how many cgroups it listed.
run() {
	local t0 t1
	t0=$(date +%s%N)
	"$out/tsqctl" -j "$1" >"$tmp"
	t1=$(date +%s%N)
	jq -c --arg cmd "$1" --arg date "$date" --arg tsq "$rev" \
		--arg kernel "$(uname -r)" --argjson n "$n" --argjson total "$total" \
		--argjson ms "$(( (t1 - t0) / 1000 ))e-3" \
		'{kind: "scale", date: $date, tsq: $tsq, kernel: $kernel, cmd: $cmd, policies: $n, host_cgroups: $total,
		  listed: length, ms: $ms}' "$tmp"
}
for _ in $(seq "$reps"); do
	run show
	run stats
done
