#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: the tsq package, as dpkg-buildpackage -us -uc -b builds it,
# from a copy of this tree (dpkg-buildpackage leaves its products in the
# parent of the source tree, which must not be the checkout's).
#
# usage: build-deb.sh OUTDIR  -> OUTDIR/tsq_VERSION_ARCH.deb (and .buildinfo,
#                                .changes, the -dbgsym package)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: build-deb.sh OUTDIR}

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
die() { echo "build-deb: $*" >&2; exit 1; }

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$out/tsq-$version
rm -rf "$src" "$out"/tsq_"$version"_* "$out"/tsq-dbgsym_"$version"_*
mkdir -p "$src"
# The tracked files (and new ones not ignored) of a checkout; all but the
# build output of a tree without git.
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$src"
else
	tar -C "$top" --exclude=./.output --exclude=./debian/.build \
		--exclude=./debian/.tools -cf - . | tar -xf - -C "$src"
fi

msg DEB "dpkg-buildpackage -us -uc -b in $src"
start=$(date +%s)
# make deb shares the machine's libbpf + bpftool cache (debian/rules).
export TSQ_TOOLS_CACHE=${TSQ_TOOLS_CACHE:-${TSQ_CACHE:-/var/cache/tsq}/tools}
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 ||
	{ tail -30 "$out/build.log" >&2; die "dpkg-buildpackage failed: $out/build.log"; }
deb=$out/tsq_${version}_$arch.deb
[ -s "$deb" ] || die "dpkg-buildpackage left no $deb"
rm -rf "$src"
msg DONE "$deb in $(( $(date +%s) - start ))s"
