# SPDX-License-Identifier: GPL-2.0
"""What bench/results/raw says, for bench/report.py: the repetitions of
each measurement as spreads (median, min, max, n), ratios against stock
as per-repetition pairs, and issue 23's targets at their worst
repetition, or at the median where the issue says so (ns per call).
Sizes in KiB (1024 B)."""
import json
import statistics
from collections import defaultdict
from datetime import datetime

MIN_REPS = 5
KIB = 1024
TSQ_CONFIGS = ["limit", "budget", "limit-us", "fq_codel+budget", "fq_codel+limit"]
ALT_CONFIGS = ["global", "fq_codel", "pacing", "netns-sysctl", "netns-veth"]
CONFIGS = ["stock", "global", "limit", "budget", "limit-us", "fq_codel", "fq_codel+budget",
           "fq_codel+limit", "pacing", "netns-sysctl", "netns-veth"]
RATE_MBIT = {"100mbit": 100, "1gbit": 1000}
RATE_ORDER = {"100mbit": 0, "1gbit": 1, "dev": 2}
# scenarios.sh's budgets when neither a row nor BENCH_BUDGET says.
DEFAULT_BUDGETS = {"100mbit": "32k", "1gbit": "256k", "dev": "256k"}
GOODPUT_KEEP = 0.95     # "keeps stock's goodput" in when-to-use-what
AS_GOOD = 1.10          # a ping p50 within 10 % of the best is as good

# Issue 23's budget targets, bounds on the qdisc's peak backlog at 100
# Mbit/s, no added delay: the budget plus one packet per sending CPU
# (several flows) or one packet (one flow); goodput against stock in
# the same repetition.
SKBS_PER_CPU = 1
TARGETS = [  # cc, flows, budget, per CPU, goodput vs stock (or None)
    ("cubic", 8, "32k", True, 0.95),
    ("bbr", 8, "32k", True, 0.95),
    ("cubic", 100, "64k", True, None),
    ("cubic", 1, "32k", False, None),
]
# "One packet" where a row has no pkt_max (the largest skb of its run):
# the TSO size a budget gives its skbs (a quarter of it) and an skb's
# overhead beyond its payload at most, as tests/vm/t_budget.sh takes it
# when bpftrace is late; and run-vm's default of 2 vCPUs.
SKB_OVERHEAD = 1280
ASSUMED_CPUS = 2


def load(path):
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def parse_size(s):
    """tsqctl's sizes: 32k = 32768 bytes; None if s is not one size."""
    if isinstance(s, (int, float)):
        return int(s)
    s = str(s).strip().lower()
    mult = {"k": KIB, "m": KIB ** 2, "g": KIB ** 3}.get(s[-1:], 1)
    digits = s[:-1] if mult > 1 else s
    return int(digits) * mult if digits.isdigit() else None


def size_label(b):
    for suffix, m in (("g", KIB ** 3), ("m", KIB ** 2), ("k", KIB)):
        if b % m == 0:
            return f"{b // m}{suffix}"
    return str(b)


def spread(values):
    """median, min, max and count of the values that were measured."""
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    return {"median": statistics.median(v), "min": v[0], "max": v[-1], "n": len(v)}


def med(row, key):
    return row[key]["median"] if row and row.get(key) else None


VM_PARTS = ("scenarios", "overhead", "zerocost")


def run_meta(meta, part, rows=()):
    """What bench/run recorded for one part. A meta.json from before
    per-part records has one date for every VM part; host parts it did
    not record carry their date and tree in each row."""
    runs = meta.get("runs")
    r = runs.get(part) if runs is not None else (meta if part in VM_PARTS else None)
    if not r and rows:
        r = {"date": rows[0].get("date"), "tsq": rows[0].get("tsq")}
    return r or {}


def minutes(r):
    try:
        t0, t1 = (datetime.strptime(r[k], "%Y-%m-%dT%H:%M:%SZ") for k in ("start", "end"))
    except (KeyError, TypeError, ValueError):
        return None
    return (t1 - t0).total_seconds() / 60


# Scenarios.

