#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The package make deb built, on this host (stock kernel, no systemd as
# PID 1): lintian has no error or warning; dpkg -i installs it with
# tsq.conf as a conffile; the installed tsqctl's doctor and top work and
# top sees a cgroup's TCP sockets; the installed tsqd starts in
# observation mode on the installed configuration and a reload reads a
# drop-in; dpkg --purge leaves no file that was not there before. The VM
# test t_deb.sh installs the same file under systemd on the patched
# kernel.
top=$(cd "$(dirname "$0")/../.." && pwd)
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
skip() { echo "# SKIP: $*"; exit 0; }
mkvar() { make -s --no-print-directory -C "$top" "print-$1"; }
out=$(mkvar OUTPUT)
case $out in /*) ;; *) out=$top/$out ;; esac
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
deb=$out/deb/tsq_${version}_$(dpkg --print-architecture).deb

[ -s "$deb" ] || skip "tsq package: no $deb (make deb)"
[ "$(id -u)" = 0 ] || skip "tsq package: dpkg -i needs root"
# One install at a time on this machine: other checkouts run this too.
# What tsqd and tsqctl write to /run and bpffs stays in a mount namespace
# of the test's own: other checkouts' tests use /run/tsq too.
if [ -z "${TSQ_TEST_DEB_NS:-}" ]; then
	exec 8>/run/lock/tsq-test-deb.lock
	flock 8
	exec unshare -m --propagation private sh -c 'mount -t tmpfs -o mode=755 tmpfs /run &&
		mount -t bpf bpf /sys/fs/bpf && TSQ_TEST_DEB_NS=1 exec "$0"' "$0"
fi
if dpkg-query -W -f='${Status}' tsq 2>/dev/null | grep -q 'ok installed'; then
	skip "tsq package: a tsq package is installed here; the test would replace it"
fi

t=$(mktemp -d)
cg=
cleanup() {
	[ -z "${pid:-}" ] || kill "$pid" 2>/dev/null
	[ -z "${holder:-}" ] || kill "$holder" 2>/dev/null
	wait 2>/dev/null
	[ -z "$cg" ] || rmdir "$cg" 2>/dev/null
	rm -f /etc/tsq/tsq.conf.d/tsq-test-*.conf
	dpkg --purge tsq >/dev/null 2>&1
	rm -rf "$t"
}
trap cleanup EXIT

if command -v lintian >/dev/null; then
	lintian --pedantic --display-info "$deb" >"$t/lintian" 2>&1
	sed -n 's/^[IPN]: /# lintian: &/p' "$t/lintian"
	bad=$(grep -E '^[EW]: ' "$t/lintian")
	if [ -z "$bad" ] && ! grep -q 'internal error\|^Traceback' "$t/lintian"; then
		pass "lintian: no error or warning ($(grep -c '^[IP]: ' "$t/lintian") info/pedantic)"
	else
		fail "lintian: $(tr '\n' ';' <<<"${bad:-$(head -3 "$t/lintian")}")"
	fi
else
	fail "lintian not installed (scripts/install-deps.sh deb)"
fi

# Every file below the places a package or its daemon could leave one.
# Files of another package that an apt run beside this test installed
# are not ours.
snapshot() {
	find /etc /usr /var/lib /run/tsq /sys/fs/bpf/tsq -xdev 2>/dev/null |
		grep -v '^/var/lib/dpkg/\(status\|available\|lock\|triggers\|updates\)' | sort
}
snapshot >"$t/before"

dpkg -i "$deb" >"$t/dpkg" 2>&1
rc=$?
if [ "$rc" = 0 ] && dpkg-query -W -f='${Status}' tsq | grep -q 'ok installed'; then
	pass "dpkg -i $(basename "$deb")"
else
	fail "dpkg -i: exit $rc: $(tail -3 "$t/dpkg" | tr '\n' ';')"
	exit 0
fi
want="/usr/sbin/tsqd /usr/sbin/tsqctl /usr/sbin/tsq-kube /lib/systemd/system/tsqd.service
/usr/share/man/man8/tsqd.8.gz /usr/share/man/man8/tsqctl.8.gz /usr/share/man/man8/tsq-kube.8.gz
/usr/share/man/man5/tsq.conf.5.gz /etc/tsq/tsq.conf"
missing=$(for f in $want; do dpkg -L tsq | grep -qx "$f" || echo "$f"; done)
n_bt=$(dpkg -L tsq | grep -c '^/usr/share/tsq/bpftrace/.*\.bt$')
n_want=$(find "$top/tools/bpftrace" -name '*.bt' | wc -l)
if [ -z "$missing" ] && [ "$n_bt" = "$n_want" ]; then
	pass "the package holds the programs, unit, man pages, tsq.conf and $n_bt bpftrace scripts"
else
	fail "missing from the package: $missing; bpftrace scripts $n_bt of $n_want"
fi
if dpkg-query -W -f='${Conffiles}\n' tsq | grep -q '^ /etc/tsq/tsq.conf '; then
	pass "/etc/tsq/tsq.conf is a conffile"
else
	fail "/etc/tsq/tsq.conf is no conffile: $(dpkg-query -W -f='${Conffiles}' tsq)"
fi
deps=$(dpkg-query -W -f='${Depends}' tsq)
unknown=$(tr ',' '\n' <<<"$deps" | sed 's/ *(.*//; s/^ *//' | while read -r p; do
	apt-cache show "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$deps" ] && [ -z "$unknown" ]; then
	pass "Depends: $deps (all in this Debian's archive)"
else
	fail "Depends not in the archive: $unknown"
