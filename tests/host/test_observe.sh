#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqctl top on this host's own kernel (no tcp_tsq_ops needed), natively:
# two netns joined by a veth, a 100 Mbit/s TBF on the sender's end, 1 and
# then 8 iperf3 flows in cgroup "bulk", a ping in "lat", a sleep in
# "idle". Checks the bulk cgroup's queued bytes against the TBF's backlog
# (within 20 %; tests/vm/qdisc_backlog samples it every 2 ms), its delay
# against the backlog's drain time, zeros for
# the other two, and, with the queue frozen by a 100 kbit/s TBF, every
# socket's numbers against ss -tmi.
set -u
. "$(dirname "$0")/netpair.sh"

if ! netpair_init tsqobs; then
	echo "# SKIP: test_observe: $why"
	exit 0
fi
command -v ping >/dev/null || { echo "# SKIP: test_observe: no ping"; exit 0; }
[ -x "$tsqctl" ] && [ -x "$out/qdisc_backlog" ] ||
	{ echo "FAIL: no $tsqctl or $out/qdisc_backlog (run make)"; exit 1; }
trap netpair_cleanup EXIT
# burst above 64 KB: TBF passes TSO packets whole, as a NIC's qdisc would.
if ! netpair_up bulk lat idle rcv ||
   ! tc -n "$snd" qdisc add dev "$va" root tbf rate 100mbit burst 128kb limit 4mb; then
	echo "FAIL: setup of netns, veth, TBF and cgroups"
	exit 1
fi
spawn rcv "$rcv" iperf3 -s -p 5201
spawn idle "$snd" sleep 600
spawn lat "$snd" ping -q -i 0.2 198.18.0.2
sleep 1

# Median of the numbers on stdin.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'
}

# within LO HI X: LO <= X <= HI
within() {
	awk -v lo="$1" -v hi="$2" -v x="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'
}

# pair N: each frame of $t/frames$N against the backlog samples of
# $t/backlog$N: queued / the one of the two samples around its socket
# walk that it is nearer (when they are under 10 ms apart). The walk
# fell between them, and the queue moves by a whole 64 KB packet every
# 5 ms: with one flow's one or two packets queued, their mean is off by
# half whenever a packet left in between. And mean delay / the mean
# backlog over its interval drained at 100 Mbit/s (Little's law). One
# line a frame in $t/ratios$N.
pair() {
	{
		jq -r --arg p "${base#"$cgmnt"}/bulk" '.time as $t | .interval_s as $i |
			.cgroups[] | select(.cgroup == $p) |
			"F \($t) \($i) \(.queued_bytes) \(.delay.mean_ns)"' "$t/frames$1"
		sed 's/^/B /' "$t/backlog$1"
	} | awk '$1 == "B" { bt[++nb] = $2; bv[nb] = $3; next }
	     { ft[++nf] = $2; fi[nf] = $3; fq[nf] = $4; fd[nf] = $5 }
	     END {
		for (k = 1; k <= nf; k++) {
			lo = 0; hi = 0; sum = 0; cnt = 0
			for (j = 1; j <= nb; j++) {
				if (bt[j] <= ft[k]) lo = j
				if (!hi && bt[j] >= ft[k]) hi = j
				if (bt[j] > ft[k] - fi[k] && bt[j] <= ft[k]) { sum += bv[j]; cnt++ }
			}
			if (!lo || !hi || !cnt || bt[hi] - bt[lo] > 0.01) continue
			b = bv[lo]
			if (bv[lo] > 0 && bv[hi] > 0 && fq[k] > 0 &&
			    (log(fq[k] / bv[hi]))^2 < (log(fq[k] / bv[lo]))^2)
				b = bv[hi]
			m = sum / cnt / 12.5e6 * 1e9
			printf "%s %s %.0f %d %.0f %d\n", (b > 0 ? fq[k] / b : 0),
				(m > 0 ? fd[k] / m : 0), b, fq[k], m, fd[k]
		}
	     }' >"$t/ratios$1"
}

