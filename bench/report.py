#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn bench/results/raw/*.jsonl and meta.json into results.md,
results.json, headline.md (the README's table), numbers.json (every
number by name, for tests/host/test_bench_numbers.sh) and latency.png.

Cells are medians with their min-max over the repetitions. A ratio
against stock pairs each repetition with stock's in the same repetition
(scenarios.sh runs every configuration once per repetition, in rotating
order), so a weak stock run shows as a wide spread, not a high median.
A target is met only if it is met at the worst repetition; a verdict
taken from medians says "median"; one from fewer than MIN_REPS
repetitions says so. Queue sizes are in KiB (1024 B) everywhere.

usage: report.py [--no-plot] [-o OUT] [RESULTS]   (RESULTS/raw is read)
"""
import argparse
import json
import sys
from pathlib import Path

from report_data import (ASSUMED_CPUS, CONFIGS, GOODPUT_KEEP, KIB, LIMIT_US_GOODPUT,
                         LIMIT_US_JAIN, MIN_REPS, PERCALL_CONNS, PERCALL_MAX_VS_EMPTY, RATE_MBIT,
                         RATE_ORDER, SHOWN, SKB_OVERHEAD, SKBS_PER_CPU, USER_HZ, choices,
                         default_budget, group, limit_us_targets, load, med, minutes, observe,
                         overhead, run_meta, scale, scenarios, size_label, targets, zerocost)


def fmt(s, digits=1, factor=1.0):
    if s is None:
        return "n/a"
    m, lo, hi = (s[k] * factor for k in ("median", "min", "max"))
    return f"{m:.{digits}f} ({lo:.{digits}f}-{hi:.{digits}f})"


def few(n):
    return f" (n={n} < {MIN_REPS})" if n is not None and n < MIN_REPS else ""


def verdict(ok, n=None, median=False):
    """met or not met; "median" when the medians decided, and the count
    when it is under MIN_REPS."""
    if ok is None:
        return "n/a"
    return ("met" if ok else "not met") + (" at the median" if median else "") + few(n)


def when(r):
    if r.get("start") and r.get("end"):
        return f"{r['start']} to {r['end']} ({minutes(r):.0f} min)"
    if r.get("start"):
        return f"from {r['start']}, not finished"
    return f"{r.get('date', '?')} (start and end not recorded)"


def measured(meta, part, rows=()):
    r = run_meta(meta, part, rows)
    return f"{when(r)}, tsq {r.get('tsq', '?')}"


def warnings(meta, parts):
    """Parts measured on a tree with uncommitted changes, or that did not
    finish: their numbers belong to no commit."""
    L = []
    for part, rows in parts.items():
        r = run_meta(meta, part, rows)
        revs = {x["tsq"] for x in rows if x.get("tsq")}
        revs |= {r[k] for k in ("tsq", "tsq_end") if r.get(k)}
        if r.get("dirty") or any(v.endswith("-dirty") for v in revs):
            how = " (BENCH_DIRTY=1)" if r.get("dirty") else ""
            L.append(f"- {part}: measured on a tree with uncommitted changes{how}, tsq "
                     f"{', '.join(sorted(revs))}: its numbers belong to no commit.")
        elif len(revs) > 1:
            L.append(f"- {part}: the tree changed while it ran ({', '.join(sorted(revs))}).")
        if r.get("start") and not r.get("end"):
            L.append(f"- {part}: started {r['start']} and did not finish; its rows are partial.")
    return L


# numbers.json: every number by a name the README can cite.

def numbers(meta, agg, tg, lu, ov, zc, sc, ob):
    N = {}

    def put(name, v, count=True):
        if isinstance(v, dict) and "median" in v:
            put(name, v["median"])
            put(f"{name}.min", v["min"])
            put(f"{name}.max", v["max"])
            if count:
                N[f"{name}.n"] = v["n"]
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            N[name] = float(f"{v:.6g}") if isinstance(v, float) else v
    runs = meta.get("runs", {})
    for part, r in runs.items():
        put(f"time.{part}.min", minutes(r))
        put(f"{part}.reps", r.get("reps"))
    if runs and all(minutes(r) is not None for r in runs.values()):
        put("time.parts.min", sum(minutes(r) for r in runs.values()))
    for a in agg:
        for m in SHOWN + ["goodput_vs_stock", "ping_p50_vs_stock"]:
            put(f"{a['name']}.{a['config']}.{m}", a[m], count=False)
        put(f"{a['name']}.{a['config']}.runs", a["runs"])
    for t in tg:
        for k in ("n", "peak_kib", "peak_median_kib", "pkt_kib", "pkts", "bound_kib", "margin_kib",
                  "goodput", "ping_p50_vs_stock"):
            put(f"target.{t['name']}.{k}", t.get(k))
    for t in lu:
        put(f"target.{t['config']}.n", t["n"])
        put(f"target.{t['config']}.goodput", t["goodput"])
        put(f"target.{t['config']}.jain", t["jain"])
        put(f"target.{t['config']}.stock_noise", t["stock_noise"])
    if ov:
        for k, v in ov.get("unconstrained", {}).items():
            put(f"overhead.{k}", v)
        for p in ov["percall"]:
            name = f"overhead.percall.{p['program']}.{p['policies']}.{p['prog']}"
            put(f"{name}.ns", p["ns_per_call"])
            put(f"{name}.calls", p["calls"])
            put(f"{name}.vs_empty", p.get("vs_empty"))
            put(f"{name}.vs_empty_median", p.get("vs_empty_median"))
        for p in ov.get("percall_parts", []):
            put(f"overhead.part.{p['row']}.less.{p['ref']}.ns", p["ns"])
            put(f"overhead.part.{p['row']}.less.{p['ref']}.vs_empty", p["vs_empty"])
        for r in ov.get("sync", []):
            for k in ("wall_ms", "cpu_ms", "ns_per_socket", "visited"):
                put(f"overhead.sync.{r['policies']}.{k}", r[k])
        for r in ov["tsqd"]:
            put(f"overhead.tsqd.{r['policies']}.cpu_pct", r["cpu_pct"])
            put(f"overhead.tsqd.{r['policies']}.rss_mib", r["rss_mib"])
    if zc:
        for k in ("stock", "patched"):
            for m, v in zc.get(k, {}).items():
                put(f"zerocost.{k}.{m}", v)
        for k in ("goodput_ratio", "cpu_per_byte_ratio", "goodput_noise", "cpu_noise"):
            put(f"zerocost.{k}", zc.get(k))
            put(f"zerocost.{k}_pct", zc[k] * 100 if k in zc else None)
    for cmd, r in (sc or {}).items():
        put(f"scale.{cmd}.ms", r["ms"])
        put(f"scale.{cmd}.policies", r["policies"])
    if ob:
        for k, v in ob.get("cost", {}).items():
            put(f"observe.{k}", v)
        for p, v in ob["progs"].items():
            put(f"observe.prog.{p}.ns", v)
        for c in ob["configs"]:
            for k, v in c.items():
                put(f"observe.{c['config']}.{c['flows']}.{k}", v)
    return N


# Markdown.

def plot(agg, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: no matplotlib, no plot (scripts/install-deps.sh bench)", file=sys.stderr)
        return False
    panels = sorted({(a["rate"], a["delay_ms"]) for a in agg},
                    key=lambda p: (RATE_ORDER.get(p[0], 9), p[1]))
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.5), squeeze=False)
    for ax, (rate, delay) in zip(axes[0], panels):
        loads = sorted({(a["cc"], a["flows"], a["budget"]) for a in agg
                        if (a["rate"], a["delay_ms"]) == (rate, delay)})
        width = 0.8 / len(CONFIGS)
        for i, cfg in enumerate(CONFIGS):
            xs, ys, lo, hi = [], [], [], []
            for j, ld in enumerate(loads):
                a = next((a for a in agg if (a["rate"], a["delay_ms"], a["cc"], a["flows"], a["budget"],
                                             a["config"]) == (rate, delay) + ld + (cfg,)), None)
                s = a and a["ping_p99_ms"]
                if not s:
                    continue
                xs.append(j + (i - len(CONFIGS) / 2 + 0.5) * width)
                ys.append(s["median"])
                lo.append(s["median"] - s["min"])
                hi.append(s["max"] - s["median"])
            ax.bar(xs, ys, width, yerr=[lo, hi], label=cfg, capsize=2)
        ax.set_xticks(range(len(loads)))
        ax.set_xticklabels([f"{cc} x{n}" for cc, n, _ in loads])
        ax.set_yscale("log")
        ax.set_title(f"{rate}, +{delay} ms return path")
        ax.set_ylabel("ping p99 (ms)")
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Ping p99 of /lat behind bulk flows in /bulk (median, min-max)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def runs_md(meta, parts):
    L = ["| part | measured | tsq | repetitions |", "|---|---|---|---|"]
    for part, rows in parts.items():
        r = run_meta(meta, part, rows)
        L.append(f"| {part} | {when(r)} | {r.get('tsq', '?')} | {r.get('reps', '?')} |")
    return "\n".join(L) + "\n"


def markdown(meta, agg, tg, lu, ov, zc, sc, ob, parts, has_plot):
    L = ["# tsq bench results\n"]
    scen = run_meta(meta, "scenarios")
    L.append(f"`make bench` on {meta.get('host_cpus', '?')} host CPUs ({meta.get('host_cpu', '?')}), "
             f"guest under QEMU `{meta.get('accel', '?')}`, {meta.get('guest_cpus', ASSUMED_CPUS)} vCPUs"
             f"{'' if meta.get('guest_cpus') else ' (run-vm default; not recorded)'}. Cells are median "
             "(min-max) over the repetitions. Queue sizes in KiB (1024 B) throughout, the unit of "
             "tsqctl's sizes; rates in Mbit/s (10^6 bit/s). Sender and receiver share the guest's "
             "vCPUs, so CPU is the guest's total.\n")
    L.append(runs_md(meta, parts))
    w = warnings(meta, parts)
    # zerocost() compares only when it has both kernels' rows.
    if zc and "goodput_ratio" not in zc:
        w.append(f"- zerocost: rows for {', '.join(sorted(map(str, zc)))} only: no "
                 "comparison, so no zero-cost section.")
    if w:
        L.append("**Warning:**\n\n" + "\n".join(w) + "\n")
    if agg:
        L.append(when_md(choices(agg)))
        L.append(targets_md(tg, meta))
        L.append(limit_us_md(lu))
        L.append(scenarios_md(agg, scen))
        if has_plot:
            L.append("![latency](latency.png)\n")
        L.append(anchors(agg))
    if ov:
        L.append(overhead_md(ov, meta))
    if zc and "goodput_ratio" in zc:
        L.append(zerocost_md(zc, meta))
    if sc:
        L.append(scale_md(sc))
    if ob:
        L.append(observe_md(ob))
    return "\n".join(L) + "\n"


def scenarios_md(agg, scen):
    L = ["## Scenarios\n",
         f"{scen.get('reps', '?')} repetitions of {scen.get('seconds', '?')} s per configuration, "
         "every configuration once per repetition in rotating order. Bulk flows in cgroup /bulk "
         "(or their own netns), ping every 10 ms and a TCP request/response probe in /lat. "
         "`100mbit`: a TBF on the sender's virtio NIC, a FIFO (or fq_codel) as its child; `dev`: "
         "no TBF, fq_codel at the root, BQL, the NIC and the guest's CPU the bottleneck. qdisc "
         "KiB: the root qdisc's backlog (wire bytes), sampled every 2 ms: peak over the whole run, "
         "slow start included (a bound holds from the first packet), mean after the first second; "
         "device KiB: BQL's inflight bytes, the same way. / stock: goodput against stock's in the "
         "same repetition. Flow RTT: iperf3's mean_rtt of the bulk flows (the sender's smoothed "
         "RTT, so what the bulk flows wait for). Jain: fairness of the bulk flows' bytes (1 = "
         "equal).\n"]
    cur = None
    for a in agg:
        if a["scenario"] != cur:
            cur = a["scenario"]
            L.append(f"\n### {cur}\n")
            L.append("| config | qdisc peak / mean KiB | device peak / mean KiB | goodput Mbit/s "
                     "| / stock | ping p50 / p99 ms | req/resp p99 ms | flow RTT ms | Jain "
                     "| guest CPU % | throttles |")
            L.append("|---|---|---|---|---|---|---|---|---|---|---|")
        L.append(f"| {a['config']} | {fmt(a['peak_kib'])} / {fmt(a['mean_kib'])} | "
                 f"{fmt(a['dev_peak_kib'])} / {fmt(a['dev_mean_kib'])} | "
                 f"{fmt(a['goodput_mbps'])} | {fmt(a['goodput_vs_stock'], 2)} | "
                 f"{fmt(a['ping_p50_ms'], 2)} / {fmt(a['ping_p99_ms'], 2)} | {fmt(a['rr_p99_ms'], 2)} | "
                 f"{fmt(a['flow_rtt_ms'], 2)} | {fmt(a['jain'], 2)} | "
                 f"{fmt(a['cpu_busy_pct'], 0)} | {fmt(a['throttles'], 0)} |")
    return "\n".join(L) + "\n"


def when_md(ch):
    L = ["## When to use what\n",
         "Per scenario, doing nothing (stock), tsq's best (limit, budget, limit-us, with or "
         "without fq_codel) and the best alternative (global sysctl, fq_codel, pacing, netns "
         f"sysctl): the lowest /lat ping p50 among the configurations that keep at least "
         f"{GOODPUT_KEEP} of stock's goodput, and the lowest bulk-flow RTT among the same. "
         "Decided on medians: the median ping p50, and the median of the per-repetition "
         "goodput pairs with stock (their min-max beside it). \"as good\": within 10 % of the "
         "best, or lower; \"stock as good\": doing nothing is.\n",
         "| scenario | stock: ping p50 ms | tsq's best: ping p50 ms, goodput / stock "
         "| best alternative: ping p50 ms, goodput / stock | verdict (medians) "
         "| lowest bulk-flow RTT |", "|---|---|---|---|---|---|"]

    def cell(c):
        return ("none keeps " + str(GOODPUT_KEEP) if not c else
                f"{c['config']}: {c['ping_p50_ms']:.2f}, goodput {fmt(c['goodput_vs_stock'], 2)}")
    for c in ch:
        lo = c["lowest_flow_rtt"]
        rtt = f"{lo['config']}: {lo['flow_rtt_ms']:.2f} ms" if lo else "n/a"
        L.append(f"| {c['scenario']} | {c['stock']['ping_p50_ms']:.2f} | {cell(c['tsq'])} | "
                 f"{cell(c['alternative'])} | {c['verdict']}{few(c['n'])} | {rtt} |")
    return "\n".join(L) + "\n"


def targets_md(tg, meta):
    L = ["## Budget targets\n",
         "Issue 23's bounds, at 100 Mbit/s with no added delay, each at its worst repetition: "
         "the qdisc's peak backlog at most the budget plus one packet per sending CPU "
         f"({SKBS_PER_CPU} skb per CPU; one packet for one flow), and goodput against stock's "
         "in the same repetition. Margin: bound minus peak at the repetition where it is "
         "smallest, in KiB like the rest.\n",
         "| target | n | peak qdisc KiB, worst (median) | bound KiB: budget + packets x one "
         "packet | margin KiB | goodput / stock, worst pair (median) | verdict |",
         "|---|---|---|---|---|---|---|"]
    notes = set()
    for t in tg:
        if not t["n"]:
            L.append(f"| {t['target']} | 0 | not measured: BENCH_LOADS has no "
                     f"{t['cc']}:{t['flows']}{'' if t['budget'] == default_budget(meta, '100mbit') else ':' + size_label(t['budget'])} "
                     "at 100mbit | | | | n/a |")
            continue
        g = t["goodput"]
        if t["goodput_min"] is None:
            gp = f"{g['min']:.2f} ({g['median']:.2f}), no target" if g else "n/a"
        else:
            gp = f"{g['min']:.2f} ({g['median']:.2f}) >= {t['goodput_min']}" if g else "no pairs"
        v = "bytes " + verdict(t["bytes_met"])
        if "goodput_met" in t:
            v += ", goodput " + verdict(t["goodput_met"])
        L.append(f"| {t['target']} | {t['n']} | {t['peak_kib']:.2f} ({t['peak_median_kib']:.2f}) | "
                 f"{t['budget'] / KIB:.0f} + {t['pkts']} x {t['pkt_kib']:.2f} = {t['bound_kib']:.2f} | "
                 f"{t['margin_kib']:.2f} | {gp} | {v}{few(t['n'])} |")
        notes |= set(t["assumed"])
    if "pkt_max" in notes:
        L.append(f"\nOne packet: these rows have no `pkt_max` (the run's largest skb), so it is "
                 f"taken as a quarter of the budget (the TSO size a budget gives its skbs) plus "
                 f"{SKB_OVERHEAD:,} B of skb overhead, stated, not measured.")
    if "cpus" in notes:
        L.append(f"\nSending CPUs: these rows have no `cpus`; taken as {ASSUMED_CPUS}, run-vm's "
                 "default.")
    return "\n".join(L) + "\n"


def limit_us_md(lu):
    L = ["## limit-us target\n",
         "Issue 23's: at the device bottleneck (`dev`), 8 bbr flows under `limit-us 1000` keep "
         f"at least {LIMIT_US_GOODPUT} of stock's goodput, paired per repetition, and a Jain "
         f"index of at least {LIMIT_US_JAIN}. Met if both hold at the worst repetition; "
         "the verdict from the medians is beside it. Stock's slowest over fastest: its "
         "own repetitions' spread, what one pair's ratio can be off by.\n",
         "| rate limit-us takes | n | goodput / stock, worst (median) | Jain, worst (median) | "
         "stock's slowest / fastest | verdict |",
         "|---|---|---|---|---|---|"]
    for t in lu:
        g, j = t["goodput"], t["jain"]
        if "met" not in t:
            L.append(f"| {t['config']} | {t['n']} | not measured: no dev bbr x8 rows with stock "
                     "and Jain | | | | n/a |")
            continue
        v = verdict(t["met"], t["n"])
        if not t["met"]:
            v += "; " + verdict(t["met_median"], median=True)
        L.append(f"| {t['config']} | {t['n']} | {g['min']:.2f} ({g['median']:.2f}) | "
                 f"{j['min']:.2f} ({j['median']:.2f}) | {t['stock_noise']:.2f} | {v} |")
    return "\n".join(L) + "\n"


def anchors(agg):
    """Beside TSQ's own numbers: queue as link time, and goodput."""
    L = ["## Beside the anchors\n",
         "46d3ceabd8d9 (TSQ, 2012): per bulk sender buffering under 8 ms at 100 Mbit "
         "(132 ms before), under 1 ms at 1 Gbit (50 ms before). f921a4a5bffa (2023): a "
         "too-small queue cost 81.5 vs 94.4 Mbit/s on 100 Mbit. Ours, 1 cubic flow, "
         "no added delay, peak backlog as link time:\n",
         "| rate | config | peak backlog ms | goodput Mbit/s |", "|---|---|---|---|"]
    for a in agg:
        if a["cc"] == "cubic" and a["flows"] == 1 and a["delay_ms"] == 0 and a["rate"] in RATE_MBIT:
            ms = KIB * 8 / (RATE_MBIT[a["rate"]] * 1e3)   # ms of link time per KiB
            L.append(f"| {a['rate']} | {a['config']} | {fmt(a['peak_kib'], 2, ms)} | {fmt(a['goodput_mbps'])} |")
    return "\n".join(L) + "\n"