def default_budget(meta, rate):
    """The budget scenarios.sh gave a rate: BENCH_BUDGET if meta.json
    records one size, else its own defaults."""
    b = parse_size(run_meta(meta, "scenarios").get("budget", ""))
    return b if b else parse_size(DEFAULT_BUDGETS.get(rate, "32k"))


def scen_key(r, meta):
    b = r.get("budget")
    return (r["rate"], r["delay_ms"], r["cc"], r["flows"],
            parse_size(b) if b is not None else default_budget(meta, r["rate"]))


def scen_order(key):
    rate, delay, cc, flows, budget = key
    return (RATE_ORDER.get(rate, 9), delay, cc, flows, budget)


def scen_label(key, meta):
    rate, delay, cc, flows, budget = key
    b = "" if budget == default_budget(meta, rate) else f", budget {size_label(budget)}"
    return f"{rate} +{delay} ms {cc} x{flows}{b}"


def scen_name(key, meta):
    """The scenario's part of a numbers.json name: 100mbit.cubic8,
    100mbit+20ms.bbr8, 100mbit.cubic100@64k."""
    rate, delay, cc, flows, budget = key
    b = "" if budget == default_budget(meta, rate) else f"@{size_label(budget)}"
    return f"{rate}{f'+{delay}ms' if delay else ''}.{cc}{flows}{b}"


def cfg_order(c):
    return CONFIGS.index(c) if c in CONFIGS else len(CONFIGS)


def group(runs, meta):
    """{scenario key: {config: [rows]}}"""
    g = defaultdict(lambda: defaultdict(list))
    for r in runs:
        g[scen_key(r, meta)][r["config"]].append(r)
    return g


def pair_ratios(rows, ref, f):
    """f(row) / f(ref row of the same repetition), for every repetition
    both have."""
    by_rep = {r["rep"]: f(r) for r in ref if r.get("rep") is not None}
    out = []
    for r in rows:
        v, base = f(r), by_rep.get(r.get("rep"))
        if v is not None and base:
            out.append(v / base)
    return out


def kib(field):
    return lambda r: r[field] / KIB if r.get(field) is not None else None


def ping(i):
    return lambda r: r["ping_ms"][i]


def rr(i):
    return lambda r: r["rr_ms"][i] if r.get("rr_ms") else None


METRICS = {
    "peak_kib": kib("peak"), "mean_kib": kib("mean"),
    "dev_peak_kib": kib("dev_peak"), "dev_mean_kib": kib("dev_mean"),
    "goodput_mbps": lambda r: r["goodput_mbps"],
    "ping_p50_ms": ping(0), "ping_p99_ms": ping(1), "ping_max_ms": ping(2),
    "rr_p50_ms": rr(0), "rr_p99_ms": rr(1), "rr_max_ms": rr(2),
    "flow_rtt_ms": lambda r: r.get("flow_rtt_ms"), "jain": lambda r: r.get("jain"),
    "cpu_busy_pct": lambda r: r["cpu_busy_pct"], "sender_cpu_pct": lambda r: r.get("sender_cpu_pct"),
    "throttles": lambda r: r.get("throttles"),
}

# What results.md shows of them, and numbers.json names.
SHOWN = ["peak_kib", "mean_kib", "dev_peak_kib", "dev_mean_kib", "goodput_mbps", "ping_p50_ms",
         "ping_p99_ms", "rr_p99_ms", "flow_rtt_ms", "jain", "cpu_busy_pct", "throttles"]


def scenarios(groups, meta):
    """One row per scenario and configuration, every metric a spread;
    goodput and ping against stock as per-repetition pairs."""
    out = []
    for key in sorted(groups, key=scen_order):
        cfgs = groups[key]
        stock = cfgs.get("stock", [])
        for cfg in sorted(cfgs, key=cfg_order):
            rs = cfgs[cfg]
            a = {"scenario": scen_label(key, meta), "name": scen_name(key, meta),
                 "rate": key[0], "delay_ms": key[1], "cc": key[2], "flows": key[3],
                 "budget": key[4], "config": cfg, "runs": len(rs)}
            for m, f in METRICS.items():
                a[m] = spread(f(r) for r in rs)
            a["goodput_vs_stock"] = spread(pair_ratios(rs, stock, METRICS["goodput_mbps"]))
            a["ping_p50_vs_stock"] = spread(pair_ratios(rs, stock, METRICS["ping_p50_ms"]))
            out.append(a)
    return out


