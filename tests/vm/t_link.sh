#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Link semantics of tcp_tsq_ops: one instance at a time (EBUSY), atomic
# update under running flows, BPF_F_REPLACE with the wrong map refused,
# detach seen by the owner as EPOLLHUP, bad tables and unprivileged loads
# refused.
. "$(dirname "$0")/lib.sh"

iperf_server
for t in exclusive refuse unpriv; do
	if "$HOOK_TEST" "$t"; then pass "link: $t"; else fail "link: $t"; fi
done

# Swaps beside running flows; the hook's calls come from the loopback
# connections hook_test makes.
flow bg 15 2 &
bg=$!
sleep 1
for t in update replace hup; do
	if "$HOOK_TEST" "$t"; then pass "link: $t"; else fail "link: $t"; fi
done
wait "$bg"
check "flows survived the swaps" 'g > 10' g="$(goodput bg)"
check_dmesg link
finish
