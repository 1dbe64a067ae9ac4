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

# What the flows below move without the hook, in this run.
flow stock 5 2
# These need traffic through the hook: flows that opted in.
optin || fail "hook_test optin"
flow bg 15 2 &
bg=$!
sleep 1
for t in update replace hup; do
	if "$HOOK_TEST" "$t"; then pass "link: $t"; else fail "link: $t"; fi
done
wait "$bg"
log "flows through the swaps: $(goodput bg) Mbit/s, stock $(goodput stock) Mbit/s"
check "flows survived the swaps: a quarter of stock's goodput or more" 'g >= s / 4 && s > 0' \
	g="$(goodput bg)" s="$(goodput stock)"
check_dmesg link
finish