def targets(groups, meta):
    """Issue 23's targets, each at its worst repetition."""
    res = []
    for cc, flows, budget_s, per_cpu, g_min in TARGETS:
        budget = parse_size(budget_s)
        cfgs = groups.get(("100mbit", 0, cc, flows, budget), {})
        b, stock = cfgs.get("budget", []), cfgs.get("stock", [])
        t = {"name": f"{cc}{flows}", "target": f"{flows} {cc}, budget {budget_s}", "cc": cc,
             "flows": flows, "budget": budget, "per_cpu": per_cpu, "goodput_min": g_min,
             "n": len(b)}
        res.append(t)
        if not b:
            continue
        per, assumed = [], set()
        for r in b:
            cpus = r.get("cpus") or meta.get("guest_cpus")
            if not cpus:
                cpus = ASSUMED_CPUS
                assumed.add("cpus")
            pkt = r.get("pkt_max")
            if pkt is None:
                pkt = budget // 4 + SKB_OVERHEAD
                assumed.add("pkt_max")
            pkts = cpus * SKBS_PER_CPU if per_cpu else 1
            bound = budget + pkts * pkt
            per.append({"rep": r.get("rep"), "peak": r["peak"], "pkt": pkt, "pkts": pkts,
                        "bound": bound, "margin": bound - r["peak"]})
        w = min(per, key=lambda p: p["margin"])
        t.update(peak_kib=w["peak"] / KIB, peak_median_kib=statistics.median(p["peak"] for p in per) / KIB,
                 pkt_kib=w["pkt"] / KIB, pkts=w["pkts"], bound_kib=w["bound"] / KIB,
                 margin_kib=w["margin"] / KIB, worst_rep=w["rep"], bytes_met=w["margin"] >= 0,
                 assumed=sorted(assumed))
        ratios = pair_ratios(b, stock, METRICS["goodput_mbps"])
        t["goodput"] = spread(ratios)
        if g_min is not None:
            t["goodput_met"] = bool(ratios) and min(ratios) >= g_min
        t["ping_p50_vs_stock"] = spread(pair_ratios(b, stock, METRICS["ping_p50_ms"]))
    return res


# Issue 23's limit-us target: at the device bottleneck (no TBF), 8 bbr
# flows under limit-us 1000 keep LIMIT_US_GOODPUT of stock's goodput,
# paired per repetition, and a Jain index of LIMIT_US_JAIN.
LIMIT_US_SCENARIO = ("dev", 0, "bbr", 8)
LIMIT_US_CONFIGS = ["limit-us", "limit-us-delivered"]
LIMIT_US_GOODPUT = 0.9
LIMIT_US_JAIN = 0.9


def limit_us_targets(groups, meta):
    """The limit-us target per rate limit-us takes, at the worst
    repetition and, apart, at the median."""
    rate = LIMIT_US_SCENARIO[0]
    cfgs = groups.get(LIMIT_US_SCENARIO + (default_budget(meta, rate),), {})
    stock = cfgs.get("stock", [])
    # The noise a pair carries: stock's slowest repetition over its fastest.
    sg = [r["goodput_mbps"] for r in stock]
    noise = min(sg) / max(sg) if sg and max(sg) > 0 else None
    res = []
    for cfg in LIMIT_US_CONFIGS:
        rs = cfgs.get(cfg, [])
        t = {"config": cfg, "n": len(rs),
             "goodput": spread(pair_ratios(rs, stock, METRICS["goodput_mbps"])),
             "jain": spread(METRICS["jain"](r) for r in rs), "stock_noise": noise}
        g, j = t["goodput"], t["jain"]
        if g and j:
            t["met"] = g["min"] >= LIMIT_US_GOODPUT and j["min"] >= LIMIT_US_JAIN
            t["met_median"] = g["median"] >= LIMIT_US_GOODPUT and j["median"] >= LIMIT_US_JAIN
        res.append(t)
    return res


