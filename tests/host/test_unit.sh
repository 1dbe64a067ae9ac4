#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# libtsq unit tests (user/lib: sizes, policies, targets, tsq.conf, cgroup
# and unit resolution), built and run by `make unit`. The cgroup tests
# need root and a cgroup2 mount; without them they say SKIP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(make -C "$top" --no-print-directory unit 2>&1)
rc=$?
echo "$out"
# A build failure prints no FAIL line of its own.
if [ "$rc" != 0 ] && ! grep -q '^FAIL' <<<"$out"; then
	echo "FAIL: make unit: exit code $rc"
fi
exit "$rc"
