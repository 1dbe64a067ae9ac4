#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Man pages render without a groff warning.
top=$(cd "$(dirname "$0")/../.." && pwd)
for m in "$top"/man/*.[0-9]; do
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)
	if [ -z "$warn" ] && LC_ALL=C.UTF-8 man -l "$m" 2>/dev/null | grep -q '^NAME'; then
		echo "PASS: man ${m##*/} renders"
	else
		echo "FAIL: man ${m##*/}: ${warn:-no NAME section}"
	fi
done
