#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build a tsq guest kernel: a Debian kernel source + the series for it
# (kernel/KVER) + kernel/config and kernel/config-KVER, merged on
# allnoconfig, out of tree, cached outside the checkout.
#
#   KVER=6.12 (default): the backport, on Debian stable's linux-source-6.12
#     (installed by scripts/install-deps.sh); links OUTDIR/kernel, which
#     demo, bench and kernel-deb use.
#   KVER=7.3: the series' base, on the newest linux-source-7.N that Debian
#     offers (scripts/get-kernel-source.sh); links OUTDIR/kernel-7.3.
#
# The cache key covers the version, the source tarball, the series, the
# config fragments and this script, so an unchanged rebuild is a copy. The
# object directory is kept per version and config, so a changed series
# rebuilds only what it touches.
#
# usage: build-kernel.sh OUTDIR [DEBUG]
#   -> OUTDIR/kernel[-KVER]/{bzImage,vmlinux,.config,release,modules/};
#      DEBUG=1 adds kernel/config-debug and links OUTDIR/kernel[-KVER]-debug
#      instead. TSQ_STOCK=1 leaves the series out (the bench's zero-cost
#      baseline), in its own object directory, and links
#      OUTDIR/kernel[-KVER]-stock. KERNEL_TARBALL=FILE builds from another
#      tarball, KERNEL_SERIES=DIR applies the series in DIR instead of
#      kernel/KVER (a rebase in progress).
# Exit status: 0 built or cached; 2 no source to be had (a 7.x that Debian
# no longer offers); 3 the series does not apply to a newer source than its
# cover letter names (rebase it), or there is no series; 1 any other error. On 2 and 3 the one
# line that says why is printed and kept in OUTDIR/kernel[-KVER].skip (no
# link is left), which tests/vm/run-tests shows as a skip.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: build-kernel.sh OUTDIR [DEBUG]}
debug=${2:-0}
kver=${KVER:-6.12}
cache=${TSQ_CACHE:-/var/cache/tsq}
jobs=${JOBS:-$(nproc)}
series=${KERNEL_SERIES:-$top/kernel/$kver}
stock=${TSQ_STOCK:-0}

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
die() { echo "build-kernel: $*" >&2; exit 1; }

name=kernel
[ "$kver" = 6.12 ] || name=kernel-$kver
link=$out/$name
[ "$debug" = 1 ] && link=$link-debug
[ "$stock" = 1 ] && link=$link-stock

# skip STATUS LINE: no kernel for this version today, and why, in one line.
skip() {
	rm -f "$link"
	echo "$2" | tee "$link.skip" >&2
	exit "$1"
}