fi
# tsq-kube's libcurl is the GnuTLS flavour: libcurl4 is the OpenSSL one,
# whose Apache-2.0 licence a GPL-2.0 program cannot link.
if grep -q '\blibcurl3-gnutls\b' <<<"$deps" && ! grep -q '\blibcurl4\b' <<<"$deps"; then
	pass "Depends names libcurl3-gnutls, not libcurl4 (OpenSSL)"
else
	fail "Depends: libcurl is not the GnuTLS flavour: $deps"
fi
# Not enabled on install (debian/rules): a stock kernel would get
# observation mode's tracepoints.
if [ ! -e /etc/systemd/system/multi-user.target.wants/tsqd.service ]; then
	pass "tsqd.service not enabled by the install"
else
	fail "the install enabled tsqd.service"
fi

# doctor: exit 0 (nothing to advise) or 1 (advice), the hook line.
/usr/sbin/tsqctl doctor >"$t/doctor" 2>&1
rc=$?
if [ "$rc" -le 1 ] && grep -q '^  hook: no tcp_tsq_ops' "$t/doctor" && grep -q '^NICs' "$t/doctor"; then
	pass "tsqctl doctor (exit $rc): $(grep '^  hook:' "$t/doctor")"
else
	fail "tsqctl doctor: exit $rc: $(head -c 300 "$t/doctor")"
fi

# top: a cgroup holding a loopback TCP connection shows its two ends.
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=$cgmnt/tsq-test-deb.$$
mkdir "$cg"
(
	echo $BASHPID >"$cg/cgroup.procs"
	exec python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname()); a, _ = s.accept()
print("up", flush=True); time.sleep(60)'
) >"$t/holder" 2>&1 &
holder=$!
for _ in $(seq 50); do grep -q up "$t/holder" && break; sleep 0.1; done
/usr/sbin/tsqctl -j top -i 1 -n 1 >"$t/top" 2>"$t/top.err"
rc=$?
est=$(jq -r --arg c "/${cg##*/}" 'if type == "array" then .[-1] else . end |
	(.cgroups // .)[] | select(.cgroup == $c) | .established' "$t/top" 2>/dev/null)
if [ "$rc" = 0 ] && [ "${est:-0}" = 2 ]; then
	pass "tsqctl -j top: /${cg##*/} has 2 established sockets"
else
	fail "tsqctl -j top: exit $rc, established ${est:-none}: $(head -c 300 "$t/top.err" "$t/top")"
fi
kill "$holder"
wait "$holder" 2>/dev/null
holder=

# tsqd as installed: the package's configuration, its own bpffs.
. "$top/tests/host/tsqd_private.sh"
port=$((20000 + ($$ + 7) % 20000))
tsqd_private /usr/sbin/tsqd "$port" "$t/log"
if head -1 "$t/log" | grep -q '^tsqd: observation mode:' &&
   grep -q '^tsqd: read 0 policies; observation mode: not applied' "$t/log" &&
   curl -sf "http://127.0.0.1:$port/metrics" | grep -q '^tsq_observation_mode 1$'; then
	pass "tsqd starts in observation mode on /etc/tsq/tsq.conf as shipped"
else
	fail "tsqd: $(head -c 400 "$t/log")"
fi
# A drop-in and a reload; then one with an error, refused whole.
echo "/${cg##*/} limit 8k tso 8k" >"$t/a.conf"
install -m 644 "$t/a.conf" /etc/tsq/tsq.conf.d/tsq-test-deb.conf
kill -HUP "$pid"
for _ in $(seq 50); do grep -q 'reread 1 policies' "$t/log" && break; sleep 0.1; done
if grep -q '^tsqd: reread 1 policies; observation mode: not applied' "$t/log"; then
	pass "reload: the conf.d drop-in is read ($(grep -m1 'reread 1' "$t/log"))"
else
	fail "reload: no 'reread 1 policies': $(tail -3 "$t/log" | tr '\n' ';')"
fi
echo "/${cg##*/}-b limit banana" >"$t/b.conf"
install -m 644 "$t/b.conf" /etc/tsq/tsq.conf.d/tsq-test-deb-b.conf
kill -HUP "$pid"
for _ in $(seq 50); do grep -q 'tsq-test-deb-b.conf:1:' "$t/log" && break; sleep 0.1; done
if grep -q '^tsqd: /etc/tsq/tsq.conf.d/tsq-test-deb-b.conf:1: .*observation mode: nothing is applied anyway' "$t/log" &&
   kill -0 "$pid" 2>/dev/null; then
	pass "reload: a bad drop-in is refused with FILE:LINE, tsqd runs on"
else
	fail "reload of a bad drop-in: $(tail -2 "$t/log" | tr '\n' ';')"
fi
rm -f /etc/tsq/tsq.conf.d/tsq-test-*.conf
kill "$pid"
wait "$pid" 2>/dev/null
pid=

dpkg --purge tsq >"$t/dpkg" 2>&1
rc=$?
snapshot >"$t/after"
left=$(comm -13 "$t/before" "$t/after" | while read -r f; do
	dpkg -S "$f" >/dev/null 2>&1 || echo "$f"; done)
gone=$(comm -23 "$t/before" "$t/after" | head -5)
if [ "$rc" = 0 ] && [ -z "$left" ] && [ -z "$gone" ]; then
	pass "dpkg --purge: the file list is as before the install ($(wc -l <"$t/after") files)"
else
	fail "dpkg --purge (exit $rc) left: $(tr '\n' ' ' <<<"$left") removed: $(tr '\n' ' ' <<<"$gone")"
fi