def overhead_md(ov, meta):
    L = ["## Overhead of the hook\n", f"Measured {measured(meta, 'overhead')}.\n",
         "No BPF program runs per packet: tsq's policy program runs once per connection (the "
         "`established` callback of tcp_tsq_ops) and once per socket on a policy change (the "
         "policy_sync iterator).\n"]
    u = ov.get("unconstrained")
    if u:
        r = u["ratio"]
        L.append("Unconstrained virtio path, one cubic flow, policy program attached (flow's "
                 "cgroup with `budget 16m`: full path, never binding) vs detached, alternating, "
                 f"{r['n'] if r else 0} pairs: detached {fmt(u['detached_mbps'])} Mbit/s, attached "
                 f"{fmt(u['attached_mbps'])} Mbit/s; attached / detached per pair {fmt(r, 3)}, "
                 f"target >= 0.98 at the worst pair: {verdict(r and r['min'] >= 0.98, r and r['n'])}.\n")
    if ov["percall"]:
        L.append(percall_md(ov["percall"]))
    if ov.get("percall_parts"):
        L.append(percall_parts_md(ov["percall_parts"]))
    if ov.get("sync"):
        L.append(sync_md(ov["sync"]))
    if ov["tsqd"]:
        L.append(tsqd_md(ov))
    return "\n".join(L) + "\n"


