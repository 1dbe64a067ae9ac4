#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build libbpf (static) and bpftool from the tools/ of the same 6.12 source
# the guest kernel comes from. Debian 12's libbpf is 1.1, which predates
# .struct_ops.link; 6.12 carries libbpf 1.5. Cached per source tarball.
#
# usage: build-tools.sh OUTDIR   -> OUTDIR/tools/{bpftool,lib/libbpf.a,include}
set -euo pipefail

out=${1:?usage: build-tools.sh OUTDIR}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
cache=${TSQ_CACHE:-/var/cache/tsq}
jobs=${JOBS:-$(nproc)}

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
die() { echo "build-tools: $*" >&2; exit 1; }

[ -r "$tarball" ] || die "$tarball missing: apt-get install linux-source-6.12"
src_id=$(stat -c '%s-%Y' "$tarball")
key=$( { echo "$src_id"; cat "$0"; } | sha256sum | cut -c1-16)
art=$cache/tools/$key

mkdir -p "$out"
if [ -x "$art/bpftool" ] && [ -s "$art/lib/libbpf.a" ]; then
	msg CACHED "libbpf + bpftool $key"
	ln -sfn "$art" "$out/tools"
	exit 0
fi

src=$cache/src/tools-$src_id
if [ ! -f "$src/.tsq-complete" ]; then
	msg UNPACK "tools/ of $tarball"
	rm -rf "$src"
	mkdir -p "$src"
	tar -xf "$tarball" -C "$src" --strip-components=1 \
		--wildcards '*/tools/' '*/include/uapi/' \
		'*/scripts/' '*/Makefile' '*/kernel/bpf/disasm.[ch]'
	touch "$src/.tsq-complete"
fi

rm -rf "$art.tmp"
mkdir -p "$art.tmp/libbpf" "$art.tmp/bpftool"
msg LIBBPF "static, from $src/tools/lib/bpf"
make -s -C "$src/tools/lib/bpf" -j"$jobs" BUILD_STATIC_ONLY=1 \
	OBJDIR="$art.tmp/libbpf" DESTDIR="$art.tmp" prefix= LIBSUBDIR=lib \
	install >/dev/null
# Debian 12's linux-libc-dev is 6.1: user space needs 6.12's bpf UAPI.
mkdir -p "$art.tmp/include/linux"
cp "$src"/tools/include/uapi/linux/{bpf.h,bpf_common.h,btf.h} \
	"$art.tmp/include/linux/"
msg BPFTOOL "from $src/tools/bpf/bpftool"
make -s -C "$src/tools/bpf/bpftool" -j"$jobs" OUTPUT="$art.tmp/bpftool/" \
	>/dev/null
cp "$art.tmp/bpftool/bpftool" "$art.tmp/bpftool.bin"
rm -rf "$art.tmp/bpftool"
mv "$art.tmp/bpftool.bin" "$art.tmp/bpftool"
rm -rf "$art"
mv "$art.tmp" "$art"
ln -sfn "$art" "$out/tools"
msg DONE "$("$art/bpftool" version | head -1) in $art"
