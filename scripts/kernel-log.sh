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

kdir=$top/.output/kernel
[ "$kver" = 6.12 ] || kdir=$top/.output/kernel-$kver
config=$kdir/.config
[ -r "$config" ] || { echo "kernel-log: no kernel for $kver at $kdir (make kernel KVER=$kver)" >&2; exit 1; }
release=$(sed -n 's/^# Linux\/[^ ]* \([^ ]*\) Kernel Configuration$/\1/p' "$config" | head -1)
case $kver in
6.12) pkg="linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)" ;;
*) pkg=$("$top/scripts/get-kernel-source.sh" "${kver%%.*}" 2>/dev/null | cut -d' ' -f1,2) ;;
esac
hash=$("$top/scripts/series-hash.sh" "$top/kernel/$kver") || exit 1
tree=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)

mkdir -p "$top/kernel/runs/$kver"
log=$top/kernel/runs/$kver/$name.log
{
	echo "# kernel: Linux $release (Debian $pkg) + kernel/$kver, series $hash"
	echo "# tsq: $tree; $(date -u +%Y-%m-%dT%H:%M:%SZ); QEMU TCG, ${TSQ_VM_SMP:-2} vCPUs; tests: ${*:-all}"
	"$top/tests/vm/run-tests" -k "$kver" "$@" 2>&1
} | tee "$log"
exit "${PIPESTATUS[0]}"
