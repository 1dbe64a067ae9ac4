#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqd's start-up errors on this host, whose kernel has no tcp_tsq_ops:
# one line naming what is missing, exit 1 (2 for bad options), nothing
# pinned; tsqctl's exit status likewise (tsqctl(8): 1 when the kernel or
# the pinned state refuses, 2 for a wrong command line). The VM test
# (t_tsqd.sh) covers the daemon at work.
top=$(cd "$(dirname "$0")/../.." && pwd)
tsqd=${OUTPUT:-$top/.output}/tsqd
tsqctl=${OUTPUT:-$top/.output}/tsqctl
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# expect NAME RC REGEX CMD...: exit code, one line on stderr matching REGEX.
expect() {
	local name=$1 want=$2 re=$3 rc n
	shift 3
	"$@" >"$t/out" 2>"$t/err"
	rc=$?
	n=$(wc -l <"$t/err")
	if [ "$rc" = "$want" ] && [ "$n" = 1 ] && grep -qE "$re" "$t/err"; then
		echo "PASS: $name (exit $rc: $(cat "$t/err"))"
	else
		echo "FAIL: $name: exit $rc (want $want), $n lines: $(head -c 300 "$t/err")"
	fi
}

# A private mount namespace with bpffs, so the hook check is what fails.
expect "no hook in this kernel" 1 '^tsqd: this kernel has no tcp_tsq_ops hook' \
	unshare -m sh -c 'mount -t bpf bpf /sys/fs/bpf && exec "$0"' "$tsqd"
expect "no bpffs" 1 '^tsqd: no bpffs at /sys/fs/bpf' \
	unshare -m sh -c 'umount /sys/fs/bpf 2>/dev/null; exec "$0"' "$tsqd"
expect "not privileged" 1 '^tsqd: needs CAP_BPF and CAP_PERFMON' \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tsqd"
expect "bad --listen address" 2 'bad IPv4 address' "$tsqd" --listen 1.2.3:80
expect "bad --listen port" 2 'bad port' "$tsqd" --listen 127.0.0.1:70000
expect "bad --log-interval" 2 'want 0 to 86400' "$tsqd" --log-interval -5
expect "stray argument" 2 'unexpected argument' "$tsqd" extra
expect "tsqctl attach without the hook: refused, exit 1" 1 \
	'^tsqctl: this kernel has no tcp_tsq_ops hook' "$tsqctl" attach
expect "tsqctl attach with an argument: exit 2" 2 'attach takes no arguments' \
	"$tsqctl" attach x
expect "tsqctl unknown verb: exit 2" 2 '^tsqctl: What is "frob"\?' "$tsqctl" frob
"$tsqd" --help >"$t/out" 2>&1
if [ $? = 0 ] && grep -q -- '--config' "$t/out"; then
	echo "PASS: --help exits 0 and lists the options"
else
	echo "FAIL: --help"
fi
if [ ! -e /sys/fs/bpf/tsq ]; then
	echo "PASS: nothing pinned by the failed starts"
else
	echo "FAIL: /sys/fs/bpf/tsq exists after failed starts"
fi
if [ ! /run/tsq/tsqd.pid -nt "$t" ]; then
	echo "PASS: no pid file written by the failed starts"
else
	echo "FAIL: /run/tsq/tsqd.pid written by a failed start"
fi
