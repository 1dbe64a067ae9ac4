#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make install into a DESTDIR: the layout, the unit file as systemd reads
# it (verify, offline security review), man pages that render, and an
# uninstall that keeps the configuration.
top=$(cd "$(dirname "$0")/../.." && pwd)
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
expect() { if eval "$2"; then pass "$1"; else fail "$1"; fi; }

make -s -C "$top" install DESTDIR="$dest" PREFIX=/usr/local >"$dest.log" 2>&1
expect "make install exits 0" '[ $? = 0 ] || { cat "$dest.log"; false; }'
rm -f "$dest.log"
p=$dest/usr/local
for f in sbin/tsqd sbin/tsqctl sbin/tsq-kube; do
	expect "$f installed, mode 755" '[ "$(stat -c %a "$p/$f")" = 755 ]'
done
for f in share/man/man8/tsqd.8 share/man/man8/tsqctl.8 share/man/man8/tsq-kube.8 \
	share/man/man5/tsq.conf.5 \
	lib/systemd/system/tsqd.service; do
	expect "$f installed, mode 644" '[ "$(stat -c %a "$p/$f" 2>/dev/null)" = 644 ]'
done
n=$(find "$p/share/tsq/bpftrace" -name '*.bt' 2>/dev/null | wc -l)
want=$(find "$top/tools/bpftrace" -name '*.bt' 2>/dev/null | wc -l)
expect "bpftrace scripts installed ($n of $want)" '[ "$n" = "$want" ]'
expect "example /etc/tsq/tsq.conf and tsq.conf.d" \
	'[ -f "$dest/etc/tsq/tsq.conf" ] && [ -d "$dest/etc/tsq/tsq.conf.d" ]'

unit=$p/lib/systemd/system/tsqd.service
expect "unit ExecStart points at the installed tsqd" \
	'grep -qx "ExecStart=/usr/local/sbin/tsqd" "$unit"'
# verify resolves ExecStart= on this system: check a copy that names the
# DESTDIR binary; the man pages are checked below.
mkdir "$dest/verify"
sed "s|^ExecStart=/usr/local|ExecStart=$p|" "$unit" >"$dest/verify/tsqd.service"
out=$(systemd-analyze verify --man=no "$dest/verify/tsqd.service" 2>&1)
rm -rf "$dest/verify"
expect "systemd-analyze verify: no complaint${out:+: $out}" '[ -z "$out" ]'
score=$(systemd-analyze security --offline=true --root="$dest" "$unit" 2>/dev/null |
	sed -n 's/.*Overall exposure level for tsqd.service: \([0-9.]*\).*/\1/p')
echo "# systemd-analyze security: exposure ${score:-?}"
# 2.0 with the capabilities tsqd cannot start without; CAP_DAC_READ_SEARCH,
# which names the cgroups their owners made unreadable, adds 0.2.
expect "systemd-analyze security: exposure ${score:-?} <= 2.2 (OK or better)" \
	'awk -v s="${score:-99}" "BEGIN { exit !(s <= 2.2) }"'

for m in "$p"/share/man/man*/*; do
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)
	expect "installed ${m##*/} renders without warnings${warn:+: $warn}" '[ -z "$warn" ]'
done

echo '/bulk limit 8k' >"$dest/etc/tsq/tsq.conf"
make -s -C "$top" install DESTDIR="$dest" PREFIX=/usr/local >/dev/null 2>&1
expect "a second install keeps the admin's tsq.conf" \
	'[ "$(cat "$dest/etc/tsq/tsq.conf")" = "/bulk limit 8k" ]'
make -s -C "$top" uninstall DESTDIR="$dest" PREFIX=/usr/local >/dev/null 2>&1
left=$(cd "$dest" && find . -type f | sort | tr '\n' ' ')
expect "uninstall leaves only the configuration (left: $left)" \
	'[ "$left" = "./etc/tsq/tsq.conf " ]'
