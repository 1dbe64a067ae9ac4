#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/report.py on made-up raw data whose answers are known: targets
# at the worst repetition, not the median; goodput against stock paired
# per repetition, so a weak stock run shows; "n < 5" on verdicts from
# fewer repetitions; stock as a candidate in "when to use what"; the
# bulk-RTT pick under the same goodput filter; the run's pkt_max and
# CPUs in the bounds, or the stated assumption; per-part start and end,
# and a dirty tree's warning; several samples of ns per call and of
# tsqd idle; KiB as the one unit of sizes.
top=$(cd "$(dirname "$0")/../.." && pwd)
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
for rep in range(1, 4):
    row("100mbit", "cubic", 1, "stock", rep, 90.0, 130000, 12.0, 16.0)
    row("100mbit", "cubic", 1, "budget", rep, 92.0, 40000, 2.0, 4.0)
with open(f"{raw}/scenarios.jsonl", "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in rows)
with open(f"{raw}/overhead.jsonl", "w") as f:
    for rep in range(1, 6):
        for program, prog, ns in (("empty", "nop_established", 100.0),
                                  ("policy", "policy_established", 150.0 + 20 * rep)):
            f.write(json.dumps({"kind": "percall", "program": program, "policies": 0 if program == "empty" else 1,
                                "prog": prog, "run_time_ns": ns * 1000, "run_cnt": 1000,
                                "ns_per_call": ns, "rep": rep}) + "\n")
        f.write(json.dumps({"kind": "tsqd", "policies": 1, "rep": rep,
                            "cpu_pct": 0.2 if rep == 2 else 0.03, "rss_kb": 3000}) + "\n")
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
is "ns per call: 5 samples, against the empty program per repetition (worst 250/100)" \
	'n == 5 && w == 2.5 && m == 210' -v n="$(num overhead.percall.policy.1.policy_established.ns.n)" \
	-v w="$(num overhead.percall.policy.1.policy_established.vs_empty.max)" \
	-v m="$(num overhead.percall.policy.1.policy_established.ns)"
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
if grep -q 'KiB' "$md" && ! grep -Eq '[0-9 ](KB|MB)\b' "$md" "$tmp/res/headline.md"; then
	pass "sizes in KiB only, in results.md and headline.md"
else
	fail "a size not in KiB: $(grep -Eho '.{20}[0-9 ](KB|MB)\b' "$md" "$tmp/res/headline.md" | head -3)"
fi