def percall_md(pc):
    L = ["BPF run time per call (`kernel.bpf_stats_enabled`, run_time_ns / run_cnt) of the "
         f"`established` callback, which runs once per connection: per sample, {PERCALL_CONNS:,} "
         "loopback connections opened from /bulk; both ends are in /bulk, so two calls per "
         "connection (calls: run_cnt). empty sets nothing; fixed sets one fixed policy, no lookup "
         "(a reference, no target); policy is tsq's policy program with that many cgroup "
         f"policies. Target (issue 23): policy's median ns per call at most {PERCALL_MAX_VS_EMPTY}x "
         "empty's median, so its verdict says \"median\"; the worst pair beside it pairs samples "
         "by repetition number (rows are sampled one after the other, not interleaved).\n",
         "| program | cgroup policies | BPF program | n | calls | ns per call "
         f"| vs empty: median, worst pair (target <= {PERCALL_MAX_VS_EMPTY}x, median) |",
         "|---|---|---|---|---|---|---|"]
    for p in pc:
        if p["program"] == "empty":
            vs = "-"
        elif "vs_empty_median" not in p:
            vs = "n/a"
        else:
            ve = p["vs_empty"]
            vs = f"{p['vs_empty_median']:.2f}x" + (f", worst pair {ve['max']:.2f}x" if ve else "")
            if "target_met" in p:
                vs += f", {verdict(p['target_met'], p['vs_empty_n'], median=True)}"
            else:
                vs += ", reference"
        L.append(f"| {p['program']} | {p['policies']} | {p['prog']} | {p['n']} | "
                 f"{fmt(p['calls'], 0)} | {fmt(p['ns_per_call'], 0)} | {vs} |")
    return "\n".join(L) + "\n"


