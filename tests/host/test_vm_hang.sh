#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/run-vm with a command that does not end: exit 124 at a 40 s
# timeout, and the guest's state in OUTDIR/hang, written half-way to it
# (30 s before a timeout over a minute; tests/vm/hang-report): the hung
# task with its wait channel and kernel stack, the sockets and the
# kernel's blocked tasks. CI keeps no VM to look into
# afterwards, so this is all a hang leaves.
top=$(cd "$(dirname "$0")/../.." && pwd)
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
kernel=${TSQ_KERNEL:-$top/.output/kernel/bzImage}
if [ ! -r "$kernel" ] || ! command -v qemu-system-x86_64 >/dev/null; then
	echo "# SKIP vm hang report: no test kernel ($kernel) or qemu"
	exit 0
fi
tmp=$(mktemp -d /var/tmp/tsq-hang.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# result TEXT CMD...: PASS: TEXT when CMD succeeds, else FAIL.
result() {
	local text=$1
	shift
	if "$@"; then pass "$text"; else fail "$text"; fi
}

start=$(date +%s)
"$top/tests/vm/run-vm" -k "$kernel" -t 40 -o "$tmp/out" -- \
	bash -c 'sleep 3600; echo never' >"$tmp/log" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
result "a command that does not end: exit 124 at the timeout (rc=$rc, $took s)" \
	test "$rc" = 124 -a "$took" -lt 90
hang=$tmp/out/hang
result "the guest wrote its state half-way to the timeout" \
	grep -qs '^no exit code after 20 s' "$hang"
result "the hung command is in it" grep -Eqs ' sleep 3600$' "$hang"
result "its kernel stack is in it" grep -Eqs '^== [0-9]+ \(sleep\) S$' "$hang"
result "the sockets are in it" grep -qs '^== ss -tinmoe$' "$hang"
result "the kernel's blocked tasks are in it" grep -qs 'sysrq: Show Blocked State' "$hang"
