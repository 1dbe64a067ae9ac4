#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The upstream pieces tsq builds on are active in the guest: virtio-net TX
# NAPI (napi_tx=Y, 5.3+), TSQ throttling a bulk flow on the virtio path, and
# the tcp_tsq_throttle tracepoint reporting it with the socket's cgroup.
. "$(dirname "$0")/lib.sh"

# Every vCPU run-vm asked for is online: without ACPI the guest kernel
# finds only the boot CPU in SeaBIOS's MP table.
check "every vCPU online" 'n == want' n="$(nproc)" \
	want="$(sed -n 's/.*tsq_cpus=\([0-9]*\).*/\1/p' /proc/cmdline)"
napi=$(cat /sys/module/virtio_net/parameters/napi_tx)
check "virtio_net napi_tx" 'napi == "Y"' napi="$napi"
# The kernel run-tests meant to boot (scripts/build-kernel.sh keeps its
# release), so that a log names the kernel its numbers come from.
log "kernel $(uname -r), series kernel/${TSQ_KVER:-6.12}"
[ -z "${TSQ_KREL:-}" ] ||
	check "booted the kernel built for ${TSQ_KVER:-6.12}" 'r == want' \
		r="$(uname -r)" want="$TSQ_KREL"
# 16 * 64 KB on 6.12; 4 MB since 9ea3bfa61b09, which 7.x carries.
lob=1048576
[ "${TSQ_KVER:-6.12}" = 6.12 ] || lob=4194304
check "tcp_limit_output_bytes default" "v == $lob" \
	v="$(sysctl -n net.ipv4.tcp_limit_output_bytes)"

tbf_on 100mbit
iperf_server
cg=/sys/fs/cgroup/tsq-seeds
mkdir -p "$cg"
cgid=$(stat -c %i "$cg")

ev=/sys/kernel/tracing/events/tcp/tcp_tsq_throttle
echo 0 >/sys/kernel/tracing/tracing_on
echo >/sys/kernel/tracing/trace
echo 1 >"$ev/enable"
echo 1 >/sys/kernel/tracing/tracing_on
# Start the flow from inside the cgroup: its socket belongs there.
sh -c "echo \$\$ >$cg/cgroup.procs; exec iperf3 -c $TSQ_PEER_IP -t 3 -C cubic -J" \
	>"$TMP/seeds.json"
echo 0 >"$ev/enable"

grep tcp_tsq_throttle /sys/kernel/tracing/trace >"$TMP/events" || :
n=$(wc -l <"$TMP/events")
ours=$(grep -c "cgroup_id=$cgid .*bpf=0" "$TMP/events" || :)
ports=$(grep -c "dest=$TSQ_PEER_IP:5201" "$TMP/events" || :)
log "sample event: $(head -1 "$TMP/events")"
check "TSQ throttles the bulk flow (tracepoint events in 3 s)" 'n > 100' n="$n"
check "events carry the flow's cgroup id" 'ours == n && n > 0' ours="$ours" n="$n"
check "events carry the flow's destination" 'ports == n && n > 0' ports="$ports" n="$n"
check "events carry wmem_alloc above the limit" 'ok > 0' ok="$(awk '{
	for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if (f["wmem_alloc"] + 0 > f["limit"] + 0) ok++ } END { print ok + 0 }' "$TMP/events")"

# bpftrace users see the same per cgroup.
if command -v bpftrace >/dev/null; then
	bpftrace -e 'tracepoint:tcp:tcp_tsq_throttle { @[args->cgroup_id] = count(); }' \
		>"$TMP/bt" 2>&1 &
	bt=$!
	for _ in $(seq 100); do grep -q Attaching "$TMP/bt" && break; sleep 0.2; done
	sh -c "echo \$\$ >$cg/cgroup.procs; exec iperf3 -c $TSQ_PEER_IP -t 2 -C cubic" >/dev/null
	kill -INT "$bt"
	wait "$bt"
	cnt=$(sed -n "s/^@\[$cgid\]: //p" "$TMP/bt")
	log "bpftrace: $(grep '^@' "$TMP/bt" | tr '\n' ' ')"
	check "bpftrace counts throttles by cgroup id" 'cnt > 0' cnt="${cnt:-0}"
else
	fail "bpftrace not installed"
fi
rmdir "$cg"
check_dmesg seeds
finish
