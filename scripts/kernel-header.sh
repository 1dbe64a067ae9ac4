#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The two lines that open every log in kernel/runs/: the kernel (its
# release, Debian source package and the series' hash) and the tree
# (tsq commit, time, and WHAT the log holds).
#
# usage: kernel-header.sh KVER WHAT
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:?usage: kernel-header.sh KVER WHAT}
what=${2:?usage: kernel-header.sh KVER WHAT}

kdir=$top/.output/kernel
[ "$kver" = 6.12 ] || kdir=$top/.output/kernel-$kver
config=$kdir/.config
[ -r "$config" ] || { echo "kernel-header: no kernel for $kver at $kdir (make kernel KVER=$kver)" >&2; exit 1; }
release=$(sed -n 's/^# Linux\/[^ ]* \([^ ]*\) Kernel Configuration$/\1/p' "$config" | head -1)
case $kver in
6.12) pkg="linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)" ;;
*) pkg=$("$top/scripts/get-kernel-source.sh" "${kver%%.*}" 2>/dev/null | cut -d' ' -f1,2) ;;
esac
hash=$("$top/scripts/series-hash.sh" "$top/kernel/$kver") || exit 1
tree=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)
echo "# kernel: Linux $release (Debian $pkg) + kernel/$kver, series $hash"
echo "# tsq: $tree; $(date -u +%Y-%m-%dT%H:%M:%SZ); $what"