sname=${series#"$top"/}
fragments=("$top/kernel/config")
[ ! -f "$top/kernel/config-$kver" ] || fragments+=("$top/kernel/config-$kver")
[ "$debug" = 1 ] && fragments+=("$top/kernel/config-debug")
cover=$series/0000-cover-letter.patch
patches=()
for p in "$series"/*.patch; do
	# The cover letter has no diff.
	[ "$p" = "$cover" ] || [ ! -e "$p" ] || patches+=("$p")
done
[ "$stock" = 1 ] && patches=()

mkdir -p "$out" "$cache"
rm -f "$link.skip"
# No series for this version (yet): a skip, as for a rebase.
[ "$stock" = 1 ] || [ ${#patches[@]} -gt 0 ] || skip 3 "$sname holds no series: nothing to build"
# Checkouts share the source trees and object directories, and this
# machine has two cores: one kernel build at a time, the others wait and
# then find it cached. Taken before anything else, the fetch included.
exec 9>"$cache/.kernel.lock"
if ! flock -n 9; then
	msg WAIT "another kernel build holds $cache/.kernel.lock"
	flock 9
fi

# The source: Debian stable's package for 6.12, the newest of the major
# Debian offers for the others.
src_pkg=
if [ -n "${KERNEL_TARBALL:-}" ]; then
	tarball=$KERNEL_TARBALL
elif [ "$kver" = 6.12 ]; then
	tarball=/usr/src/linux-source-6.12.tar.xz
	[ -r "$tarball" ] || die "$tarball missing: apt-get install linux-source-6.12"
else
	log=$(mktemp)
	trap 'rm -f "$log"' EXIT
	rc=0
	got=$("$top/scripts/get-kernel-source.sh" "${kver%%.*}" 2>"$log") || rc=$?
	case $rc in
	0) read -r src_pkg src_ver tarball <<<"$got"
	   cat "$log" >&2 ;;
	2) skip 2 "$(tail -1 "$log")" ;;
	*) cat "$log" >&2; die "no source for $kver" ;;
	esac
fi
[ -r "$tarball" ] || die "$tarball missing"

src_id=$(stat -c '%s-%Y' "$tarball")
src_name=$(basename "$tarball" .tar.xz)-$src_id
cfg_key=$(cat "${fragments[@]}" | sha256sum | cut -c1-16)
# Only the diffs of what the kernel is built from count: rewording a
# commit message, or changing the series' selftests or documentation,
# keeps the cache.
kernel_diffs() {
	awk '/^diff --git / { on = $3 !~ /^a\/(Documentation|tools)\// && $3 != "a/MAINTAINERS" }
	     /^-- $/ { on = 0 }
	     on' "$@"
}
key=$( { echo "$kver $src_id stock=$stock"; cat "${fragments[@]}" "$0"
	[ ${#patches[@]} -eq 0 ] || kernel_diffs "${patches[@]}"; } |
	sha256sum | cut -c1-16)
art=$cache/kernel/$key

if [ -s "$art/bzImage" ] && [ -s "$art/vmlinux" ]; then
	msg CACHED "kernel $key"
	ln -sfn "$art" "$link"
	exit 0
fi

start=$(date +%s)
# Per version: two versions never share a tree or an object directory.
pristine=$cache/src/pristine-$src_name
work=$cache/src/work-$kver
obj=$cache/obj/$kver-$cfg_key
# Switching between stock and patched would rebuild what tcp.h touches.
[ "$stock" = 1 ] && obj=$cache/obj/$kver-stock-$cfg_key
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
# The source the series was made on, as its cover letter names it:
# "base: ... (Debian linux-source-7.3 7.3~rc7-1~exp1)".
base=$(sed -n 's/^base: .*(Debian \(linux-source-[^ ]* [^ )]*\)).*/\1/p' \
	"$cover" 2>/dev/null | head -1)
for p in "${patches[@]}"; do
	msg PATCH "$(basename "$p")"
	why=$(cd "$work" && patch -p1 -s -N --no-backup-if-mismatch -r - <"$p" 2>&1) &&
		continue
	# A newer source than the series': a rebase, not a broken build.
	[ -z "$src_pkg" ] || [ "$src_pkg $src_ver" = "$base" ] ||
		skip 3 "$sname does not apply to $src_pkg $src_ver: rebase it"
	echo "$why" >&2
	die "$(basename "$p") does not apply"
done
mv "$new_touched" "$touched"
# The source this version's series last applied to, which
# tests/host/test_series.sh and scripts/build-selftests.sh use: not moved
# to a newer source the series does not apply to.
ln -sfn "${pristine##*/}" "$cache/src/pristine-$kver"

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
[ "$missing" = 0 ] || die "fix the dependencies of ${fragments[*]##*/}"

msg MAKE "bzImage modules (-j$jobs)"
make -s -C "$work" O="$obj" -j"$jobs" bzImage modules

rm -rf "$art.tmp"
mkdir -p "$art.tmp"
cp "$obj/arch/x86/boot/bzImage" "$obj/vmlinux" "$obj/.config" "$art.tmp/"
make -s -C "$work" O="$obj" kernelrelease >"$art.tmp/release"
# The guest finds them at /lib/modules (tests/vm/init binds this there).
make -s -C "$work" O="$obj" INSTALL_MOD_PATH="$art.tmp/modules" \
	INSTALL_MOD_STRIP=1 modules_install >/dev/null
rm -rf "$art"
mv "$art.tmp" "$art"
ln -sfn "$art" "$link"
msg DONE "kernel $kver ($(cat "$art/release")) $key in $(( $(date +%s) - start ))s"
