#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the tsq guest kernel: Debian's linux-source-6.12 + kernel/6.12 +
# kernel/config, out of tree, cached outside the checkout.
#
# The cache key covers the source tarball, the series, the config fragments
# and this script, so an unchanged rebuild is a copy. The object directory is
# kept per config, so a changed series rebuilds only what it touches.
#
# usage: build-kernel.sh OUTDIR [DEBUG]
#   -> OUTDIR/kernel/{bzImage,vmlinux,modules/}; DEBUG=1 adds kernel/config-debug
#      and links OUTDIR/kernel-debug instead. TSQ_STOCK=1 leaves the series
#      out (the bench's zero-cost baseline), in its own object directory,
#      and links OUTDIR/kernel-stock.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: build-kernel.sh OUTDIR [DEBUG]}
debug=${2:-0}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
cache=${TSQ_CACHE:-/var/cache/tsq}
jobs=${JOBS:-$(nproc)}

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
die() { echo "build-kernel: $*" >&2; exit 1; }

[ -r "$tarball" ] || die "$tarball missing: apt-get install linux-source-6.12"

fragments=("$top/kernel/config")
[ "$debug" = 1 ] && fragments+=("$top/kernel/config-debug")
patches=()
for p in "$top"/kernel/6.12/*.patch; do
	# The cover letter has no diff.
	[ "${p##*/}" = 0000-cover-letter.patch ] || [ ! -e "$p" ] || patches+=("$p")
done
stock=${TSQ_STOCK:-0}
[ "$stock" = 1 ] && patches=()

src_id=$(stat -c '%s-%Y' "$tarball")
cfg_key=$(cat "${fragments[@]}" | sha256sum | cut -c1-16)
# Only the diffs of what the kernel is built from count: rewording a
# commit message, or changing the series' selftests or documentation,
# keeps the cache.
kernel_diffs() {
	awk '/^diff --git / { on = $3 !~ /^a\/(Documentation|tools)\// && $3 != "a/MAINTAINERS" }
	     /^-- $/ { on = 0 }
	     on' "$@"
}
key=$( { echo "$src_id stock=$stock"; cat "${fragments[@]}" "$0"
	[ ${#patches[@]} -eq 0 ] || kernel_diffs "${patches[@]}"; } |
	sha256sum | cut -c1-16)
art=$cache/kernel/$key
link=$out/kernel
[ "$debug" = 1 ] && link=$out/kernel-debug
[ "$stock" = 1 ] && link=$out/kernel-stock

mkdir -p "$out" "$cache"
# Checkouts share the source tree and object directories: one build at a
# time, the others wait and then find it cached.
exec 9>"$cache/.kernel.lock"
if ! flock -n 9; then
	msg WAIT "another kernel build holds $cache/.kernel.lock"
	flock 9
fi
if [ -s "$art/bzImage" ] && [ -s "$art/vmlinux" ]; then
	msg CACHED "kernel $key"
	ln -sfn "$art" "$link"
	exit 0
fi

start=$(date +%s)
pristine=$cache/src/pristine-$src_id
work=$cache/src/work
obj=$cache/obj/$cfg_key
# Switching between stock and patched would rebuild what tcp.h touches.
[ "$stock" = 1 ] && obj=$cache/obj/stock-$cfg_key
mkdir -p "$cache/src" "$cache/kernel" "$obj"

if [ ! -f "$pristine/.tsq-complete" ]; then
	msg UNPACK "$tarball"
	rm -rf "$pristine" "$pristine.tmp"
	mkdir -p "$pristine.tmp"
	tar -xf "$tarball" -C "$pristine.tmp" --strip-components=1
	touch "$pristine.tmp/.tsq-complete"
	mv "$pristine.tmp" "$pristine"
fi

# A hard-linked copy keeps the mtimes of untouched files, so make in the
# kept object directory only rebuilds what the series changes. Files a
# previous series touched are copied and touched so they rebuild too.
msg TREE "$work"
rm -rf "$work"
cp -al "$pristine" "$work"
touched=$obj/.tsq-touched
new_touched=$(mktemp)
for p in "${patches[@]}"; do
	sed -n 's|^+++ b/||p' "$p"
done | sort -u >"$new_touched"
[ -f "$touched" ] || : >"$touched"
sort -u "$new_touched" "$touched" | while read -r f; do
	[ -f "$work/$f" ] || continue
	cp --remove-destination "$pristine/$f" "$work/$f"
	touch "$work/$f"
done
for p in "${patches[@]}"; do
	msg PATCH "$(basename "$p")"
	(cd "$work" && patch -p1 -s --no-backup-if-mismatch) <"$p" ||
		die "$(basename "$p") does not apply"
done
mv "$new_touched" "$touched"

msg CONFIG "allnoconfig + ${fragments[*]##*/}"
make -s -C "$work" O="$obj" allnoconfig >/dev/null
"$work/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
	"${fragments[@]}" >/dev/null
make -s -C "$work" O="$obj" olddefconfig >/dev/null
# merge_config only warns when a dependency drops an option: fail instead.
missing=0
for f in "${fragments[@]}"; do
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		grep -qx "$line" "$obj/.config" || {
			echo "build-kernel: $line did not survive olddefconfig" >&2
			missing=1
		}
	done <"$f"
done
[ "$missing" = 0 ] || die "fix kernel/config dependencies"

msg MAKE "bzImage modules (-j$jobs)"
make -s -C "$work" O="$obj" -j"$jobs" bzImage modules

rm -rf "$art.tmp"
mkdir -p "$art.tmp"
cp "$obj/arch/x86/boot/bzImage" "$obj/vmlinux" "$obj/.config" "$art.tmp/"
# The guest finds them at /lib/modules (tests/vm/init binds this there).
make -s -C "$work" O="$obj" INSTALL_MOD_PATH="$art.tmp/modules" \
	INSTALL_MOD_STRIP=1 modules_install >/dev/null
rm -rf "$art"
mv "$art.tmp" "$art"
ln -sfn "$art" "$link"
msg DONE "kernel $key in $(( $(date +%s) - start ))s"
