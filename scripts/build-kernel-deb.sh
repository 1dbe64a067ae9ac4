#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The patched kernel as Debian packages, from a distribution config:
# Debian's linux-source-6.12 + kernel/6.12, Debian's own config for a
# flavour (linux-config-6.12) or any config file, kernel/config-tsq and
# KFRAGMENTS merged on top, olddefconfig, then make bindeb-pkg with a
# -tsq local version: linux-image-* and linux-headers-* .debs.
#
# usage: build-kernel-deb.sh [--config-only] OUTDIR
#   OUTDIR/obj      the object tree (kept: a second build is incremental)
#   OUTDIR/*.deb    the packages
#   --config-only   stop after the merge: OUTDIR/obj/.config, checked
# Env: KCONFIG (a config file, .xz read too; default Debian's for
#      KFLAVOUR), KFLAVOUR (cloud-amd64), KFRAGMENTS (more fragments),
#      KLOCALVERSION (-tsq), JOBS, TSQ_CACHE (the unpacked source).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
cache=${TSQ_CACHE:-/var/cache/tsq}
flavour=${KFLAVOUR:-cloud-amd64}
kconfig=${KCONFIG:-/usr/src/linux-config-6.12/config.amd64_none_$flavour.xz}
localversion=${KLOCALVERSION:--tsq}
jobs=${JOBS:-$(nproc)}

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
die() { echo "build-kernel-deb: $*" >&2; exit 1; }

config_only=0
[ "${1:-}" = --config-only ] && { config_only=1; shift; }
out=${1:?usage: build-kernel-deb.sh [--config-only] OUTDIR}
[ -r "$tarball" ] || die "$tarball missing: apt-get install linux-source-6.12"
[ -r "$kconfig" ] || die "$kconfig missing: apt-get install linux-config-6.12, or KCONFIG=/boot/config-\$(uname -r)"
fragments=("$top/kernel/config-tsq")
for f in ${KFRAGMENTS:-}; do
	[ -r "$f" ] || die "fragment $f missing"
	fragments+=("$(cd "$(dirname "$f")" && pwd)/${f##*/}")
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
obj=$out/obj

# The source tree build-kernel.sh unpacks (same tarball, same name), or
# our own unpack when there is none; never written to. The packages stay
# on 6.12, whose Debian package and config stay put (kernel/6.12).
src_id=$(stat -c '%s-%Y' "$tarball")
pristine=$cache/src/pristine-$(basename "$tarball" .tar.xz)-$src_id
if [ ! -f "$pristine/.tsq-complete" ]; then
	pristine=$out/pristine
	if [ ! -f "$pristine/.tsq-complete" ]; then
		msg UNPACK "$tarball"
		rm -rf "$pristine"
		mkdir -p "$pristine"
		tar -xf "$tarball" -C "$pristine" --strip-components=1
		touch "$pristine/.tsq-complete"
	fi
fi

# The configuration needs no patched tree: the series adds no Kconfig
# option (checked below against the fragment's needs, not assumed).
merge_config() {
	local f line missing=0

	mkdir -p "$obj"
	msg CONFIG "${kconfig##*/} + ${fragments[*]##*/}"
	case $kconfig in
	*.xz) xz -dc "$kconfig" >"$obj/.config" ;;
	*) cp "$kconfig" "$obj/.config" ;;
	esac
	"$1/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"${fragments[@]}" >/dev/null
	make -s -C "$1" O="$obj" olddefconfig >/dev/null
	# merge_config only warns when a dependency drops an option.
	for f in "${fragments[@]}"; do
		while IFS= read -r line; do
			case $line in CONFIG_*=*) ;; *) continue ;; esac
			grep -qx "$line" "$obj/.config" || {
				echo "build-kernel-deb: $line did not survive olddefconfig (${f##*/})" >&2
				missing=1
			}
		done <"$f"
	done
	[ "$missing" = 0 ] || die "$kconfig cannot give what ${fragments[*]##*/} need"
}

if [ "$config_only" = 1 ]; then
	merge_config "$pristine"
	msg DONE "$obj/.config"
	exit 0
fi

# One kernel build at a time on this machine (build-kernel.sh's lock).
mkdir -p "$cache"
exec 9>"$cache/.kernel.lock"
if ! flock -n 9; then
	msg WAIT "another kernel build holds $cache/.kernel.lock"
	flock 9
fi
start=$(date +%s)

# A hard-linked copy of the pristine tree, the series applied to copies
# of the files it touches (patch must not write through the links).
patches=()
for p in "$top"/kernel/6.12/*.patch; do
	# The cover letter has no diff.
	[ "${p##*/}" = 0000-cover-letter.patch ] || [ ! -e "$p" ] || patches+=("$p")
done
work=$out/src
# Kept while the series' diffs are the same, so that an interrupted or
# repeated build goes on where it was (patched files keep their mtimes).
series=$( { echo "$src_id"; [ ${#patches[@]} -eq 0 ] ||
	sed -n '/^diff --git/,/^-- $/p' "${patches[@]}"; } | sha256sum | cut -c1-16)
if [ "$(cat "$work/.tsq-series" 2>/dev/null)" = "$series" ]; then
	msg TREE "$work (series $series, kept)"
else
	msg TREE "$work"
	rm -rf "$work"
	cp -al "$pristine" "$work"
	for p in "${patches[@]}"; do
		sed -n 's|^+++ b/||p' "$p"
	done | sort -u | while read -r f; do
		[ ! -f "$work/$f" ] || cp --remove-destination "$pristine/$f" "$work/$f"
	done
	for p in "${patches[@]}"; do
		msg PATCH "${p##*/}"
		(cd "$work" && patch -p1 -s --no-backup-if-mismatch) <"$p" ||
			die "${p##*/} does not apply"
	done
	echo "$series" >"$work/.tsq-series"
fi

merge_config "$work"
release=$(make -s -C "$work" O="$obj" LOCALVERSION="$localversion" kernelrelease)
msg MAKE "bindeb-pkg $release (-j$jobs)"
# The debug-symbols package (linux-image-*-dbg) would double the build's
# time and size; DEB_BUILD_PROFILES= asks for it back.
rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
DEB_BUILD_PROFILES=${DEB_BUILD_PROFILES-pkg.linux-upstream.nokerneldbg} \
	make -s -C "$work" O="$obj" -j"$jobs" LOCALVERSION="$localversion" \
	KDEB_SOURCENAME=linux-upstream DPKG_FLAGS=-us bindeb-pkg >"$out/build.log" 2>&1 ||
	{ tail -30 "$out/build.log" >&2; die "bindeb-pkg failed: $out/build.log"; }
# dpkg-buildpackage leaves the packages beside the object tree.
ls "$out"/linux-image-"$release"_*.deb "$out"/linux-headers-"$release"_*.deb >/dev/null ||
	die "bindeb-pkg left no linux-image or linux-headers package for $release"
msg DONE "$release in $(( $(date +%s) - start ))s"
ls -l "$out"/*.deb >&2
