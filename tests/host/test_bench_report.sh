#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/report.py on made-up raw data whose answers are known: targets
# at the worst repetition, not the median; goodput against stock paired
# per repetition, so a weak stock run shows; "n < 5" on verdicts from
# fewer repetitions; stock as a candidate in "when to use what"; the
# bulk-RTT pick under the same goodput filter; the run's pkt_max and
# CPUs in the bounds, or the stated assumption; per-part start and end,
# and a dirty tree's warning; ns per call of the established callback
# against the empty program's, judged at the median with the worst pair
# shown; a policy change's times, ns per socket and sockets visited;
# tsqd idle over the rows' window; the limit-us target at the worst
# repetition, the median's verdict beside it; zero cost with one
# kernel's rows warned about; KiB as the one unit of sizes.
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"
mkdir -p "$tmp/res/raw"

# Five repetitions of 8 cubic flows at 100mbit (one weak stock run, one
# budget run over its bound), five of 8 bbr (one slow budget run), three
# of one cubic flow without pkt_max or cpus, and a dev scenario where
# doing nothing has the lowest ping.
/usr/bin/python3 - "$tmp/res/raw" <<'EOF'
import json, sys
raw = sys.argv[1]
rows = []
def row(rate, cc, flows, config, rep, goodput, peak, ping, rtt, **kw):
    r = {"rate": rate, "delay_ms": 0, "cc": cc, "flows": flows, "config": config, "rep": rep,
         "peak": peak, "mean": peak // 2, "dev_peak": 30000, "dev_mean": 3000,
         "goodput_mbps": goodput, "ping_ms": [ping, ping * 2, ping * 3],
         "rr_ms": [ping, ping * 2, ping * 3], "flow_rtt_ms": rtt, "jain": 1.0,
         "cpu_busy_pct": 50.0, "sender_cpu_pct": 10.0, "throttles": None}
    r.update(kw)
    rows.append(r)
for rep in range(1, 6):
    pk = {"budget": 32768, "cpus": 2, "pkt_max": 8000}
    row("100mbit", "cubic", 8, "stock", rep, 60.0 if rep == 3 else 95.0, 900000, 50.0, 60.0, **pk)
    row("100mbit", "cubic", 8, "budget", rep, 93.0 if rep == 2 else 94.0,
        55000 if rep == 4 else 40000 + rep * 100, 4.0, 5.0, **pk)
    row("100mbit", "cubic", 8, "fq_codel", rep, 95.0, 700000, 1.0, 10.0, **pk)
    row("100mbit", "cubic", 8, "pacing", rep, 85.0, 120000, 2.0, 3.0, **pk)
    row("100mbit", "bbr", 8, "stock", rep, 95.0, 800000, 30.0, 30.0, **pk)
    row("100mbit", "bbr", 8, "budget", rep, 80.0 if rep == 5 else 94.0, 40000, 4.0, 5.0, **pk)
    row("dev", "cubic", 1, "stock", rep, 900.0, 3000000, 0.80, 5.0)
    row("dev", "cubic", 1, "budget", rep, 900.0, 100000, 1.00, 5.0)
    row("dev", "cubic", 1, "global", rep, 900.0, 60000, 0.85, 3.0)
    # limit-us at dev, 8 bbr: one slow repetition (500/700) and Jain
    # 0.95; delivered 0.97 of stock with Jain 0.85 in one repetition;
    # stock's own slowest repetition 560/700 of its fastest.
    row("dev", "bbr", 8, "stock", rep, 560.0 if rep == 4 else 700.0, 3000000, 3.0, 20.0)
    row("dev", "bbr", 8, "limit-us", rep, 500.0 if rep == 3 else 690.0, 300000, 3.0, 10.0, jain=0.95)
    row("dev", "bbr", 8, "limit-us-delivered", rep, 680.0, 300000, 3.0, 10.0,
        jain=0.85 if rep == 1 else 0.99)
for rep in range(1, 4):
    row("100mbit", "cubic", 1, "stock", rep, 90.0, 130000, 12.0, 16.0)
    row("100mbit", "cubic", 1, "budget", rep, 92.0, 40000, 2.0, 4.0)
