#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The newest linux-source-MAJOR.N that Debian offers (7.x: experimental's
# release candidates and sid), fetched with apt and the project's own
# sources list (scripts/kernel-source.list), and its tarball taken out
# of the .deb. apt gets its own lists, caches and archives below
# $TSQ_CACHE/apt, so the machine's sources and apt state stay as they
# are; nothing is installed.
#
# usage: get-kernel-source.sh MAJOR
#   stdout: PACKAGE VERSION TARBALL, e.g.
#     linux-source-7.3 7.3~rc7-1~exp1 /var/cache/tsq/apt/src/linux-source-7.3_7.3~rc7-1~exp1.tar.xz
#   exit 0; 2 when no linux-source-MAJOR.N can be had, with one line on
#   stderr that names the package; 1 on any other error.
# Env: TSQ_CACHE (/var/cache/tsq); TSQ_APT_SOURCES=FILE, another sources
# list; TSQ_APT_MAX_AGE=MINUTES, how old the package lists may be before
# they are fetched again (720; 0: every time).
#
# Debian keeps only the newest package of a suite: the day it replaces
# 7.3-rc7, this script answers with what replaced it. A downloaded .deb
# is kept and reused; when the lists cannot be fetched, the newest kept
# one is used.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
major=${1:?usage: get-kernel-source.sh MAJOR}
cache=${TSQ_CACHE:-/var/cache/tsq}
sources=${TSQ_APT_SOURCES:-$top/scripts/kernel-source.list}
max_age=${TSQ_APT_MAX_AGE:-720}
dir=$cache/apt
want="linux-source-$major.x"

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
# The one line a caller shows when there is no source to be had.
unavailable() { echo "get-kernel-source: could not get $want: $*" >&2; exit 2; }
die() { echo "get-kernel-source: $*" >&2; exit 1; }

[[ $major =~ ^[0-9]+$ ]] || die "MAJOR is a number (7), not '$major'"
[ -r "$sources" ] || die "$sources missing"
mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs" "$dir/src"
exec 8>"$dir/.lock"
flock 8

apt_opts=(-o "Dir::Etc::sourcelist=$sources" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
	-o "Dir::Cache::Archives=$dir/cache/archives"
	-o Dir::Etc::preferences=/dev/null -o Dir::Etc::preferencesparts=-)

# The lists, unless fetched from this sources list in the last
# max_age minutes. apt-get update exits 0 when a source cannot be
# reached; the log keeps what it said.
stamp=$dir/lists/.tsq-updated
log=$dir/update.log
if [ "$max_age" = 0 ] || [ ! -f "$stamp" ] || ! cmp -s "$sources" "$stamp" ||
   [ -n "$(find "$stamp" -mmin +"$max_age")" ]; then
	rm -f "$stamp"
	if apt-get -q "${apt_opts[@]}" update >"$log" 2>&1 &&
	   ! grep -q '^\(W: Failed to fetch\|E: \)' "$log"; then
		cp "$sources" "$stamp"
	fi
fi
# Why the lists may be missing or old: apt's first complaint.
why=
for re in '^W: Failed to fetch' '^E: ' '^Err:'; do
	why=$(grep -m1 "$re" "$log" 2>/dev/null | sed 's/^[A-Za-z]*:[0-9]* *//; s/  */ /g') &&
		break
done

# The newest MAJOR.N offered, and its newest version (experimental and
# sid may both carry it).
pkg=$(apt-cache "${apt_opts[@]}" search --names-only "^linux-source-$major\\.[0-9]+\$" \
	2>/dev/null | cut -d' ' -f1 | sort -V | tail -1 || true)
ver=
if [ -n "$pkg" ]; then
	for v in $(apt-cache "${apt_opts[@]}" madison "$pkg" 2>/dev/null |
		   awk -F' *[|] *' '{ print $2 }'); do
		[ -z "$ver" ] || dpkg --compare-versions "$v" gt "$ver" && ver=$v
	done
fi

# Nothing offered: the newest .deb kept from an earlier run, if any.
if [ -z "$ver" ]; then
	kept=$(find "$dir/debs" -name "linux-source-${major}.*_*_all.deb" -printf '%f\n' |
		sort -V | tail -1)
	[ -n "$kept" ] || unavailable "apt offers none from ${sources}${why:+ ($why)}"
	pkg=${kept%%_*}
	ver=${kept#*_}
	ver=${ver%_all.deb}
	msg KEPT "$pkg $ver: apt offers none now${why:+ ($why)}"
fi

# apt-get download names the file with the epoch's colon as %3a.
deb=$dir/debs/${pkg}_${ver//:/%3a}_all.deb
if [ ! -s "$deb" ]; then
	msg DOWNLOAD "$pkg $ver"
	(cd "$dir/debs" && apt-get -q "${apt_opts[@]}" download "$pkg=$ver") \
		>"$dir/download.log" 2>&1 && [ -s "$deb" ] ||
		unavailable "apt-get download $pkg=$ver failed: $(grep -m1 '^E: ' \
			"$dir/download.log" || tail -1 "$dir/download.log")"
fi

# Debian's tarball, under a name that carries the package version, so
# that a new package is a new source for the kernel's cache key.
tarball=$dir/src/${pkg}_${ver//:/%3a}.tar.xz
if [ ! -s "$tarball" ]; then
	msg EXTRACT "$deb"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$pkg.tar.xz" >"$tarball.tmp" ||
		die "no usr/src/$pkg.tar.xz in $deb"
	mv "$tarball.tmp" "$tarball"
fi
echo "$pkg $ver $tarball"