def choices(agg):
    """Per scenario, doing nothing (stock), tsq's best and the best
    alternative: the lowest /lat ping p50 among the configurations that
    keep GOODPUT_KEEP of stock's goodput (medians of the pairs); and the
    lowest bulk-flow RTT among those same configurations."""
    groups = defaultdict(dict)
    for a in agg:
        groups[(a["scenario"], a["name"])][a["config"]] = a
    out = []
    for (label, name), cfgs in groups.items():
        stock = cfgs.get("stock")
        if not stock or med(stock, "ping_p50_ms") is None:
            continue

        def ok(c):
            a = cfgs.get(c)
            return a and med(a, "ping_p50_ms") is not None and \
                (c == "stock" or (med(a, "goodput_vs_stock") or 0) >= GOODPUT_KEEP)

        def best(names):
            names = [c for c in names if ok(c)]
            return min(names, key=lambda c: med(cfgs[c], "ping_p50_ms")) if names else None

        def summary(c):
            if not c:
                return None
            a = cfgs[c]
            return {"config": c, "ping_p50_ms": med(a, "ping_p50_ms"), "runs": a["runs"],
                    "goodput_vs_stock": a["goodput_vs_stock"], "flow_rtt_ms": med(a, "flow_rtt_ms")}
        t, alt = summary(best(TSQ_CONFIGS)), summary(best(ALT_CONFIGS))
        s = summary("stock")
        others = [x["ping_p50_ms"] for x in (t, alt) if x]
        if not others or s["ping_p50_ms"] <= AS_GOOD * min(others):
            v = "stock as good"
        elif t and alt:
            v = "alternative as good or better" if alt["ping_p50_ms"] <= AS_GOOD * t["ping_p50_ms"] \
                else "tsq ahead"
        else:
            v = "tsq only" if t else "alternative only"
        rtt = [c for c in cfgs if ok(c) and med(cfgs[c], "flow_rtt_ms") is not None]
        out.append({"scenario": label, "name": name, "stock": s, "tsq": t, "alternative": alt,
                    "verdict": v, "n": min(x["runs"] for x in (s, t, alt) if x),
                    "lowest_flow_rtt": summary(min(rtt, key=lambda c: med(cfgs[c], "flow_rtt_ms")))
                    if rtt else None})
    return out


# Overhead, zero cost, scale, observe.

# Issue 23: the policy program at most 1.5 x the empty program's ns per
# call, each row's median of >= MIN_REPS samples against the empty row's.
PERCALL_MAX_VS_EMPTY = 1.5
# overhead.sh's CONNS: connections opened from /bulk per per-call sample
# (its rows do not record it).
PERCALL_CONNS = 1000
# /proc/PID/stat counts CPU time in USER_HZ ticks, 100 per second.
USER_HZ = 100


def callback(prog):
    """policy_tsq_limit and nop_limit: limit; policy_established and
    nop_established: established."""
    return prog.rsplit("_", 1)[-1]


def percall(rows):
    """ns per call of each program and policy count. The policy program
    against the empty one: the ratio of the rows' medians decides (issue
    23's rule); the pairs by repetition number show the worst."""
    calls = defaultdict(list)
    for r in rows:
        if r["kind"] == "percall":
            calls[(r["program"], r["policies"], r["prog"])].append(r)
    ns = lambda r: r.get("ns_per_call")  # noqa: E731
    empty = {}
    for (program, _, prog), rs in calls.items():
        if program == "empty":
            empty[rs[0].get("callback") or callback(prog)] = rs
    out = []
    for (program, policies, prog), rs in sorted(calls.items(), key=lambda kv: (kv[0][0] != "empty", kv[0][1:])):
        cb = rs[0].get("callback") or callback(prog)
        p = {"program": program, "policies": policies, "prog": prog, "callback": cb, "n": len(rs),
             "ns_per_call": spread(ns(r) for r in rs), "calls": spread(r.get("run_cnt") for r in rs)}
        ref = empty.get(cb)
        base = spread(ns(r) for r in ref) if ref else None
        if program != "empty" and base and p["ns_per_call"]:
            p["vs_empty_median"] = p["ns_per_call"]["median"] / base["median"]
            p["vs_empty"] = spread(pair_ratios(rs, ref, ns))
            p["vs_empty_n"] = min(len(rs), len(ref))
            if program == "policy":
                p["target_met"] = p["vs_empty_median"] <= PERCALL_MAX_VS_EMPTY
        out.append(p)
    return out


