#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build libbpf (static) and bpftool from the tools/ of the same 6.12 source
# the guest kernel comes from. Debian 12's libbpf is 1.1, which predates
# .struct_ops.link; 6.12 carries libbpf 1.5.
#
# usage: build-tools.sh OUTDIR   -> OUTDIR/tools/{bpftool,lib/libbpf.a,include}
#        build-tools.sh --key    the cache key, and nothing else
#
# The cache (TSQ_TOOLS_CACHE, default $TSQ_CACHE/tools) is keyed by the
# tarball, this script and the make variables below, so that nothing
# which decides the layout can be hidden by an older build. .ci/run points
# TSQ_TOOLS_CACHE at an empty folder to prove a cold build on every run.
set -euo pipefail

tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
cache=${TSQ_TOOLS_CACHE:-${TSQ_CACHE:-/var/cache/tsq}/tools}
jobs=${JOBS:-$(nproc)}

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
die() { echo "build-tools: $*" >&2; exit 1; }

# The 6.12 libbpf Makefile picks lib64 on LP64 and ignores LIBSUBDIR (only
# the GitHub libbpf reads it): libdir is what decides, so set it.
libbpf_vars=(BUILD_STATIC_ONLY=1 prefix= libdir=/lib)
# What the Makefile links and includes; checked after every build.
artifacts=(bpftool lib/libbpf.a include/bpf/libbpf.h include/bpf/bpf_helpers.h
	   include/linux/bpf.h)

[ -r "$tarball" ] || die "$tarball missing: apt-get install linux-source-6.12"
src_id=$(stat -c '%s-%Y' "$tarball")
key=$( { echo "$src_id"; echo "${libbpf_vars[*]}"; cat "$0"; } |
	sha256sum | cut -c1-16)
if [ "${1:-}" = --key ]; then
	echo "$key"
	exit 0
fi
out=${1:?usage: build-tools.sh OUTDIR | --key}
art=$cache/$key

# Checkouts share the cache: one build at a time, the others wait and
# then find it cached.
mkdir -p "$cache"
exec 9>"$cache/.lock"
if ! flock -n 9; then
	msg WAIT "another tools build holds $cache/.lock"
	flock 9
fi

complete() {
	local a
	for a in "${artifacts[@]}"; do
		[ -s "$1/$a" ] || { echo "$1/$a"; return 1; }
	done
}

mkdir -p "$out"
if complete "$art" >/dev/null; then
	msg CACHED "libbpf + bpftool $key"
	ln -sfn "$art" "$out/tools"
	exit 0
fi

start=$(date +%s)
src=$cache/src-$src_id
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
make -s -C "$src/tools/lib/bpf" -j"$jobs" "${libbpf_vars[@]}" \
	OBJDIR="$art.tmp/libbpf" DESTDIR="$art.tmp" install >/dev/null
# Debian 12's linux-libc-dev is 6.1: user space needs 6.12's bpf UAPI.
mkdir -p "$art.tmp/include/linux"
cp "$src"/tools/include/uapi/linux/{bpf.h,bpf_common.h,btf.h} \
	"$art.tmp/include/linux/"
msg BPFTOOL "from $src/tools/bpf/bpftool"
make -s -C "$src/tools/bpf/bpftool" -j"$jobs" OUTPUT="$art.tmp/bpftool/" \
	>/dev/null
cp "$art.tmp/bpftool/bpftool" "$art.tmp/bpftool.bin"
rm -rf "$art.tmp/bpftool" "$art.tmp/libbpf"
mv "$art.tmp/bpftool.bin" "$art.tmp/bpftool"
if ! miss=$(complete "$art.tmp"); then
	die "the build left no ${miss#"$art.tmp/"}: the libbpf Makefile's layout changed"
fi
rm -rf "$art"
mv "$art.tmp" "$art"
ln -sfn "$art" "$out/tools"
msg DONE "$("$art/bpftool" version | head -1) in $art, $(( $(date +%s) - start ))s"