def percall_parts_md(parts):
    L = ["Where the policy program's time goes: each part is one row's median ns per call less "
         "another's (fixed-budget: tsq_fixed joining a group; policy-limit: one policy, a limit "
         "alone, no group). A difference of medians, not a measurement of its own: parts within "
         "the rows' spread are noise.\n",
         "| part | row less row | ns per call | x empty's median |",
         "|---|---|---|---|"]
    for p in parts:
        ve = f"{p['vs_empty']:.2f}x" if p["vs_empty"] is not None else "n/a"
        L.append(f"| {p['part']} | {p['row']} less {p['ref']} | {p['ns']:,.0f} | {ve} |")
    return "\n".join(L) + "\n"


def sync_md(sy):
    held = sorted({n for r in sy for n in r["sockets"]})
    L = [f"A policy change with {' or '.join(f'{n:,}' for n in held) or 'an unrecorded number of'} "
         "established sockets held in /bulk: `tsqctl set /bulk`, alternating two limits so each "
         "sample is a change. Wall and CPU time of tsqctl (user + system, the iterator's kernel "
         "time included); policy_sync's run_time_ns / run_cnt, and run_cnt, the sockets it visited: "
         "every TCP socket of the netns, listening and closing ones too, plus one call at the "
         "end of each walk.\n",
         "| cgroup policies | n | wall ms | CPU ms | policy_sync ns per socket | sockets visited |",
         "|---|---|---|---|---|---|"]
    for r in sy:
        L.append(f"| {r['policies']} | {r['n']} | {fmt(r['wall_ms'], 0)} | "
                 f"{fmt(r['cpu_ms'], 0)} | {fmt(r['ns_per_socket'], 0)} | {fmt(r['visited'], 0)} |")
    failed = [f"{r['failed']} of {r['n']} with {r['policies']} policies" for r in sy if r["failed"]]
    if failed:
        L.append(f"\ntsqctl set failed in {', '.join(failed)}: those samples timed a failure.")
    return "\n".join(L) + "\n"


