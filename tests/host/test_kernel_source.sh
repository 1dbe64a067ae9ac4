#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The day Debian offers no linux-source-7.N, or replaces 7.3-rc7 with a
# source the series does not apply to, make check must say so in one line
# and skip the 7.x VM run, not fail. Without the network or a kernel:
# scripts/get-kernel-source.sh with an empty sources list and with an
# unreachable suite, then scripts/build-kernel.sh KVER=7.3 on a fake
# linux-source-7.9 .deb that a series made on 7.3-rc7 does not apply to.
set -u

# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"

# one_line NAME SOURCES-LINE: the fetcher's exit status 2 and one line of
# output in all, naming the package.
one_line() {
	local name=$1 rc
	name=${name// /-}
	printf '%s' "$2" >"$tmp/$name.list"
	TSQ_CACHE=$tmp/$name TSQ_APT_SOURCES=$tmp/$name.list \
		"$top/scripts/get-kernel-source.sh" 7 >"$tmp/$name.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/$name.out")" = 1 ] &&
	   grep -q 'linux-source-7' "$tmp/$name.out"; then
		pass "get-kernel-source, $1: exit 2, one line: $(cat "$tmp/$name.out")"
	else
		fail "get-kernel-source, $1: exit $rc, $(wc -l <"$tmp/$name.out") lines: $(head -3 "$tmp/$name.out" | tr '\n' ' ')"
	fi
}

one_line "empty sources list" ""
# Port 9 (discard) of the loopback: nothing listens, apt fails at once.
one_line "unreachable suite" \
	"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://127.0.0.1:9/debian tsq-none main
"

# A series made on a 7.9-rc1, whose patch does not apply to the fake
# sources below.
mkdir -p "$tmp/series"
printf 'Subject: [PATCH RFC v4 0/1] x\n\nbase: Linux 7.9-rc1 (Debian linux-source-7.9 7.9~rc1-1~exp1)\n' \
	>"$tmp/series/0000-cover-letter.patch"
cat >"$tmp/series/0001-x.patch" <<'EOF'
--- a/net/tcp.c
+++ b/net/tcp.c
@@ -1 +1 @@
-int tcp(void) { return 1; }
+int tcp(void) { return 2; }
EOF

# build-kernel.sh KVER=7.3 without a source: exit 2, no kernel link, the
# fetcher's line in OUTDIR/kernel-7.3.skip for the VM run's skip.
TSQ_CACHE=$tmp/bk TSQ_APT_SOURCES=$tmp/empty-sources-list.list KVER=7.3 \
	KERNEL_SERIES=$tmp/series "$top/scripts/build-kernel.sh" "$tmp/out" >"$tmp/bk.log" 2>&1
rc=$?
if [ "$rc" = 2 ] && [ ! -e "$tmp/out/kernel-7.3" ] &&
   [ "$(wc -l <"$tmp/out/kernel-7.3.skip")" = 1 ] &&
   grep -q 'could not get linux-source-7' "$tmp/out/kernel-7.3.skip"; then
	pass "build-kernel KVER=7.3 without a source: exit 2, kernel-7.3.skip: $(cat "$tmp/out/kernel-7.3.skip")"
else
	fail "build-kernel KVER=7.3 without a source: exit $rc: $(tail -2 "$tmp/bk.log" | tr '\n' ' ')"
fi

# A fake linux-source-7.9 kept from an earlier download (no lists: the
# sources list is empty), and a series whose cover letter names 7.3-rc7.
# fake_deb VERSION: the .deb in the fetcher's cache of $tmp/rb.
fake_deb() {
	local d=$tmp/deb-$1
	mkdir -p "$d/DEBIAN" "$d/usr/src" "$d/src/linux-source-7.9/net"
	echo 'int tcp(void) { return 0; }' >"$d/src/linux-source-7.9/net/tcp.c"
	tar -cJf "$d/usr/src/linux-source-7.9.tar.xz" -C "$d/src" linux-source-7.9
	rm -rf "$d/src"
	printf 'Package: linux-source-7.9\nVersion: %s\nArchitecture: all\nMaintainer: t <t@t>\nDescription: fake\n' \
		"$1" >"$d/DEBIAN/control"
	mkdir -p "$tmp/rb/apt/debs"
	rm -f "$tmp/rb/apt/debs"/*
	dpkg-deb -Zxz --build "$d" "$tmp/rb/apt/debs/linux-source-7.9_$1_all.deb" >/dev/null
}
# rebase VERSION: build-kernel's exit status and its .skip line.
rebase() {
	fake_deb "$1"
	rm -rf "$tmp/rb/src" "$tmp/out"
	TSQ_CACHE=$tmp/rb TSQ_APT_SOURCES=$tmp/empty-sources-list.list KVER=7.3 \
		KERNEL_SERIES=$tmp/series "$top/scripts/build-kernel.sh" "$tmp/out" \
		>"$tmp/rb.log" 2>&1
	echo "$? $(cat "$tmp/out/kernel-7.3.skip" 2>/dev/null)"
}
r=$(rebase 7.9.2-1)
want="3 $tmp/series does not apply to linux-source-7.9 7.9.2-1: rebase it"
if [ "$r" = "$want" ]; then
	pass "a newer source than the cover letter's base: exit 3, '${r#3 "$tmp"/}'"
else
	fail "a newer source than the cover letter's base: '$r', not '$want'"
fi
# On the source it names, a patch that does not apply is an error.
r=$(rebase 7.9~rc1-1~exp1)
if [ "$r" = "1 " ] && grep -q 'does not apply' "$tmp/rb.log"; then
	pass "the cover letter's own base: a patch that does not apply fails the build (exit 1)"
else
	fail "the cover letter's own base: '$r', not exit 1: $(tail -2 "$tmp/rb.log" | tr '\n' ' ')"
fi
# No series for the version yet: a skip too, before any fetch.
mkdir -p "$tmp/none"
KVER=7.3 TSQ_CACHE=$tmp/none KERNEL_SERIES=$tmp/none "$top/scripts/build-kernel.sh" \
	"$tmp/out" >"$tmp/none.log" 2>&1
rc=$?
if [ "$rc" = 3 ] && grep -q 'holds no series' "$tmp/out/kernel-7.3.skip"; then
	pass "no series: exit 3, kernel-7.3.skip: DIR holds no series: nothing to build"
else
	fail "no series: exit $rc: $(tail -2 "$tmp/none.log" | tr '\n' ' ')"
fi
