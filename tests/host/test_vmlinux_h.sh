#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The vmlinux.h kept in the tree is what make vmlinux-h makes from the
# patched kernel built here (make check builds it first): a series that
# changed the kernel's types without a regenerated header fails here.
top=$(cd "$(dirname "$0")/../.." && pwd)
mkvar() { make -s --no-print-directory -C "$top" "print-$1"; }
out=$(mkvar OUTPUT)
case $out in /*) ;; *) out=$top/$out ;; esac
dir=$(mkvar VMLINUX_H_DIR)
arch=$(mkvar BPF_ARCH)
kernel=$out/kernel

if [ ! -L "$top/$dir/vmlinux.h" ] || [ ! -s "$top/$dir/vmlinux.h" ]; then
	echo "FAIL: $dir/vmlinux.h is no link to a header: make vmlinux-h"
	exit 0
fi
echo "PASS: $dir/vmlinux.h -> $(readlink "$top/$dir/vmlinux.h") ($(wc -l <"$top/$dir/vmlinux.h") lines)"
if grep -q '^struct tcp_tsq_ops {' "$top/$dir/vmlinux.h"; then
	echo "PASS: the kept vmlinux.h has struct tcp_tsq_ops (the patched kernel's)"
else
	echo "FAIL: the kept vmlinux.h has no struct tcp_tsq_ops: not from the patched kernel"
fi

if [ ! -s "$kernel/vmlinux" ]; then
	echo "# SKIP: vmlinux.h against the kernel: no kernel build in $kernel (make kernel)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# What make vmlinux-h runs, into a scratch directory.
if ! "$top/scripts/gen-vmlinux-h.sh" "$(mkvar BPFTOOL)" "$kernel" "$tmp/$arch" 2>"$tmp/err"; then
	echo "FAIL: gen-vmlinux-h.sh: $(cat "$tmp/err")"
	exit 0
fi
if diff -r "$tmp/$arch" "$top/$dir" >"$tmp/diff" &&
   [ "$(readlink "$tmp/$arch/vmlinux.h")" = "$(readlink "$top/$dir/vmlinux.h")" ]; then
	echo "PASS: $dir is what make vmlinux-h makes from $(readlink -f "$kernel")"
else
	echo "FAIL: $dir differs from the kernel build's BTF ($(grep -c '^[<>]' "$tmp/diff") lines): run make vmlinux-h and commit it"
fi
