#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the series adds to every TCP socket: sizeof(struct tcp_sock) and
# struct sock on the kernel without the series and with it, same config,
# as the compiler lays them out, and the series' own structs. The stock
# side is compiled from the pristine source with the flags kbuild used
# for net/ipv4/tcp_output.o, so no stock kernel has to be built; the
# series side is checked against the built kernel's BTF.
#
# usage: kernel-sizes.sh KVER [FILE]
#   -> FILE, kernel/runs/KVER/sizes.log without it, after make kernel
#      KVER=... built the kernel. Exit 1 without that kernel, 3 when its
#      object directory or patched tree is not there any more (a cached
#      kernel from an earlier build, another series built since).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:?usage: kernel-sizes.sh KVER [FILE]}
file=${2:-$top/kernel/runs/$kver/sizes.log}
cache=${TSQ_CACHE:-/var/cache/tsq}
die() { echo "kernel-sizes: $*" >&2; exit 1; }

kdir=$top/.output/kernel
[ "$kver" = 6.12 ] || kdir=$top/.output/kernel-$kver
[ -s "$kdir/vmlinux" ] || die "no kernel for $kver at $kdir (make kernel KVER=$kver)"
work=$cache/src/work-$kver
pristine=$(readlink -f "$cache/src/pristine-$kver") || die "no pristine $kver source in $cache/src"
# The object directory of the series' build (not a stock one), newest.
obj=
for d in "$cache/obj/$kver"-*; do
	case $d in *-stock-*) continue ;; esac
	[ -d "$d" ] && { [ -z "$obj" ] || [ "$d" -nt "$obj" ]; } && obj=$d
done
cmdfile=$obj/net/ipv4/.tcp_output.o.cmd
[ -r "$cmdfile" ] || { echo "kernel-sizes: no $cmdfile: the object directory of the $kver build is gone" >&2; exit 3; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/sizes.c" <<'EOF'
#include <net/tcp.h>
#define SIZE(t) const unsigned long size_##t = sizeof(struct t)
SIZE(tcp_sock);
SIZE(sock);
#ifdef TSQ_SERIES
SIZE(tcp_tsq);
#endif
EOF

# kbuild's compile line for tcp_output.o, for SRC's tree, our file, -S;
# its quoted KBUILD_ names are given again, unquoted by the shell.
flags=$(sed -n 's/^savedcmd_[^ ]* := gcc //p' "$cmdfile" |
	sed -e 's/-Wp,-MMD,[^ ]* //' -e 's/ -DKBUILD_.*//' -e 's/ -g / /')
names=(-DKBUILD_MODNAME='"sizes"' -DKBUILD_BASENAME='"sizes"' -D__KBUILD_MODNAME=kmod_sizes)
# sizes SRC [DEFINE]: "name bytes" lines.
sizes() {
	# shellcheck disable=SC2086
	(cd "$obj" && gcc ${flags//$work/$1} "${names[@]}" ${2:+-D$2} -S -o - "$tmp/sizes.c" \
		2>"$tmp/cc.err") |
		awk '/^size_[a-z_]*:/ { n = substr($1, 6, length($1) - 6); next }
		     n && /\.quad|\.long/ { print n, $2; n = "" }'
}
for side in stock series; do
	src=$pristine def=
	[ $side = stock ] || src=$work def=TSQ_SERIES
	sizes "$src" $def >"$tmp/$side" || true
	[ -s "$tmp/$side" ] || die "compiling against $src failed: $(grep -m1 error "$tmp/cc.err")"
done

get() { awk -v n="$2" '$1 == n { print $2 }' "$1"; }
"$top/.output/tools/bpftool" btf dump file "$kdir/vmlinux" format raw >"$tmp/btf"
# btf_size NAME: struct NAME's size in the built kernel's BTF.
btf_size() { sed -n "s/^\[[0-9]*\] STRUCT '$1' size=\([0-9]*\) .*/\1/p" "$tmp/btf" | head -1; }
btf=$(btf_size tcp_sock)
[ "$btf" = "$(get "$tmp/series" tcp_sock)" ] || {
	echo "kernel-sizes: struct tcp_sock: $(get "$tmp/series" tcp_sock) B compiled from $work, $btf B in $kdir/vmlinux's BTF: that tree holds another series now" >&2
	exit 3
}

header=$("$top/scripts/kernel-header.sh" "$kver" \
	"gcc $(gcc -dumpversion), x86_64, the kernel's config; scripts/kernel-sizes.sh")
mkdir -p "$(dirname "$file")"
{
	echo "$header"
	for s in tcp_sock sock; do
		a=$(get "$tmp/stock" $s) b=$(get "$tmp/series" $s)
		echo "struct $s: stock $a B, series $b B, +$((b - a)) B; 64-B lines $(((a + 63) / 64)) -> $(((b + 63) / 64))"
	done
	echo "struct tcp_tsq (one per socket with a policy, allocated): $(get "$tmp/series" tcp_tsq) B"
	echo "struct tcp_tsq_group (one per group, allocated; BTF): $(btf_size tcp_tsq_group) B"
	echo "struct tcp_sock in vmlinux BTF: $btf B"
} | tee "$file"