def tsqd_md(ov):
    secs = ov["tsqd_seconds"]
    window = f"{' or '.join(f'{s:g}' for s in secs)} s windows" if secs else "window not recorded"
    L = [f"| tsqd, idle, {window} | n | CPU % (target <= 0.1, worst) "
         "| RSS MiB (target <= 10 with 10,000, worst) |", "|---|---|---|---|"]
    for r in ov["tsqd"]:
        c, m = r["cpu_pct"], r["rss_mib"]
        rss = f"{fmt(m)} {verdict(m['max'] <= 10, m['n'])}" if r["policies"] >= 10000 else fmt(m)
        L.append(f"| {r['policies']} policies | {c['n']} | {fmt(c, 3)} {verdict(c['max'] <= 0.1, c['n'])} | {rss} |")
    if secs:
        ticks = " and ".join(f"{t:.3g} % of a {s:g} s window" for s, t in zip(secs, ov["tsqd_tick_pct"]))
        L.append(f"\nCPU % counts whole clock ticks (1/{USER_HZ} s): one tick is {ticks}, "
                 "the resolution, so a 0.1 % target met at 0.1 is one tick.")
    return "\n".join(L) + "\n"


def zerocost_md(zc, meta):
    L = ["## Zero cost when off\n", f"Measured {measured(meta, 'zerocost')}.\n",
         "One unconstrained cubic flow per run, 2 interleaved boots of each kernel, "
         "same config; the patched kernel has nothing attached. Noise is the widest "
         "(max-min)/median of either kernel's own runs.\n",
         "| kernel | n | goodput Mbit/s | guest CPU jiffies per GB |", "|---|---|---|---|"]
    for k in ("stock", "patched"):
        L.append(f"| {k} 6.12 | {zc[k]['goodput_mbps']['n']} | {fmt(zc[k]['goodput_mbps'])} | "
                 f"{fmt(zc[k]['busy_jiffies_per_gb'], 0)} |")
    if max(zc["goodput_noise"], zc["cpu_noise"]) > 0.1:
        word = "inconclusive: the runs' own spread is over 10 %, more than any cost looked for"
    else:
        word = "within noise" if zc["within_noise"] else "outside noise"
    n = min(zc[k]["goodput_mbps"]["n"] for k in ("stock", "patched"))
    L.append(f"\nPatched / stock, medians: goodput {zc['goodput_ratio']:.3f} (noise "
             f"{zc['goodput_noise']:.3f}), CPU per byte {zc['cpu_per_byte_ratio']:.3f} (noise "
             f"{zc['cpu_noise']:.3f}): **{word}**{few(n)}.\n")
    return "\n".join(L) + "\n"


