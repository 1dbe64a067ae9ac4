#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Zero cost when off, run inside the VM by bench/run on the patched kernel
# (nothing attached) and on 6.12 built without the series from the same
# config: throughput and CPU per byte of one unconstrained flow.
. "$(dirname "$0")/../tests/vm/lib.sh"
. "$(dirname "$0")/lib.sh"

out=$BENCH_OUT/zerocost.jsonl
# bench/run says which kernel it booted; the kernel's own symbols must
# agree, or a renamed symbol would file both kernels under one name.
kernel=${BENCH_KERNEL:?bench/run sets BENCH_KERNEL}
booted=stock
grep -qw tcp_tsq_enabled /proc/kallsyms && booted=patched
[ "$booted" = "$kernel" ] ||
	{ echo "zerocost: bench/run booted the $kernel kernel, but it has ${booted}'s symbols" >&2; exit 1; }
[ ! -e /sys/fs/bpf/tsq/link ] || { echo "zerocost: a tcp_tsq_ops is attached" >&2; exit 1; }
mkdir -p /sys/fs/cgroup/bulk
iperf_server
for rep in $(seq "$BENCH_REPS"); do
	unconstrained "z-$rep" | jq -c --arg k "$kernel" --argjson boot "${BENCH_BOOT:-1}" \
		--argjson rep "$rep" '{kind: "zerocost", kernel: $k, boot: $boot, rep: $rep} + .' >>"$out"
done
rmdir /sys/fs/cgroup/bulk
finish