# Where the established callback's time goes: each part is the difference
# of two rows' medians (name, row, the row it is measured against).
PERCALL_PARTS = [
    ("the kfunc that sets a limit", ("fixed", 0), ("empty", 0)),
    ("the kernel's group join", ("fixed-budget", 0), ("fixed", 0)),
    ("the policy's lookup and the socket's storage (BPF)", ("policy-limit", 1), ("fixed", 0)),
    ("all of it, with a budget", ("policy", 1), ("empty", 0)),
]


def percall_parts(pc):
    """The parts of PERCALL_PARTS whose two rows were both measured, in
    ns per call (medians) and as a multiple of empty's median."""
    med = {(p["program"], p["policies"]): p["ns_per_call"]["median"]
           for p in pc if p["ns_per_call"]}
    empty = med.get(("empty", 0))
    out = []
    for name, row, ref in PERCALL_PARTS:
        if row in med and ref in med:
            d = med[row] - med[ref]
            out.append({"part": name, "row": "-".join(map(str, row)), "ref": "-".join(map(str, ref)),
                        "ns": d, "vs_empty": d / empty if empty else None})
    return out


def sync(rows):
    """A policy change with many established sockets, by policy count:
    tsqctl set's wall and CPU time, policy_sync's ns per socket it
    visited and how many it visited."""
    by = defaultdict(list)
    for r in rows:
        if r["kind"] == "sync":
            by[r["policies"]].append(r)
    return [{"policies": n, "n": len(rs), "sockets": sorted({r.get("sockets") for r in rs} - {None}),
             "failed": sum(1 for r in rs if r.get("rc")),
             "wall_ms": spread(r["wall_s"] * 1000 for r in rs),
             "cpu_ms": spread((r["user_s"] + r["sys_s"]) * 1000 for r in rs),
             "ns_per_socket": spread(r.get("ns_per_socket") for r in rs),
             "visited": spread(r.get("run_cnt") for r in rs)} for n, rs in sorted(by.items())]


def overhead(rows):
    out = {}
    unc = defaultdict(list)
    for r in rows:
        if r["kind"] == "unconstrained":
            unc[r["mode"]].append(r)
    if unc:
        good = METRICS["goodput_mbps"]
        out["unconstrained"] = {
            "detached_mbps": spread(good(r) for r in unc["detached"]),
            "attached_mbps": spread(good(r) for r in unc["attached"]),
            "ratio": spread(pair_ratios(unc["attached"], unc["detached"], good))}
    out["percall"] = percall(rows)
    out["percall_parts"] = percall_parts(out["percall"])
    out["sync"] = sync(rows)
    idle = defaultdict(list)
    for r in rows:
        if r["kind"] == "tsqd":
            idle[r["policies"]].append(r)
    out["tsqd"] = [{"policies": n, "cpu_pct": spread(r["cpu_pct"] for r in rs),
                    "rss_mib": spread(r["rss_kb"] / KIB for r in rs)} for n, rs in sorted(idle.items())]
    # The idle windows' lengths, and one clock tick as % of each.
    out["tsqd_seconds"] = sorted({r["seconds"] for rs in idle.values() for r in rs if r.get("seconds")})
    out["tsqd_tick_pct"] = [100 / (USER_HZ * s) for s in out["tsqd_seconds"]]
    return out