def scale_md(sc):
    r0 = next(iter(sc.values()))
    L = ["## tsqctl at scale, native\n",
         f"Measured {r0['date']}, tsq {r0['tsq']}, host kernel {r0['kernel']}. "
         "On the host, not in the VM: its kernel has no hook, so `scale_maps` creates tsq's "
         "maps alone, pins them and fills them for every cgroup (a policy and an entry in each "
         "statistics map: more than traffic makes). Wall time of `tsqctl -j CMD`, which walks "
         "the whole cgroup2 tree:\n",
         "| command | cgroups with a policy | cgroups walked | n | ms | all listed | under 1 s, worst |",
         "|---|---|---|---|---|---|---|"]
    for cmd, r in sc.items():
        L.append(f"| {cmd} | {r['policies']} | {r['host_cgroups']} | {r['ms']['n']} | {fmt(r['ms'], 0)} | "
                 f"{'yes' if r['all_listed'] else 'no'} | {verdict(r['ms']['max'] < 1000, r['ms']['n'])} |")
    return "\n".join(L) + "\n"


def observe_md(ob):
    L = ["## Per-cgroup delays seen by tsqctl top, native\n",
         f"Measured {ob['date']}, tsq {ob['tsq']}, host kernel {ob['kernel']} (no hook), "
         "`bench/observe.sh`: two netns joined by a veth, a 100 Mbit/s TBF on the "
         "sender's end, cubic flows in /bulk and a TCP request/response probe in /lat; "
         "one `tsqctl top` frame over the flows' middle. Delay: from TCP's transmit to "
         f"TX completion ({ob['configs'][0]['completion'] if ob['configs'] else '?'}), "
         "mean and p99 (upper bound of its log2 bucket); the probe's own p50/p99 beside it.\n"]
    if ob["configs"]:
        L.append("| flows | config | n | /bulk queued KiB | /bulk delay mean / p99 ms "
                 "| /lat delay mean / p99 ms | probe p50 / p99 ms |")
        L.append("|---|---|---|---|---|---|---|")
        for c in ob["configs"]:
            L.append(f"| {c['flows']} | {c['config']} | {c['runs']} | {fmt(c['bulk_queued_kib'], 0)} | "
                     f"{fmt(c['bulk_mean_ms'])} / {fmt(c['bulk_p99_ms'], 0)} | "
                     f"{fmt(c['lat_mean_ms'])} / {fmt(c['lat_p99_ms'], 0)} | "
                     f"{fmt(c['rr_p50_ms'])} / {fmt(c['rr_p99_ms'])} |")
    for cfg, why in ob["unavailable"].items():
        L.append(f"\n{cfg}: not measured, {why}.")
    if ob.get("cost"):
        c = ob["cost"]
        L.append(f"\nCost of `tsqctl top -i 1` with {c['sockets']} established sockets, "
                 f"{c['frame_pct']['n']} runs of {c['frames']} frames and {c['load_cpu_s']['n']} of "
                 f"one: {fmt(c['frame_pct'], 2)} % of one CPU per frame beyond loading (target 2 % "
                 f"at the worst run: {verdict(c['frame_pct']['max'] <= 2, c['frame_pct']['n'])}); "
                 f"loading takes {fmt(c['load_cpu_s'], 2)} s of CPU once; over {c['frames']} frames "
                 f"in all {fmt(c['total_pct'], 2)} %.")
    if ob["progs"]:
        n = min(v["n"] for v in ob["progs"].values())
        L.append(f"\nPer call, under 8 flows (kernel.bpf_stats_enabled): " + ", ".join(
            f"{p} {fmt(v, 0)} ns (n={v['n']})" for p, v in sorted(ob["progs"].items()))
            + (f"; fewer than {MIN_REPS} runs." if n < MIN_REPS else "."))
    return "\n".join(L) + "\n"


