#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run VM tests on one kernel and keep their output as a log that names
# the kernel, the series and the tree: the logs in kernel/runs/ are where
# the numbers of the series' messages, its cover letter and
# Documentation come from.
#
# usage: kernel-log.sh KVER NAME [TEST...]
#   -> kernel/runs/KVER/NAME.log (tests/vm/run-tests -k KVER TEST..., all
#      of them without TEST),
#      whose exit status it returns. The kernel is the one make kernel
#      KVER=... built (.output/kernel, .output/kernel-7.3).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:?usage: kernel-log.sh KVER NAME [TEST...]}
name=${2:?usage: kernel-log.sh KVER NAME [TEST...]}
shift 2
case $name in */*|.*|"") echo "kernel-log: bad name '$name'" >&2; exit 2 ;; esac

header=$("$top/scripts/kernel-header.sh" "$kver" \
	"QEMU TCG, ${TSQ_VM_SMP:-2} vCPUs; tests: ${*:-all}") || exit 1

mkdir -p "$top/kernel/runs/$kver"
log=$top/kernel/runs/$kver/$name.log
{
	echo "$header"
	"$top/tests/vm/run-tests" -k "$kver" "$@" 2>&1
} | tee "$log"
exit "${PIPESTATUS[0]}"