# run_flows N: N bulk flows. tsqctl top streams 16 frames while
# qdisc_backlog samples the TBF every 2 ms; up to three rounds until 8
# frames can be paired (a loaded host delays the sampler).
run_flows() {
	local n=$1 f bulk q r dr round tp
	sleep 1		# the iperf3 server takes one test at a time
	spawn bulk "$snd" iperf3 -c 198.18.0.2 -p 5201 -t 30 -P "$n" -i 0
	local client=${pids[-1]}
	sleep 3
	: >"$t/frames$n"
	: >"$t/backlog$n"
	for round in 1 2 3; do
		topj -i 0.25 -n 16 -a >>"$t/frames$n" &
		tp=$!
		nsenter --net=/run/netns/"$snd" "$out/qdisc_backlog" "$va" 2000 "$tp" unix \
			>>"$t/backlog$n"
		wait "$tp"
		pair "$n"
		[ "$(wc -l <"$t/ratios$n")" -ge 8 ] && break
	done
	kill "$client" 2>/dev/null
	wait "$client" 2>/dev/null
	r=$(cut -d' ' -f1 "$t/ratios$n" | median)
	dr=$(cut -d' ' -f2 "$t/ratios$n" | median)
	local frames
	frames=$(wc -l <"$t/ratios$n")
	if [ "$frames" -ge 8 ] && within 0.8 1.2 "$r"; then
		echo "PASS: $n flow(s): bulk queued bytes / TBF backlog, median of $frames frames: $r" \
			"(last: backlog $(tail -1 "$t/ratios$n" | cut -d' ' -f3), queued $(tail -1 "$t/ratios$n" | cut -d' ' -f4))"
	else
		echo "FAIL: $n flow(s): bulk queued / TBF backlog median $r over $frames frames, want 0.8-1.2"
		sed 's/^/# ratio delay-ratio backlog queued /' "$t/ratios$n"
	fi
	if [ "$frames" -ge 8 ] && within 0.5 2 "$dr"; then
		echo "PASS: $n flow(s): bulk mean delay / (mean backlog / 100 Mbit/s), median: $dr" \
			"(last: $(tail -1 "$t/ratios$n" | awk '{ printf "%.1f ms vs %.1f ms", $6 / 1e6, $5 / 1e6 }'))"
	else
		echo "FAIL: $n flow(s): bulk mean delay / backlog drain time median $dr, want 0.5-2"
		sed 's/^/# ratio delay-ratio backlog queued drain-ns delay-ns /' "$t/ratios$n"
	fi
	f=$(sed -n 8p "$t/frames$n")
	bulk=$(cg "$f" bulk)
	if jq -e --argjson n "$n" '.established >= $n and .delay.count > 0 and
	    .qdisc_delay.count > 0 and .queued_max > 0 and .queued_p99 > 0' \
	    >/dev/null <<<"$bulk"; then
		echo "PASS: $n flow(s): bulk $(jq -c '{established, queued_bytes, queued_max,
			queued_p99, delay_p50_ns: .delay.p50_ns, qdisc_p50_ns: .qdisc_delay.p50_ns}' <<<"$bulk")"
	else
		echo "FAIL: $n flow(s): bulk entry: $bulk"
	fi
	for g in idle lat; do
		q=$(cg "$f" "$g")
		if jq -e '.sockets == 0 and .queued_bytes == 0 and .delay.count == 0 and
		    .unsent_bytes == 0 and .throttled == 0' >/dev/null <<<"$q"; then
			echo "PASS: $n flow(s): $g shows zeros"
		else
			echo "FAIL: $n flow(s): $g: '$q', want zeros"
		fi
	done
}

run_flows 1
run_flows 8

# Frozen queues: the flows start at 100 Mbit/s, then the TBF drops to
# 100 kbit/s, so its 64 KB packets leave one every five seconds. TCP adds
# nothing meanwhile (TSQ; no retransmit while the original is in the
# host's queue), so ss and tsqctl see the same bytes on each socket.
sleep 1
spawn bulk "$snd" iperf3 -c 198.18.0.2 -p 5201 -t 40 -P 3 -i 0
sleep 3
tc -n "$snd" qdisc change dev "$va" root tbf rate 100kbit burst 128kb limit 4mb
sleep 2
good=0
for try in 1 2 3 4 5 6; do
	nsenter --net=/run/netns/$snd ss -tmniH state established dst 198.18.0.2 >"$t/ss"
	topj -i 0.1 -s >"$t/top"
	bl=$(backlog)
	# ss: local port, t (sk_wmem_alloc), tb (sk_sndbuf); one line a socket
	# once -i's continuation lines are joined.
	awk '/^[0-9]/ { if (l) print l; l = $0; next } { l = l " " $0 } END { if (l) print l }' \
		"$t/ss" | sed -n 's/.*198\.18\.0\.1:\([0-9]*\) .*skmem:([^)]*,t\([0-9]*\),tb\([0-9]*\),.*/\1 \2 \3/p' \
		| sort -n >"$t/ss.cmp"
	jq -r '.socket_list[] | select(.dport == 5201 and .state == 1) |
		"\(.sport) \(.wmem_alloc) \(.sndbuf)"' "$t/top" | sort -n >"$t/top.cmp"
	n=$(wc -l <"$t/ss.cmp")
	q=$(awk '{ s += $2 } END { print s + 0 }' "$t/top.cmp")
	if [ "$n" -ge 4 ] && [ "$q" -gt 0 ] && cmp -s "$t/ss.cmp" "$t/top.cmp"; then
		good=1
		break
	fi
	sleep 1
done
if [ "$good" = 1 ]; then
	echo "PASS: frozen: $n sockets, port/wmem_alloc/sndbuf equal to ss's t/tb, $q bytes (try $try)"
else
	echo "FAIL: frozen: ss and tsqctl top differ (port t tb):"
	paste "$t/ss.cmp" "$t/top.cmp" | head -12 | sed 's/^/# /'
fi
bulk=$(cg "$(cat "$t/top")" bulk)
q=$(jq '.queued_bytes' <<<"$bulk")
if [ "${bl:-0}" -gt 0 ] && within 0.8 1.2 "$(awk -v q="$q" -v b="$bl" 'BEGIN { print q / b }')"; then
	echo "PASS: frozen: bulk queued $q vs TBF backlog $bl," \
		"$(jq '.throttled' <<<"$bulk") of $(jq '.established' <<<"$bulk") sockets TSQ-throttled"
else
	echo "FAIL: frozen: bulk $bulk vs TBF backlog $bl"
fi
