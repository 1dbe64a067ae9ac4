#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/selftests/bpf/prog_tests/tcp_tsq_ops.c, as selftests/bpf would run
# it: link semantics, the kfunc filter, identity equals stock at 8 KB and
# 1 MB, per-socket opt-in and the attach privilege. Each subtest is one
# PASS or FAIL line here.
. "$(dirname "$0")/lib.sh"

"$OUT/test_progs" >"$TMP/test_progs.out" 2>&1
rc=$?
while IFS= read -r line; do
	case $line in
	"PASS: "*) pass "${line#PASS: }" ;;
	"FAIL: "*) fail "${line#FAIL: }" ;;
	*) echo "$line" ;;
	esac
done <"$TMP/test_progs.out"
grep -q '^tcp_tsq_ops: [0-9]* passed, 0 failed$' "$TMP/test_progs.out" && [ "$rc" = 0 ] ||
	fail "test_progs: exit $rc, $(tail -1 "$TMP/test_progs.out")"
check_dmesg selftests
finish
