#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsq-test: not-default a measurement of minutes under TCG (issue 35 items 2 and 5), not a check of behaviour
# tsq-test: timeout 1500
# What a TCP segment costs with the series' key off, with it on and no
# policy, with a limit and with a budget (neither binding): CPU time per
# segment sent, one boot, on the virtio path and on loopback, 1 and 8
# flows, REPS rounds of SECS-second runs.
#  - Each round is one interleaved set: tsq detached and the key off
#    (at most a second after the last hook or policy went), then tsq
#    attached (key on) with no policy, limit 16m and budget 16m on the
#    flows' cgroup, in turns.
# Per run: busy CPU time of both vCPUs (/proc/stat, 10-ms ticks) over
# the root netns' TCP OutSegs (MSS-sized segments; on loopback the
# receiver's ACKs too, alike in every mode), and the bytes iperf3 sent.
# Per cell and mode: the median of its runs and their spread, and the
# median of the round's ratios to the key-off run of the same round,
# with their least and greatest: the noise. Checked: the key's state
# in each phase (read with bpftrace), every run moved data, dmesg. The
# target (key on within the noise of key off) is printed, not checked:
# a measurement of TCG.
. "$(dirname "$0")/lib.sh"

cgr=/sys/fs/cgroup
REPS=${REPS:-10}
SECS=${SECS:-4}
mkdir -p $cgr/bulk
iperf_server
iperf3 -s -D -B 127.0.0.1 -p 5301 --logfile "$TMP/iperf3-lo.log"
sleep 0.3

# key_state: tcp_tsq_enabled's enable count, as the kernel keeps it.
key_state() {
	bpftrace -e 'BEGIN { printf("key %d\n", *(int32 *)kaddr("tcp_tsq_enabled")); exit(); }' \
		2>/dev/null | awk '$1 == "key" { print $2 }'
}
outsegs() { awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c["OutSegs"] }' /proc/net/snmp; }
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }

# run MODE PATH FLOWS REP: one measurement, a line in $TMP/runs:
# "mode path flows rep ns_per_seg bytes".
run() {
	local mode=$1 path=$2 flows=$3 rep=$4 b0 b1 s0 s1 bytes
	local args=(-c "$TSQ_PEER_IP")
	[ "$path" = virtio ] || args=(-c 127.0.0.1 -p 5301)
	b0=$(busy) s0=$(outsegs)
	(echo $BASHPID >$cgr/bulk/cgroup.procs &&
	 exec iperf3 "${args[@]}" -t "$SECS" -P "$flows" -J) >"$TMP/run.json" 2>/dev/null
	b1=$(busy) s1=$(outsegs)
	bytes=$(jq -r '.end.sum_sent.bytes // 0' "$TMP/run.json" 2>/dev/null)
	echo "$mode $path $flows $rep $(awk -v b=$((b1 - b0)) -v s=$((s1 - s0)) \
		'BEGIN { printf "%.0f", (s > 0 ? b * 1e7 / s : 0) }') ${bytes:-0}" >>"$TMP/runs"
}

cells() { for path in virtio loopback; do for flows in 1 8; do echo "$path $flows"; done; done; }

key_off() { [ "$(key_state)" = 0 ]; }

k=$(key_state)
check "before any attach: the key is off" 'k == 0' k="${k:-none}"
for rep in $(seq "$REPS"); do
	cells | while read -r path flows; do run off "$path" "$flows" "$rep"; done
	"$TSQCTL" attach || fail "tsqctl attach"
	k=$(key_state)
	check "round $rep: tsq attached, the key is on" 'k > 0' k="${k:-none}"
	for mode in on limit budget; do
		"$TSQCTL" unset /bulk 2>/dev/null
		case $mode in
		limit) "$TSQCTL" set /bulk limit 16m ;;
		budget) "$TSQCTL" set /bulk budget 16m ;;
		esac
		cells | while read -r path flows; do run "$mode" "$path" "$flows" "$rep"; done
	done
	"$TSQCTL" reset || fail "tsqctl reset"
	ms=$(until_ok 10000 key_off)
	check "round $rep: the key off after the detach" 'ms <= 10000' ms="$ms"
done

check "every run moved data" 'n == 0' \
	n="$(awk '$6 <= 0' "$TMP/runs" | wc -l)"
while read -r path flows; do
	for mode in off on limit budget; do
		awk -v m=$mode -v p="$path" -v f="$flows" '$1 == m && $2 == p && $3 == f { print $5 }' \
			"$TMP/runs" | sort -n >"$TMP/cell"
		# The round's ratio to its own key-off run.
		awk -v m=$mode -v p="$path" -v f="$flows" '$2 == p && $3 == f { v[$1, $4] = $5 }
			END { for (k in v) { split(k, a, SUBSEP); if (a[1] == m && v["off", a[2]] > 0)
				printf "%.4f\n", v[k] / v["off", a[2]] } }' "$TMP/runs" | sort -n >"$TMP/ratios"
		mbps=$(awk -v m=$mode -v p="$path" -v f="$flows" -v s="$SECS" \
			'$1 == m && $2 == p && $3 == f { t += $6; n++ } END { printf "%.0f", n ? t * 8 / s / n / 1e6 : 0 }' "$TMP/runs")
		log "$path, $flows flows, key $mode: $(tr '\n' ' ' <"$TMP/cell")ns/segment," \
			"median $(median <"$TMP/cell"), spread $(awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.1f", a ? 100 * (b - a) / a : 0 }' "$TMP/cell") %;" \
			"x key off by round: median $(median <"$TMP/ratios"), $(head -1 "$TMP/ratios")-$(tail -1 "$TMP/ratios");" \
			"mean $mbps Mbit/s sent"
	done
done < <(cells)
check_dmesg key_cost
finish
