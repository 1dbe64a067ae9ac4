#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel series is upstream-shaped: git am applies it to the pristine
# 6.12 source, and checkpatch.pl --strict has nothing to say about it.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${TSQ_CACHE:-/var/cache/tsq}
src_id=$(stat -c '%s-%Y' "${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}")
tree=$cache/src/pristine-$src_id
patches=("$top"/kernel/patches/*.patch)

if [ ! -f "$tree/.tsq-complete" ]; then
	echo "FAIL: no unpacked source at $tree (make kernel first)"
	exit 1
fi

# git am into a repository holding just the files the series touches.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$tmp" init -q
sed -n 's|^--- a/||p' "${patches[@]}" | sort -u | while read -r f; do
	mkdir -p "$tmp/$(dirname "$f")"
	cp "$tree/$f" "$tmp/$f"
done
git -C "$tmp" add -A -f
git -C "$tmp" -c user.name=t -c user.email=t@t commit -qm base
if git -C "$tmp" -c user.name=t -c user.email=t@t am -q "${patches[@]}" >"$tmp/am.log" 2>&1; then
	echo "PASS: git am applies ${#patches[@]} patches"
else
	echo "FAIL: git am: $(head -3 "$tmp/am.log")"
fi

for p in "${patches[@]}"; do
	out=$(cd "$tree" && perl scripts/checkpatch.pl --strict --no-tree -q "$p" 2>&1)
	if [ -z "$out" ]; then
		echo "PASS: checkpatch --strict ${p##*/}"
	else
		echo "FAIL: checkpatch --strict ${p##*/}: $(echo "$out" | head -3)"
	fi
done
