#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel series is upstream-shaped: git am applies it to the pristine
# 6.12 source, and checkpatch.pl --strict has nothing to say about it.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${TSQ_CACHE:-/var/cache/tsq}
src_id=$(stat -c '%s-%Y' "${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}")
tree=$cache/src/pristine-$src_id
cover=$top/kernel/patches/0000-cover-letter.patch
patches=()
for p in "$top"/kernel/patches/*.patch; do
	[ "$p" = "$cover" ] || patches+=("$p")
done

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

# The form upstream asks for: a cover letter, every subject tagged for
# bpf-next as an RFC, and a series small enough to review.
n=${#patches[@]}
if [ -f "$cover" ] && grep -q "^Subject: \[PATCH RFC bpf-next 0/$n\]" "$cover"; then
	pass_cover=1
	echo "PASS: cover letter [PATCH RFC bpf-next 0/$n]"
else
	echo "FAIL: no cover letter tagged [PATCH RFC bpf-next 0/$n] at ${cover#"$top"/}"
fi
bad=$(for p in "${patches[@]}"; do
	grep -q "^Subject: \[PATCH RFC bpf-next [0-9]*/$n\]" "$p" || echo "${p##*/}"
done)
if [ -z "$bad" ]; then
	echo "PASS: every patch tagged [PATCH RFC bpf-next N/$n]"
else
	echo "FAIL: not tagged [PATCH RFC bpf-next N/$n]: $bad"
fi
# The cover letter names the test setup and carries numbers.
if [ -n "${pass_cover:-}" ] && grep -q 'QEMU' "$cover" && grep -q 'vCPU' "$cover" &&
   grep -Eq '[0-9]+(\.[0-9]+)? (KB|ms)' "$cover"; then
	echo "PASS: cover letter names QEMU, vCPUs and measured KB/ms"
else
	echo "FAIL: cover letter lacks the test setup or numbers"
fi
# Added lines, the documentation page apart (its own patch).
code=$(for p in "${patches[@]}"; do
	awk '/^diff --git/ { doc = ($3 ~ /^a\/Documentation\//) }
	     /^\+/ && !/^\+\+\+/ && !doc { n++ } END { print n + 0 }' "$p"
done | paste -sd+ | bc)
all=$(cat "${patches[@]}" | grep '^+' | grep -vc '^+++')
if [ "$code" -le 420 ]; then
	echo "PASS: series adds $code lines of code, $((all - code)) of documentation (about 400 wanted)"
else
	echo "FAIL: series adds $code lines of code, over 420"
fi
