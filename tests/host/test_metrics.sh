#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqd's /metrics in observation mode, natively on this host, with TCP
# flows over a veth pair:
# - its delays are Prometheus histograms (_bucket, _sum, _count) that no
#   reader resets: 60 scrapes 50 ms apart, every 20th as a second
#   scraper would make it, see _count never fall, and the second
#   scraper's grow; promtool takes the text;
# - a removed cgroup's delay entry leaves tsqd's map at the next scrape;
# - with the map filled to its 16,384 entries (ids of no cgroup), an skb
#   that finds no room is counted (tsq_obs_delay_map_full_total), the
#   next scrape drops the dead entries, and a new cgroup's flow then
#   gets its delays.
set -u
. "$(dirname "$0")/netpair.sh"

netpair_start test_metrics tsqmet promtool python3 curl
bpftool=$out/tools/bpftool
trap netpair_cleanup EXIT
if ! netpair_up rcv bulk gone late; then
	echo "FAIL: setup of netns, veth and cgroups"
	exit 1
fi
for p in 5501 5502 5503; do spawn rcv "$rcv" iperf3 -s -p $p; done
sleep 1
spawn bulk "$snd" iperf3 -c 198.18.0.2 -p 5501 -t 30 -b 50M
spawn gone "$snd" iperf3 -c 198.18.0.2 -p 5502 -t 2 -b 20M
gone_pid=${pids[-1]}
netpair_tsqd || echo "FAIL: tsqd did not start: $(head -c 300 "$t/tsqd.log")"
tsqd=${pids[-1]}
sleep 1
rel=${base#"$cgmnt"}

get() { netpair_get /metrics; }
# value FILE NAME CGROUP: the sample NAME{cgroup="CGROUP"}, or -1.
value() {
	awk -v k="$2{cgroup=\"$3\"}" '$1 == k { v = $2 } END { print (v == "" ? -1 : v) }' "$1"
}

# Item: nobody resets the counters. One scraper every 50 ms; every 20th
# scrape is the other scraper's.
: >"$t/all"
: >"$t/other"
for i in $(seq 60); do
	get >"$t/m"
	c=$(value "$t/m" tsq_obs_delay_seconds_count "$rel/bulk")
	echo "$c" >>"$t/all"
	[ $((i % 20)) = 0 ] && echo "$c" >>"$t/other" && cp "$t/m" "$t/other.$i"
	sleep 0.05
done
if awk 'NR > 1 && $1 < prev { bad++ } { prev = $1 } $1 < 1 { bad++ } END { exit bad }' "$t/all"; then
	echo "PASS: /metrics: _count of /bulk never fell over 60 scrapes ($(head -1 "$t/all") to $(tail -1 "$t/all"))"
else
	echo "FAIL: /metrics: _count of /bulk: $(tr '\n' ' ' <"$t/all" | head -c 300)"
fi
if awk 'NR > 1 && $1 <= prev { bad++ } { prev = $1 } END { exit bad || NR != 3 }' "$t/other"; then
	echo "PASS: /metrics: the other scraper's _count grew: $(tr '\n' ' ' <"$t/other")"
else
	echo "FAIL: /metrics: the other scraper's _count: $(tr '\n' ' ' <"$t/other")"
fi
python3 - "$t/other.60" "$rel/bulk" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
cg = sys.argv[2]
for h in ("tsq_obs_delay_seconds", "tsq_obs_qdisc_delay_seconds"):
    typed = f"# TYPE {h} histogram" in text
    b = [(m.group(1), int(m.group(2))) for m in
         re.finditer(rf'^{h}_bucket\{{cgroup="{re.escape(cg)}",le="([^"]+)"\}} (\d+)$', text, re.M)]
    cnt = re.search(rf'^{h}_count\{{cgroup="{re.escape(cg)}"\}} (\d+)$', text, re.M)
    sm = re.search(rf'^{h}_sum\{{cgroup="{re.escape(cg)}"\}} ([0-9.e+-]+)$', text, re.M)
    vals = [v for _, v in b]
    ok = (typed and cnt and sm and len(b) > 2 and b[-1][0] == "+Inf" and
          vals == sorted(vals) and vals[-1] == int(cnt.group(1)) and float(sm.group(1)) > 0)
    print(f"PASS: {h}: a histogram, {len(b)} buckets, +Inf = _count = {vals[-1]}" if ok else
          f"FAIL: {h}: typed {typed}, {len(b)} buckets, count {cnt and cnt.group(1)}")
PY
if promtool check metrics <"$t/other.60" >"$t/promtool" 2>&1; then
	echo "PASS: promtool check metrics"
else
	echo "FAIL: promtool check metrics: $(head -c 300 "$t/promtool")"
fi

# tsqd's delay map: the per-CPU hash among its fds.
map=$(for f in /proc/$tsqd/fdinfo/*; do
	awk '/^map_type:/ { t = $2 } /^map_id:/ { i = $2 } /^max_entries:/ { m = $2 }
	     END { if (t == 5 && m == 16384) print i }' "$f"
      done | head -1)
keys() {
	"$bpftool" map dump id "$map" -j 2>/dev/null | python3 -c '
import json, sys
for e in json.load(sys.stdin):
    print(int.from_bytes(bytes(int(b, 16) for b in e["key"]), "little"))'
}
gone_id=$(stat -c %i "$base/gone")
wait "$gone_pid" 2>/dev/null
had=$(keys | grep -cx "$gone_id")
rmdir "$base/gone"
get >"$t/m"
left=$(keys | grep -cx "$gone_id")
if [ -n "$map" ] && [ "$had" = 1 ] && [ "$left" = 0 ] &&
   [ "$(value "$t/m" tsq_obs_delay_seconds_count "$rel/gone")" = -1 ]; then
	echo "PASS: a removed cgroup's delay entry is dropped at the next scrape (map $map)"
else
	echo "FAIL: removed cgroup: map '$map', its entry before $had, after $left"
fi

# Full: every free entry taken by ids of no cgroup.
fill=$("$out/mapfill" "$map" 2>&1)
spawn late "$snd" iperf3 -c 198.18.0.2 -p 5503 -t 20 -b 20M
sleep 2
get >"$t/m1"
full=$(awk '$1 == "tsq_obs_delay_map_full_total" { print $2 }' "$t/m1")
sleep 2
get >"$t/m2"
late=$(value "$t/m2" tsq_obs_delay_seconds_count "$rel/late")
if [[ $fill == *full* ]] && [ "${full:-0}" -gt 0 ]; then
	echo "PASS: map filled ($fill): skbs without room counted, tsq_obs_delay_map_full_total $full"
else
	echo "FAIL: map full: $fill, tsq_obs_delay_map_full_total ${full:-none}"
fi
if [ "${late%.*}" -gt 0 ] 2>/dev/null; then
	echo "PASS: after the scrape dropped dead entries, a new cgroup's flow has delays (_count $late)"
else
	echo "FAIL: a new cgroup after the map filled: _count $late"
fi
exit 0
