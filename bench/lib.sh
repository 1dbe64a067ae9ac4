# SPDX-License-Identifier: GPL-2.0
# Helpers for the bench scripts that run inside the VM (sourced after
# tests/vm/lib.sh). Results are JSON lines under $BENCH_OUT.

BENCH_OUT=${BENCH_OUT:-/mnt/out}
BENCH_SECS=${BENCH_SECS:-6}
BENCH_REPS=${BENCH_REPS:-5}

# "busy,total" jiffies over all CPUs.
cpu_now() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6 "," t }' /proc/stat
}

# unconstrained NAME [CC]: one flow, no bottleneck but the VM itself,
# from /bulk; prints {"goodput_mbps":..,"bytes":..,"busy_jiffies":..,
# "cpu_busy_pct":..}.
unconstrained() {
	local c0 c1
	c0=$(cpu_now)
	CC=${2:-cubic} CG=/sys/fs/cgroup/bulk flow "$1" "$BENCH_SECS" 1
	c1=$(cpu_now)
	jq -c --argjson cpu "[$c0,$c1]" '{
		goodput_mbps: (.end.sum_received.bits_per_second / 1e6),
		bytes: .end.sum_received.bytes,
		busy_jiffies: ($cpu[2] - $cpu[0]),
		cpu_busy_pct: (100 * ($cpu[2] - $cpu[0]) / ($cpu[3] - $cpu[1]))}' "$TMP/$1.json"
}
