#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/kernel-sizes.sh, where the cover letters' tcp_sock sizes come
# from: on each kernel make check built, the series' tcp_sock is the
# stock one plus at most a pointer (struct tcp_tsq is allocated for the
# sockets with a policy), and agrees with the kernel's BTF (the script
# refuses when it does not); without a kernel, one line.
set -u

# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"

"$top/scripts/kernel-sizes.sh" 9.9 "$tmp/none.log" >"$tmp/none.out" 2>&1
rc=$?
if [ $rc != 0 ] && [ "$(wc -l <"$tmp/none.out")" = 1 ] && [ ! -e "$tmp/none.log" ]; then
	pass "no kernel 9.9: exit $rc, one line: $(cat "$tmp/none.out")"
else
	fail "no kernel 9.9: exit $rc, $(wc -l <"$tmp/none.out") lines, log $(test -e "$tmp/none.log" && echo written || echo none)"
fi

for kver in ${TSQ_KVERS:-6.12 7.3}; do
	k=$top/.output/kernel
	[ "$kver" = 6.12 ] || k=$top/.output/kernel-$kver
	if [ ! -s "$k/vmlinux" ]; then
		echo "# SKIP $kver: no kernel built at $k"
		continue
	fi
	"$top/scripts/kernel-sizes.sh" "$kver" "$tmp/$kver.log" >/dev/null 2>"$tmp/$kver.err"
	rc=$?
	if [ $rc = 3 ]; then
		echo "# SKIP $kver: $(cat "$tmp/$kver.err")"
		continue
	fi
	read -r stock series < <(sed -n 's/^struct tcp_sock: stock \([0-9]*\) B, series \([0-9]*\) B.*/\1 \2/p' "$tmp/$kver.log" 2>/dev/null)
	tsq=$(sed -n 's/^struct tcp_tsq (one per socket with a policy, allocated): \([0-9]*\) B$/\1/p' "$tmp/$kver.log" 2>/dev/null)
	btf=$(sed -n 's/^struct tcp_sock in vmlinux BTF: \([0-9]*\) B$/\1/p' "$tmp/$kver.log" 2>/dev/null)
	if [ $rc = 0 ] && [ -n "${stock:-}" ] && [ -n "$tsq" ] && [ "$series" = "$btf" ] &&
	   [ "$tsq" -gt 0 ] && [ $((series - stock)) -le 8 ] &&
	   head -1 "$tmp/$kver.log" | grep -q "^# kernel: Linux .* + kernel/$kver, series [0-9a-f]\{12\}$"; then
		pass "$kver: tcp_sock stock $stock B, series $series B (BTF $btf B, +$((series - stock)) B, at most a pointer), struct tcp_tsq $tsq B allocated"
	else
		fail "$kver: exit $rc, stock ${stock:-?} series ${series:-?} BTF ${btf:-?} tcp_tsq ${tsq:-?}: $(head -c 300 "$tmp/$kver.err")"
	fi
done
