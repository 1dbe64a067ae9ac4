#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqctl's exit status on this host, whose kernel has no tcp_tsq_ops:
# 1 when the system refuses (tsqctl(8): "the kernel or the pinned state"),
# 2 for a wrong command line, one line on stderr either way.
top=$(cd "$(dirname "$0")/../.." && pwd)
tsqctl=${OUTPUT:-$top/.output}/tsqctl
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# expect NAME RC REGEX CMD...
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

expect "attach without the hook: refused, exit 1" 1 \
	'^tsqctl: this kernel has no tcp_tsq_ops hook' "$tsqctl" attach
expect "attach with an argument: exit 2" 2 'attach takes no arguments' "$tsqctl" attach x
expect "unknown verb: exit 2" 2 '^tsqctl: What is "frob"\?' "$tsqctl" frob
