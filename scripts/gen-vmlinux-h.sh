#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmlinux.h for the BPF side, from the patched kernel's BTF: the kept
# tree of one architecture, as libbpf-tools keeps it. OUTDIR gets
# vmlinux_MAJORMINOR.h and vmlinux.h, a symbolic link to it.
#
# usage: gen-vmlinux-h.sh BPFTOOL KERNEL_DIR OUTDIR
#   KERNEL_DIR: a build of scripts/build-kernel.sh (vmlinux and .config)
#
# bpftool 7.5 sorts the C dump by kind and name, so the header depends
# on the types in the kernel's BTF, not on the order pahole wrote them.
set -euo pipefail

bpftool=${1:?usage: gen-vmlinux-h.sh BPFTOOL KERNEL_DIR OUTDIR}
kdir=${2:?usage: gen-vmlinux-h.sh BPFTOOL KERNEL_DIR OUTDIR}
out=${3:?usage: gen-vmlinux-h.sh BPFTOOL KERNEL_DIR OUTDIR}

die() { echo "gen-vmlinux-h: $*" >&2; exit 1; }

[ -s "$kdir/vmlinux" ] || die "$kdir/vmlinux missing: make kernel"
# "# Linux/x86 6.12.118 Kernel Configuration" -> 612
ver=$(sed -n '1,5s|^# Linux/[^ ]* \([0-9]*\)\.\([0-9]*\)[^ ]* Kernel Configuration$|\1\2|p' \
	"$kdir/.config")
[ -n "$ver" ] || die "no kernel version in $kdir/.config"
name=vmlinux_$ver.h

mkdir -p "$out"
tmp=$(mktemp "$out/.$name.XXXXXX")
trap 'rm -f "$tmp"' EXIT
"$bpftool" btf dump file "$kdir/vmlinux" format c >"$tmp"
grep -q '^struct tcp_tsq_ops {' "$tmp" ||
	die "$kdir/vmlinux has no struct tcp_tsq_ops: not the patched kernel"
chmod 644 "$tmp"
mv "$tmp" "$out/$name"
ln -sfn "$name" "$out/vmlinux.h"
