# SPDX-License-Identifier: GPL-2.0
# Sourced after lib.sh by the tests that time tsqd, whose latencies have
# no stock counterpart but doing the same by hand.
#
# ref_ms: a same-run yardstick, the median wall time in ms of 5 runs of
# `tsqctl -j show` (an exec, a map read, a walk of the tree) right now.
# A loaded machine slows tsqd and tsqctl alike. Timed with bash's clock,
# without an exec of its own.
ref_ms() {
	local i t0 v=()
	for i in 1 2 3 4 5; do
		t0=${EPOCHREALTIME/./}
		"$TSQCTL" -j show >/dev/null 2>&1
		v+=($(( (${EPOCHREALTIME/./} - t0) / 1000 )))
	done
	printf '%s\n' "${v[@]}" | sort -n | sed -n 3p
}
