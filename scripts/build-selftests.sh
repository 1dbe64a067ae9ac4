#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build test_progs from the patched kernel tree's selftests/bpf: the real
# runner and helpers (network_helpers, cgroup_helpers, cap_helpers), with
# the tests that the series adds or touches. The full suite is some 350
# tests and 800 BPF programs, an hour of compiling on two cores; the
# others are left out of the tree it builds, nothing else changes.
#
# usage: build-selftests.sh OUTDIR
#   KVER=6.12 (default) -> OUTDIR/selftests; KVER=7.3 -> OUTDIR/selftests-7.3.
#   Needs the kernel that scripts/build-kernel.sh built for KVER
#   (OUTDIR/kernel[-KVER]/vmlinux, its BTF) and the source it was built on.
#   KERNEL_SRC=DIR builds from a patched tree of DIR instead of that source
#   and kernel/KVER (a series under development).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: build-selftests.sh OUTDIR}
kver=${KVER:-6.12}
cache=${TSQ_CACHE:-/var/cache/tsq}
jobs=${JOBS:-$(nproc)}
suffix=
[ "$kver" = 6.12 ] || suffix=-$kver
vmlinux=$out/kernel$suffix/vmlinux
link=$out/selftests$suffix

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
die() { echo "build-selftests: $*" >&2; exit 1; }

[ -s "$vmlinux" ] || die "$vmlinux missing: make kernel KVER=$kver first"
vmlinux=$(readlink -f "$vmlinux")
clang=$(command -v clang-19 || command -v clang) || die "clang missing"
llvm=${clang#*clang}
# The source build-kernel.sh last built this version on.
pristine=$(readlink -f "$cache/src/pristine-$kver" || true)
[ -f "$pristine/.tsq-complete" ] || [ -n "${KERNEL_SRC:-}" ] ||
	die "$cache/src/pristine-$kver missing: make kernel KVER=$kver first"

patches=()
for p in "$top/kernel/$kver"/*.patch; do
	[ "${p##*/}" = 0000-cover-letter.patch ] || [ ! -e "$p" ] || patches+=("$p")
done
# The tests the series adds or touches, and tcpbpf_user, which it must
# keep passing; their programs likewise.
tests=(tcpbpf_user)
progs=(test_tcpbpf_kern)
sb=tools/testing/selftests/bpf
for f in $([ ${#patches[@]} -eq 0 ] || sed -n "s|^+++ b/$sb/||p" "${patches[@]}"); do
	case $f in
	prog_tests/*.c) n=${f#prog_tests/}; tests+=("${n%.c}") ;;
	progs/*.c) n=${f#progs/}; progs+=("${n%.c}") ;;
	esac
done
# The diffs, not the commit messages: rewording one keeps the cache.
key=$( { echo "$kver ${pristine##*/}"; cat "$0"; sha256sum "$vmlinux"
	echo "${KERNEL_SRC:-}"
	[ -z "${KERNEL_SRC:-}" ] || cat "$KERNEL_SRC"/tools/testing/selftests/bpf/prog*/tcp_tsq*
	[ ${#patches[@]} -eq 0 ] || sed -n '/^diff --git/,/^-- $/p' "${patches[@]}"; } |
	sha256sum | cut -c1-16)
art=$cache/selftests/$key
mkdir -p "$out" "$cache/selftests"
exec 9>"$cache/.kernel.lock"
if ! flock -n 9; then
	msg WAIT "another build holds $cache/.kernel.lock"
	flock 9
fi
if [ -x "$art/test_progs" ]; then
	msg CACHED "selftests $kver $key"
	ln -sfn "$art" "$link"
	exit 0
fi

start=$(date +%s)
tree=$cache/src/selftests-$kver
rm -rf "$tree"
if [ -n "${KERNEL_SRC:-}" ]; then
	msg TREE "$KERNEL_SRC"
	cp -al "$KERNEL_SRC" "$tree"
else
	msg TREE "$pristine + series"
	cp -al "$pristine" "$tree"
	for p in "${patches[@]}"; do
		(cd "$tree" && patch -p1 -s --no-backup-if-mismatch) <"$p" ||
			die "$(basename "$p") does not apply"
	done
fi
# Leave out the other tests and their programs: unlink, the tree's files
# are hard links of the source's. A kept test keeps every program whose
# skeleton it includes (bpf_tcp_ca's cubic, dctcp, ...).
st=$tree/tools/testing/selftests/bpf
for t in "${tests[@]}"; do
	[ -f "$st/prog_tests/$t.c" ] || continue
	progs+=($(sed -n 's/^#include "\([a-z0-9_]*\)\.skel\.h"$/\1/p' "$st/prog_tests/$t.c"))
done
for f in "$st"/prog_tests/*.c; do
	n=${f##*/}
	[[ " ${tests[*]} " == *" ${n%.c} "* ]] || rm "$f"
done
for f in "$st"/progs/*.c; do
	n=${f##*/}
	[[ " ${progs[*]} " == *" ${n%.c} "* ]] || rm "$f"
done

# clang-19 compiles for BPF cpu v1 unless told otherwise. 7.x's libarena,
# which test_progs links, names no -mcpu and needs v4's atomics; every
# other BPF compile of the Makefile puts its own -mcpu after
# BPF_TARGET_ENDIAN, so the v4 given there reaches libarena alone.
extra=()
[ ! -d "$st/libarena" ] || extra+=("BPF_TARGET_ENDIAN=--target=bpfel -mcpu=v4")

msg MAKE "test_progs (-j$jobs)"
rm -rf "$art.tmp"
mkdir -p "$art.tmp"
# The skeleton lists that name left-out programs are emptied; so are the
# extra files (bpf_testmod.ko, ...) that only left-out tests use.
make -s -C "$st" -j"$jobs" OUTPUT="$art.tmp" VMLINUX_BTF="$vmlinux" \
	CLANG="$clang" LLC="llc$llvm" LLVM_STRIP="llvm-strip$llvm" \
	LSKELS= LSKELS_SIGNED= LSKELS_EXTRA= LINKED_SKELS= TRUNNER_EXTRA_FILES= \
	"${extra[@]}" "$art.tmp/test_progs" >/dev/null
cp "$st/config" "$art.tmp/config"
rm -rf "$art"
mv "$art.tmp" "$art"
ln -sfn "$art" "$link"
msg DONE "selftests $kver $key in $(( $(date +%s) - start ))s"