with open(f"{raw}/scenarios.jsonl", "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in rows)
# The established callback: the policy program's median 1.4x the empty
# one's, its worst pair 2x; with 100 policies 1.6x in 3 samples. A policy
# change: 5 samples with 1 policy, one failed sample with 10,000.
policy_ns = [120.0, 130.0, 140.0, 150.0, 200.0]
with open(f"{raw}/overhead.jsonl", "w") as f:
    def percall(program, policies, prog, rep, ns):
        f.write(json.dumps({"kind": "percall", "program": program, "callback": "established",
                            "policies": policies, "prog": prog, "rep": rep,
                            "run_time_ns": ns * 2000, "run_cnt": 2000, "ns_per_call": ns}) + "\n")
    for rep in range(1, 6):
        percall("empty", 0, "pass_established", rep, 100.0)
        percall("fixed", 0, "fixed_established", rep, 130.0)
        percall("policy", 1, "policy_established", rep, policy_ns[rep - 1])
        if rep <= 3:
            percall("policy", 100, "policy_established", rep, 160.0)
        f.write(json.dumps({"kind": "tsqd", "policies": 1, "rep": rep, "seconds": 10,
                            "cpu_pct": 0.2 if rep == 2 else 0.03, "rss_kb": 3000}) + "\n")
        cnt = 12000 + 100 * rep
        f.write(json.dumps({"kind": "sync", "policies": 1, "rep": rep, "sockets": 10000, "rc": 0,
                            "wall_s": 0.1 + 0.01 * rep, "user_s": 0.02, "sys_s": 0.06 + 0.01 * rep,
                            "run_time_ns": cnt * (1500 + 100 * rep), "run_cnt": cnt,
                            "ns_per_socket": 1500.0 + 100 * rep}) + "\n")
    f.write(json.dumps({"kind": "sync", "policies": 10000, "rep": 1, "sockets": 10000, "rc": 1,
                        "wall_s": 0.01, "user_s": 0.0, "sys_s": 0.01, "run_time_ns": 0,
                        "run_cnt": 0, "ns_per_socket": None}) + "\n")
json.dump({"host_cpu": "x", "host_cpus": 2, "accel": "tcg", "guest_cpus": 2, "runs": {
    "scenarios": {"start": "2026-01-01T10:00:00Z", "end": "2026-01-01T11:05:00Z", "tsq": "abc1234-dirty",
                  "dirty": True, "reps": 5, "seconds": 6, "budget": "32k at 100mbit, 256k at dev"},
    "overhead": {"start": "2026-01-01T11:05:00Z", "end": "2026-01-01T11:09:00Z", "tsq": "abc1234",
                 "dirty": False, "reps": 5, "seconds": 6}}}, open(f"{raw}/meta.json", "w"))
EOF
if ! /usr/bin/python3 "$top/bench/report.py" --no-plot "$tmp/res" >"$tmp/log" 2>&1; then
	fail "report.py on made-up data: $(tail -1 "$tmp/log")"
	exit 0
fi
md=$tmp/res/results.md
n=$tmp/res/numbers.json
num() { jq -r --arg k "$1" '.[$k] // "none"' "$n"; }
target() { jq -c --arg t "$1" '.targets[] | select(.name == $t)' "$tmp/res/results.json"; }
# is DESCRIPTION EXPR [var=value...]: awk decides.
is() {
	local what=$1 expr=$2
	shift 2
	if awk "$@" "BEGIN { exit !($expr) }"; then pass "$what"; else fail "$what ($*)"; fi
}

t=$(target cubic8)
is "8 cubic: a peak over the bound in one of 5 runs fails the target, the median under it" \
	'met == "false" && med * 1024 < bound * 1024 && peak * 1024 == 55000' \
	-v met="$(jq .bytes_met <<<"$t")" -v med="$(jq .peak_median_kib <<<"$t")" \
	-v bound="$(jq .bound_kib <<<"$t")" -v peak="$(jq .peak_kib <<<"$t")"
is "8 cubic: the bound is 32 KiB + 2 CPUs x the run's pkt_max (48,768 B), its margin in KiB" \
	'b * 1024 == 48768 && m * 1024 == 48768 - 55000' \
	-v b="$(jq .bound_kib <<<"$t")" -v m="$(jq .margin_kib <<<"$t")"
is "8 cubic: goodput pairs per repetition: worst 93/95, the weak stock run as the max (94/60)" \
	'lo > 0.9789 && lo < 0.9790 && hi > 1.566 && hi < 1.567 && met == "true"' \
	-v lo="$(jq .goodput.min <<<"$t")" -v hi="$(jq .goodput.max <<<"$t")" -v met="$(jq .goodput_met <<<"$t")"
t=$(target bbr8)
is "8 bbr: one slow run in 5 (80/95) fails goodput >= 0.95, the median (0.99) does not" \
	'met == "false" && med > 0.95 && lo < 0.85' \
	-v met="$(jq .goodput_met <<<"$t")" -v med="$(jq .goodput.median <<<"$t")" -v lo="$(jq .goodput.min <<<"$t")"
t=$(target cubic1)
is "1 cubic without pkt_max: one packet is budget/4 + 1,280 B (9.25 KiB), one for one flow" \
	'p == 9.25 && b == 41.25' -v p="$(jq .pkt_kib <<<"$t")" -v b="$(jq .bound_kib <<<"$t")"
if grep -q 'have no `pkt_max`.*stated, not measured' "$md"; then
	pass "results.md states the packet size it assumed"
else
	fail "results.md does not state the assumed packet size"
fi
if grep -q '^| 1 cubic, budget 32k | 3 |.*(n=3 < 5) |$' "$md" &&
   grep '^| 8 cubic, budget 32k | 5 |' "$md" | grep -qv '< 5'; then
	pass "a target from 3 repetitions says n=3 < 5, one from 5 does not"
else
	fail "the repetition count on targets: $(grep '^| [18] cubic, budget' "$md" | tr '\n' ' ')"
fi
if grep -q '^| 100 cubic, budget 64k | 0 | not measured' "$md"; then
	pass "the 100-flow target without its load says not measured"
else
	fail "the 100-flow target: $(grep '^| 100 cubic' "$md")"
fi
lu() { grep "^| $1 | " "$md"; }
if lu limit-us | grep -q '^| limit-us | 5 | 0.71 (0.99) | 0.95 (0.95) | 0.80 | not met; met at the median |$' &&
   lu limit-us-delivered | grep -q '^| limit-us-delivered | 5 | 0.97 (0.97) | 0.85 (0.99) | 0.80 | not met; met at the median |$' &&
   [ "$(num target.limit-us.goodput.min)" = 0.714286 ] && [ "$(num target.limit-us-delivered.jain.min)" = 0.85 ]; then
	pass "limit-us target: goodput (500/700) or Jain (0.85) under 0.9 at the worst repetition fails it; stock's own spread (560/700) shown"
else
	fail "limit-us target rows: $(lu limit-us) $(lu limit-us-delivered)"
fi
choice() { jq -r --arg s "$1" ".choices[] | select(.scenario == \$s) | $2" "$tmp/res/results.json"; }
v=$(choice "dev +0 ms cubic x1" .verdict)
[ "$v" = "stock as good" ] && pass "when to use what: stock within 10 % of the best is \"stock as good\"" ||
	fail "when to use what, dev cubic x1: \"$v\", not \"stock as good\""
v=$(choice "100mbit +0 ms cubic x8" .lowest_flow_rtt.config)
[ "$v" = budget ] && pass "lowest bulk RTT: pacing's 3 ms at 0.89 of stock's goodput is not picked" ||
	fail "lowest bulk RTT picked $v, not budget (pacing keeps only 0.89 of stock)"
v=$(choice "100mbit +0 ms cubic x8" .alternative.config)
[ "$v" = fq_codel ] && pass "when to use what: the goodput filter leaves fq_codel as the alternative" ||
	fail "the best alternative is $v, not fq_codel"
is "ns per call: 5 samples of 2,000 calls; 1.4x empty's median, the worst pair 2x" \
	'n == 5 && c == 2000 && m == 140 && r == 1.4 && w == 2' \
	-v n="$(num overhead.percall.policy.1.policy_established.ns.n)" \
	-v c="$(num overhead.percall.policy.1.policy_established.calls)" \
	-v m="$(num overhead.percall.policy.1.policy_established.ns)" \
	-v r="$(num overhead.percall.policy.1.policy_established.vs_empty_median)" \
	-v w="$(num overhead.percall.policy.1.policy_established.vs_empty.max)"
is "numbers.json names the parts: fixed less empty 30 ns (0.3x), policy less empty 40 ns" \
	'f == 30 && r == 0.3 && p == 40' -v f="$(num overhead.part.fixed-0.less.empty-0.ns)" \
	-v r="$(num overhead.part.fixed-0.less.empty-0.vs_empty)" -v p="$(num overhead.part.policy-1.less.empty-0.ns)"
if grep -q '^| policy | 1 | policy_established | 5 | 2000 (2000-2000) | 140 (120-200) | 1.40x, worst pair 2.00x, met at the median |$' "$md"; then
	pass "per call: 1.5x judged at the median (1.4x met) though the worst pair (2x) is over it"
else
	fail "per-call policy row: $(grep '^| policy | 1 |' "$md")"
fi
if grep -q '^| policy | 100 | policy_established | 3 | .* | 1.60x, worst pair 1.60x, not met at the median (n=3 < 5) |$' "$md" &&
   grep -q '^| fixed | 0 | fixed_established | 5 | .* | 1.30x, worst pair 1.30x, reference |$' "$md"; then
	pass "per call: 1.6x is not met, from 3 samples says n=3 < 5; fixed is a reference, no verdict"
else
	fail "per-call rows: $(grep -E '^\| (policy \| 100|fixed) ' "$md" | tr '\n' ' ')"
fi
if grep -q 'callback, which runs once per connection: per sample, 1,000 loopback connections' "$md" &&
   grep -q 'target <= 1.5x, median) |$' "$md" &&
   ! grep -Eq 'unconstrained flow per sample|<= 2x' "$md"; then
	pass "per call: the established callback once per connection, target 1.5x at the median"
else
	fail "the per-call text: $(grep -E '^BPF run time|^\| program' "$md")"
fi
if grep -q '^| 1 | 5 | 130 (110-150) | 110 (90-130) | 1800 (1600-2000) | 12300 (12100-12500) |$' "$md" &&
   [ "$(num overhead.sync.1.visited)" = 12300 ] && [ "$(num overhead.sync.1.ns_per_socket.max)" = 2000 ]; then
	pass "policy change: wall and CPU ms, policy_sync ns per socket and sockets visited"
else
	fail "the sync row: $(grep '^| 1 | 5 |' "$md"), $(num overhead.sync.1.visited)"
fi
if grep -q '^A policy change with 10,000 established sockets' "$md" &&
   grep -q '^tsqctl set failed in 1 of 1 with 10000 policies' "$md"; then
	pass "policy change: the sockets held from the rows, a failed tsqctl set said"
else
	fail "the sync text: $(grep -E '^(A policy change|tsqctl set failed)' "$md")"
fi
if grep -q '^| tsqd, idle, 10 s windows |' "$md" && grep -q 'one tick is 0.1 % of a 10 s window' "$md" &&
   ! grep -q '30 s' "$md"; then
	pass "tsqd idle: the window's length and one tick's share of it from the rows"
else
	fail "tsqd idle window: $(grep -E '^\| tsqd|one tick' "$md")"
fi
if grep -q '^| 1 policies | 5 | 0.030 (0.030-0.200) not met |' "$md"; then
	pass "tsqd idle: 5 samples, the target judged at the worst (0.2 %)"
else
	fail "tsqd idle row: $(grep '^| 1 policies' "$md")"
fi
if grep -q '^| scenarios | 2026-01-01T10:00:00Z to 2026-01-01T11:05:00Z (65 min) | abc1234-dirty | 5 |$' "$md" &&
   [ "$(num time.scenarios.min)" = 65 ] && [ "$(num time.parts.min)" = 69 ]; then
	pass "each part's start and end, and minutes in numbers.json"
else
	fail "part times: $(grep '^| scenarios' "$md"), $(num time.scenarios.min), $(num time.parts.min)"
fi
if grep -q '^- scenarios: measured on a tree with uncommitted changes (BENCH_DIRTY=1)' "$md" &&
   ! grep -q '^- overhead: measured on a tree' "$md"; then
	pass "a part measured on a dirty tree is warned about, a clean one not"
else
	fail "the dirty-tree warning: $(grep '^- ' "$md" | tr '\n' ' ')"
fi
# Zero cost with one kernel's rows only (both boots filed as stock):
# said, not shown as a comparison.
mkdir -p "$tmp/zc/raw"
cp "$tmp/res/raw/"* "$tmp/zc/raw/"
for k in stock stock; do
	echo "{\"kind\":\"zerocost\",\"kernel\":\"$k\",\"boot\":1,\"rep\":1,\"goodput_mbps\":800,\"bytes\":6e8,\"busy_jiffies\":1100,\"cpu_busy_pct\":90}"
done >"$tmp/zc/raw/zerocost.jsonl"
if /usr/bin/python3 "$top/bench/report.py" --no-plot "$tmp/zc" >/dev/null 2>&1 &&
   grep -q '^- zerocost: rows for stock only: no comparison' "$tmp/zc/results.md" &&
   ! grep -q '^## Zero cost' "$tmp/zc/results.md"; then
	pass "zero cost with one kernel's rows only is warned about, not shown"
else
	fail "zero cost, one kernel: $(grep zerocost "$tmp/zc/results.md" | tr '\n' ' ')"
fi
if grep -q 'KiB' "$md" && ! grep -Eq '[0-9 ](KB|MB)\b' "$md" "$tmp/res/headline.md"; then
	pass "sizes in KiB only, in results.md and headline.md"
else
	fail "a size not in KiB: $(grep -Eho '.{20}[0-9 ](KB|MB)\b' "$md" "$tmp/res/headline.md" | head -3)"
fi
