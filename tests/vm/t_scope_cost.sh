#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsq-test: not-default a measurement of minutes under TCG, not a check of behaviour
# What a scoped sync saves: tsqctl set on /small (10 sockets) with 10,000
# sockets established in /bulk, scoped as tsqctl does it and as a full
# sync (the scope map's pin removed, as on pins an older tsq made),
# alternating, REPS (5) times each. Per run: policy_sync's run_cnt (every
# TCP socket of the netns the iterator visits), its run time in ns
# (kernel.bpf_stats_enabled), ns per visited socket, the sockets it
# synced (tsq_sync_count) and tsqctl's wall time. Checked: a scoped run
# syncs /small's 10 sockets alone, and its slowest run costs less than
# the fastest full one.
. "$(dirname "$0")/lib.sh"

cgr=/sys/fs/cgroup
BPFTOOL=$OUT/tools/bpftool
REPS=${REPS:-5}
NS=10 NB=10000
mkdir -p $cgr/small $cgr/bulk
ulimit -n $((NB * 2 + 1024))
"$TSQCTL" attach || fail "tsqctl attach"
"$TSQCTL" set /small limit 16000 || fail "tsqctl set /small"
"$TSQCTL" set /bulk budget 16m || fail "tsqctl set /bulk"

hold() {
	(echo $BASHPID >"$cgr/$1/cgroup.procs" &&
	 exec python3 "$TOP/bench/manysocks.py" "$2" sleep 3600) >/dev/null 2>&1 &
}
established() { ss -tnH state established | wc -l; }
prog_cost() {
	"$BPFTOOL" -j prog show name policy_sync |
		jq -r '"\(.run_time_ns // 0) \(.run_cnt // 0)"'
}
synced() {
	"$BPFTOOL" -j map dump pinned /sys/fs/bpf/tsq/sync_count |
		jq -r '[.[0] | (.formatted // .) | .values[].value.synced] | add'
}

hold small $NS
hold bulk $NB
t0=$(now_ms)
until [ "$(established)" -ge $((NS + NB)) ] || [ $(( $(now_ms) - t0 )) -gt 600000 ]; do
	sleep 2
done
log "established: $(established) after $(( $(now_ms) - t0 )) ms"

scoped_max=0 full_min=
for rep in $(seq "$REPS"); do
	for mode in scoped full; do
		if [ $mode = full ]; then
			rm -f /sys/fs/bpf/tsq/scope
		elif [ ! -e /sys/fs/bpf/tsq/scope ]; then
			"$BPFTOOL" map pin name tsq_sync_scope /sys/fs/bpf/tsq/scope ||
				fail "bpftool map pin tsq_sync_scope"
		fi
		lim=$((rep % 2 ? 24000 : 32000))
		sysctl -qw kernel.bpf_stats_enabled=1
		read -r a_ns a_cnt < <(prog_cost)
		s0=$(synced)
		w0=$(now_ms)
		"$TSQCTL" set /small limit $lim || fail "tsqctl set /small"
		w1=$(now_ms)
		read -r b_ns b_cnt < <(prog_cost)
		s1=$(synced)
		sysctl -qw kernel.bpf_stats_enabled=0
		ns=$((b_ns - a_ns)) cnt=$((b_cnt - a_cnt)) syn=$((s1 - s0))
		log "sync $mode rep $rep: run_cnt $cnt run_time_ns $ns ns_per_socket $((cnt ? ns / cnt : 0)) synced $syn tsqctl_ms $((w1 - w0))"
		if [ $mode = scoped ]; then
			check "scoped rep $rep: synced /small's sockets alone" 's == n' s=$syn n=$NS
			[ $ns -gt $scoped_max ] && scoped_max=$ns
		else
			check "full rep $rep: synced every socket" 's >= n' s=$syn n=$((NS + NB))
			[ -z "$full_min" ] || [ $ns -lt $full_min ] && full_min=$ns
		fi
	done
done
check "the slowest scoped sync costs less than the fastest full one" 's < f' \
	s=$scoped_max f="$full_min"
"$TSQCTL" reset
for g in small bulk; do
	while read -r p; do kill "$p" 2>/dev/null; done <"$cgr/$g/cgroup.procs"
done
check_dmesg scope_cost
finish