def headline(meta, agg):
    """The README's table: 100 Mbit/s, no added delay; 8 cubic, 8 bbr,
    1 cubic under the default budget."""
    scen = run_meta(meta, "scenarios")
    by = {(a["cc"], a["flows"], a["config"]): a for a in agg
          if a["rate"] == "100mbit" and a["delay_ms"] == 0 and a["budget"] == default_budget(meta, "100mbit")}
    L = [f"100 Mbit/s, no added delay; scenarios measured {measured(meta, 'scenarios')}: "
         f"{scen.get('reps', '?')} repetitions of {scen.get('seconds', '?')} s, medians; KiB = "
         "1024 B; goodput / stock: median (min-max) of the repetitions' pairs with stock.\n",
         "| flows in /bulk | config | peak qdisc KiB | /lat ping p50 / p99 ms "
         "| /lat req/resp p99 ms | bulk flow RTT ms | goodput / stock |",
         "|---|---|---|---|---|---|---|"]
    for cc, n in (("cubic", 8), ("bbr", 8), ("cubic", 1)):
        for cfg in CONFIGS:
            a = by.get((cc, n, cfg))
            if not a:
                continue
            rtt = med(a, "flow_rtt_ms")
            L.append(f"| {n} {cc} | {cfg} | {med(a, 'peak_kib'):.0f} | {med(a, 'ping_p50_ms'):.1f} / "
                     f"{med(a, 'ping_p99_ms'):.1f} | {med(a, 'rr_p99_ms'):.1f} | "
                     f"{'n/a' if rtt is None else f'{rtt:.1f}'} | {fmt(a['goodput_vs_stock'], 2)} |")
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description="bench/results/raw to results.md and the rest")
    ap.add_argument("results", nargs="?", default="bench/results")
    ap.add_argument("-o", "--out", help="write here instead of RESULTS")
    ap.add_argument("--no-plot", action="store_true", help="no latency.png")
    args = ap.parse_args()
    res = Path(args.results)
    out = Path(args.out) if args.out else res
    out.mkdir(parents=True, exist_ok=True)
    raw = res / "raw"
    meta = json.loads((raw / "meta.json").read_text()) if (raw / "meta.json").exists() else {}
    parts = {p: load(raw / f"{p}.jsonl") for p in ("scenarios", "overhead", "zerocost", "scale", "observe")}
    parts = {p: rows for p, rows in parts.items() if rows}
    groups = group(parts.get("scenarios", []), meta)
    agg = scenarios(groups, meta)
    tg = targets(groups, meta) if agg else []
    lu = limit_us_targets(groups, meta) if agg else []
    ov = overhead(parts["overhead"]) if "overhead" in parts else None
    zc = zerocost(parts.get("zerocost", []))
    sc = scale(parts.get("scale", []))
    ob = observe(parts.get("observe", []))
    has_plot = bool(agg) and not args.no_plot and plot(agg, out / "latency.png")
    (out / "results.json").write_text(json.dumps(
        {"meta": meta, "scenarios": agg, "targets": tg, "limit_us_targets": lu, "choices": choices(agg),
         "overhead": ov, "zerocost": zc, "scale": sc, "observe": ob},
        indent=1, default=list) + "\n")
    (out / "numbers.json").write_text(json.dumps(
        numbers(meta, agg, tg, lu, ov, zc, sc, ob), indent=1, sort_keys=True) + "\n")
    (out / "results.md").write_text(markdown(meta, agg, tg, lu, ov, zc, sc, ob, parts, has_plot))
    if agg:
        (out / "headline.md").write_text(headline(meta, agg))
    print(f"report: {out}/results.md")


if __name__ == "__main__":
    main()
