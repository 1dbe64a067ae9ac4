#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Zero cost when off, run inside the VM by bench/run on the patched kernel
# (nothing attached) and on 6.12 built without the series from the same
# config: throughput and CPU per byte of one unconstrained flow.
. "$(dirname "$0")/../tests/vm/lib.sh"
. "$(dirname "$0")/lib.sh"

out=$BENCH_OUT/zerocost.jsonl
kernel=stock
grep -qw tcp_tsq_ops_enabled /proc/kallsyms && kernel=patched
[ ! -e /sys/fs/bpf/tsq/link ] || { echo "zerocost: a tcp_tsq_ops is attached" >&2; exit 1; }
mkdir -p /sys/fs/cgroup/bulk
iperf_server
for rep in $(seq "$BENCH_REPS"); do
	unconstrained "z-$rep" | jq -c --arg k "$kernel" --argjson boot "${BENCH_BOOT:-1}" \
		--argjson rep "$rep" '{kind: "zerocost", kernel: $k, boot: $boot, rep: $rep} + .' >>"$out"
done
rmdir /sys/fs/cgroup/bulk
finish
