#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 10,000 cgroups with policies, applied by tsqd from one file: tsqctl show
# and stats list them all, and removing the cgroups leaves nothing behind
# in the maps. The issue asks for answers within a second; under TCG the
# walks take about that (1.0 s and 1.2 s measured), so the times are
# reported here, not asserted; bench/scale.sh times them natively.
. "$(dirname "$0")/lib.sh"

n=10000
cgr=/sys/fs/cgroup
mkdir $cgr/many
t0=$(date +%s%N)
mkdir $(printf "$cgr/many/c%d " $(seq $n))
log "mkdir of $n cgroups: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
for i in $(seq $n); do echo "/many/c$i limit 16k"; done >"$TMP/tsq.conf"
"$OUT/tsqd" -c "$TMP/tsq.conf" -d "$TMP/none" -l 127.0.0.1:9731 -i 0 2>"$TMP/tsqd.log" &
tsqd=$!
for _ in $(seq 600); do grep -q 'loaded' "$TMP/tsqd.log" && break; sleep 0.1; done
log "tsqd: $(grep loaded "$TMP/tsqd.log")"

# ms CMD...: wall time of CMD, its output in $TMP/out.
ms() {
	local t0=$(date +%s%N)
	"$@" >"$TMP/out"
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
t=$(ms "$TSQCTL" -j show)
tall=$t
check "tsqctl show with $n policies: all listed" 'c == n' c="$(jq length "$TMP/out")" n=$n
log "tsqctl show with $n policies: $t ms (target 1 s: $([ "$t" -lt 1000 ] && echo met || echo 'not met under TCG'))"
t=$(ms "$TSQCTL" -j stats)
check "tsqctl stats with $n policies: all listed" 'c == n' c="$(jq length "$TMP/out")" n=$n
log "tsqctl stats with $n policies: $t ms (target 1 s: $([ "$t" -lt 1000 ] && echo met || echo 'not met under TCG'))"
t=$(ms "$TSQCTL" show /many/c5000)
# One target is one lookup, no walk of the 10,000: against show of all.
check "tsqctl show of one of them, in half the time of all of them or less" \
	'n == 1 && t <= a / 2' n="$(grep -c 'limit 16k' "$TMP/out")" t="$t" a="$tall"
rss=$(awk '/VmRSS/ { print $2 }' /proc/$tsqd/status)
log "tsqd RSS $rss kB with $n policies"
check "tsqd RSS with $n policies <= 10 MB" 'r > 0 && r <= 10240' r="$rss"

# Traffic in one of them creates entries; rmdir of all takes them along.
iperf_server
CG=$cgr/many/c1 flow one 2
entries() { "$OUT/tools/bpftool" -j map dump pinned "/sys/fs/bpf/tsq/$1" | jq length; }
check "a flow in /many/c1 made statistics" 'n >= 1' n="$(entries stats)"

# The DaemonSet's memory limit for tsqd is backed by this: its peak RSS
# with the 10,000 policies, their statistics and three scrapes of
# /metrics (each walks every socket and cgroup), at most a quarter of
# the limit in deploy/kubernetes/daemonset.yaml.
for _ in 1 2 3; do curl -sf http://127.0.0.1:9731/metrics >"$TMP/metrics"; done
check "/metrics with $n policies: each one listed" 'c >= n' \
	c="$(grep -c '^tsq_policy_limit_bytes{' "$TMP/metrics")" n=$n
hwm=$(awk '/^VmHWM/ { print $2 }' /proc/$tsqd/status)
lim=$(awk '/- name: tsqd$/ { c = 1 } c && /limits:/ { l = 1 } c && l && /memory:/ { print $2; exit }' \
	"$TOP/deploy/kubernetes/daemonset.yaml")
log "tsqd peak RSS $hwm KiB with $n policies and 3 scrapes of /metrics; the DaemonSet's limit $lim"
check "tsqd peak RSS <= a quarter of the DaemonSet's memory limit" \
	'h > 0 && h * 4 <= l * 1024' h="$hwm" l="${lim%Mi}"
kill $tsqd
wait $tsqd
rmdir $cgr/many/c* $cgr/many
for m in stats policy; do
	check "after rmdir of $n cgroups: $m map empty" 'n == 0' n="$(entries $m)"
done
check "after rmdir: show lists nothing" 'n == 0' n="$("$TSQCTL" -j show | jq length)"
"$TSQCTL" reset
check_dmesg scale
finish