def zerocost(rows):
    if not rows:
        return None
    k = defaultdict(list)
    for r in rows:
        k[r["kernel"]].append(r)
    res = {}
    for name, rs in k.items():
        res[name] = {
            "goodput_mbps": spread([r["goodput_mbps"] for r in rs]),
            # CPU jiffies (both vCPUs, sender and receiver) per GB moved.
            "busy_jiffies_per_gb": spread([r["busy_jiffies"] / (r["bytes"] / 1e9) for r in rs]),
        }
    if "stock" in res and "patched" in res:
        def noise(s):
            return (s["max"] - s["min"]) / s["median"]
        g = res["patched"]["goodput_mbps"]["median"] / res["stock"]["goodput_mbps"]["median"]
        c = (res["patched"]["busy_jiffies_per_gb"]["median"] /
             res["stock"]["busy_jiffies_per_gb"]["median"])
        n = max(noise(res[x]["goodput_mbps"]) for x in ("stock", "patched"))
        nc = max(noise(res[x]["busy_jiffies_per_gb"]) for x in ("stock", "patched"))
        res["goodput_ratio"], res["cpu_per_byte_ratio"] = g, c
        res["goodput_noise"], res["cpu_noise"] = n, nc
        res["within_noise"] = abs(g - 1) <= n and abs(c - 1) <= nc
    return res


def scale(rows):
    """tsqctl show and stats, natively on the host, by command."""
    out = {}
    for cmd in ("show", "stats"):
        rs = [r for r in rows if r["cmd"] == cmd]
        if rs:
            out[cmd] = {"ms": spread([r["ms"] for r in rs]), "policies": rs[0]["policies"],
                        "date": rs[0].get("date"), "tsq": rs[0].get("tsq"),
                        "kernel": rs[0].get("kernel"),
                        "host_cgroups": rs[0]["host_cgroups"],
                        "all_listed": all(r["listed"] == r["policies"] for r in rs)}
    return out or None


def observe(rows):
    """tsqctl top natively on the host: its cost, and the per-cgroup
    delays it saw under each configuration."""
    if not rows:
        return None
    out = {"date": rows[0].get("date"), "tsq": rows[0].get("tsq"),
           "kernel": rows[0].get("kernel"), "configs": [], "unavailable": {}, "progs": {}}
    cost = [r for r in rows if r["kind"] == "observe_cost"]
    one = [r for r in cost if r["frames"] == 1]
    many = [r for r in cost if r["frames"] > 1]
    if one and many:
        n = many[0]["frames"]
        c1 = statistics.median(r["user_s"] + r["sys_s"] for r in one)
        out["cost"] = {
            "sockets": many[0]["sockets"], "frames": n,
            "load_cpu_s": spread([r["user_s"] + r["sys_s"] for r in one]),
            # Beyond the load: what each 1-s frame costs, as % of one CPU.
            "frame_pct": spread([100 * (r["user_s"] + r["sys_s"] - c1) / (n - 1) for r in many]),
            "total_pct": spread([r["cpu_pct"] for r in many])}
    for r in rows:
        if r["kind"] == "observe_prog":
            out["progs"].setdefault(r["prog"], []).append(r["ns_per_call"])
        elif r["kind"] == "observe" and "unavailable" in r:
            out["unavailable"][r["config"]] = r["unavailable"]
    out["progs"] = {p: spread(v) for p, v in out["progs"].items()}
    groups = defaultdict(list)
    for r in rows:
        if r["kind"] == "observe" and "unavailable" not in r:
            groups[(r["config"], r["flows"])].append(r)

    def ms(rs, cg, key, field):
        return spread([r[cg][key][field] / 1e6 for r in rs if r.get(cg)])

    for (cfg, flows), rs in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        out["configs"].append({
            "config": cfg, "flows": flows, "runs": len(rs),
            "completion": rs[0].get("completion"),
            "bulk_queued_kib": spread([r["bulk"]["queued_bytes"] / KIB for r in rs if r.get("bulk")]),
            "bulk_mean_ms": ms(rs, "bulk", "delay", "mean_ns"),
            "bulk_p99_ms": ms(rs, "bulk", "delay", "p99_ns"),
            "lat_mean_ms": ms(rs, "lat", "delay", "mean_ns"),
            "lat_p99_ms": ms(rs, "lat", "delay", "p99_ns"),
            "rr_p50_ms": spread([r["rr_ms"][0] for r in rs if r.get("rr_ms")]),
            "rr_p99_ms": spread([r["rr_ms"][1] for r in rs if r.get("rr_ms")])})
    return out
