#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqctl top and doctor on the patched kernel (the host test covers a
# stock one): behind a 100 Mbit/s TBF on virtio-net, 4 cubic flows in
# /obs-bulk show bytes queued and a delay to TX completion, an idle
# /obs-idle zeros; doctor sees the hook.
. "$(dirname "$0")/lib.sh"

cgr=/sys/fs/cgroup
mkdir -p "$cgr/obs-bulk" "$cgr/obs-idle"
tbf_on 100mbit
iperf_server
# Long: under TCG, loading the programs alone takes seconds.
CG=$cgr/obs-bulk flow bulk 25 4 &
fpid=$!
sleep 4
start=$(date +%s)
f=$("$TSQCTL" -j top -i 2 -a)
bl=$(tc -s -j qdisc show dev "$TSQ_DEV" | jq '.[0].backlog')
log "tsqctl top took $(($(date +%s) - start)) s"
wait "$fpid"
bulk=$(jq -c '.cgroups[] | select(.cgroup == "/obs-bulk")' <<<"$f")
idle=$(jq -c '.cgroups[] | select(.cgroup == "/obs-idle")' <<<"$f")
log "top: completion $(jq -r .completion <<<"$f"), bulk $bulk, backlog just after: $bl"
# fentry/tcp_wfree where it attaches; this guest refuses it (EBUSY).
check "top: TX completion traced" 'c == 1' \
	c="$(jq '.completion | IN("fentry/tcp_wfree", "tp_btf/consume_skb") | if . then 1 else 0 end' <<<"$f")"
check "top: bulk has 4 flows' sockets" 'n >= 4' n="$(jq .established <<<"$bulk")"
check "top: bulk bytes queued" 'q > 10000' q="$(jq .queued_bytes <<<"$bulk")"
check "top: bulk delays counted, to completion and to the driver" 'd > 0 && x > 0' \
	d="$(jq .delay.count <<<"$bulk")" x="$(jq .qdisc_delay.count <<<"$bulk")"
check "top: idle cgroup all zeros" 's == 0 && q == 0 && d == 0' \
	s="$(jq .sockets <<<"$idle")" q="$(jq .queued_bytes <<<"$idle")" \
	d="$(jq .delay.count <<<"$idle")"
"$TSQCTL" -j doctor >"$TMP/doctor.json"
rc=$?
log "doctor: exit $rc, advice: $(jq -c .advice "$TMP/doctor.json")"
check "doctor: exit 0 or 1, hook present" 'r <= 1 && h == 1' r="$rc" \
	h="$(jq '.hook | if . then 1 else 0 end' "$TMP/doctor.json")"
check "doctor: lists $TSQ_DEV's driver" 'n == 1' \
	n="$(jq --arg d "$TSQ_DEV" '[.nics[] | select(.dev == $d and .driver == "virtio_net")] | length' "$TMP/doctor.json")"
rmdir "$cgr/obs-bulk" "$cgr/obs-idle" 2>/dev/null
check_dmesg observe
finish
