#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Bench numbers in README.md and the man pages against bench/results.

A bench number carries the name of its value in numbers.json (written
by bench/report.py) right after it:
  Markdown  0.94 (0.88-0.95)<!--bench:observe.frame_pct--> %
  roff      a line that ends in the number, then \\" bench:NAME
"A (B-C)" is checked as NAME's median, min and max, "B-C" as its min
and max, a lone number as NAME itself; each to the digits it shows.
bench:stale:NAME marks a number no run in bench/results supports yet:
it is listed, not checked. Between <!-- bench:include FILE --> and
<!-- /bench:include --> stands FILE of bench/results, verbatim. Between
<!-- bench --> (or <!-- bench given: 100 Mbit/s | 6 s -->) and
<!-- /bench -->, every number with a decimal point or a unit must be
marked, or be one of the given values (set-up, not measured).

usage: bench_numbers.py RESULTS_DIR FILE...
One PASS or FAIL line per check and file, "# stale:" lines; exit 1 on
any FAIL.
"""
import json
import re
import sys
from pathlib import Path

NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
MARK = re.compile(r'(?:<!--\s*|\\"\s*)bench:(?!include\b)(stale:)?([\w.+@]+(?:-[\w.+@]+)*)\s*(?:-->)?')
SHAPES = [  # what precedes a marker, and the suffixes its parts are checked as
    (re.compile(rf"(?<![\d.,])({NUM}) \(({NUM})-({NUM})\)$"), ("", ".min", ".max")),
    (re.compile(rf"(?<![\d.,])({NUM})-({NUM})$"), (".min", ".max")),
    (re.compile(rf"(?<![\d.,])({NUM})$"), ("",)),
]
INCLUDE = re.compile(r"<!--\s*bench:include\s+(\S+)\s*-->\n(.*?)<!--\s*/bench:include\s*-->", re.S)
REGION = re.compile(r"<!--\s*bench(?:\s+given:([^>]*?))?\s*-->(.*?)<!--\s*/bench\s*-->", re.S)
UNIT = r"(?:ms|ns|%|KiB|KB|MiB|MB|B|Mbit/s|min|s)(?![\w/])"
MEASURE = re.compile(rf"(?<![\w.,/^])({NUM})(?:(\s?{UNIT})|(?![\w,]))")


def agrees(shown, value):
    """value rounds to what is shown, at the digits shown."""
    digits = len(shown.split(".")[1]) if "." in shown else 0
    return abs(float(shown.replace(",", "")) - value) <= 0.5 * 10 ** -digits + 1e-9


def blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def check(path, text, numbers, results):
    fails, stale, count = [], [], 0
    for m in MARK.finditer(text):
        before = text[:m.start()].rstrip(" ") if m.group(0).startswith("\\") else text[:m.start()]
        where = f"{path}:{line_of(text, m.start())}"
        name = m.group(2)
        shape = next(((s.search(before), sfx) for s, sfx in SHAPES if s.search(before)), None)
        if not shape:
            fails.append(f"{where}: bench:{name} follows no number")
            continue
        found, suffixes = shape
        if m.group(1):
            v = numbers.get(name)
            stale.append(f"{where}: {found.group(0)} ({name}): " +
                         (f"{results} now has {v:g}: write it and drop \"stale:\"" if v is not None
                          else f"no run in {results} gives it; update it after the next bench run"))
            continue
        for shown, sfx in zip(found.groups(), suffixes):
            count += 1
            v = numbers.get(name + sfx)
            if v is None:
                fails.append(f"{where}: {shown}: bench/results has no {name + sfx}")
            elif not agrees(shown, v):
                fails.append(f"{where}: {shown} is not {name + sfx} = {v:g}")
    blocks = 0
    for m in INCLUDE.finditer(text):
        blocks += 1
        f = results / m.group(1)
        want = f.read_text().strip() if f.exists() else None
        if want != m.group(2).strip():
            fails.append(f"{path}:{line_of(text, m.start())}: the block is not {f}"
                         + ("" if want is not None else " (no such file)"))
    unmarked = []
    for m in REGION.finditer(text):
        given = {re.sub(r"\s", "", s) for s in (m.group(1) or "").split("|") if s.strip()}
        # Included blocks, marked numbers, code and link targets are not
        # prose numbers: blanked, lines kept.
        body = INCLUDE.sub(blank, m.group(2))
        body = re.sub(rf"(?:(?:{NUM})-)?(?:{NUM})(?:\s\((?:{NUM})-(?:{NUM})\))?<!--\s*bench:[^>]*-->",
                      blank, body)
        body = re.sub(r"`[^`]*`|\]\([^)]*\)|<!--.*?-->", blank, body, flags=re.S)
        for n in MEASURE.finditer(body):
            tok = re.sub(r"\s", "", n.group(0))
            if ("." in n.group(1) or n.group(2)) and tok not in given:
                unmarked.append(f"{path}:{line_of(text, m.start(2) + n.start())}: {n.group(0).strip()}")
    return fails, stale, unmarked, count, blocks


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: bench_numbers.py RESULTS_DIR FILE...")
    results = Path(sys.argv[1])
    numbers = json.loads((results / "numbers.json").read_text())
    bad = False
    for path in sys.argv[2:]:
        fails, stale, unmarked, count, blocks = check(path, Path(path).read_text(), numbers, results)
        for s in stale:
            print(f"# stale: {s}")
        if fails:
            bad = True
            print(f"FAIL: {path}: {len(fails)} of its bench numbers disagree with {results}")
            for f in fails:
                print(f"#   {f}")
        else:
            print(f"PASS: {path}: {count} bench numbers and {blocks} included blocks agree with "
                  f"{results}" + (f" ({len(stale)} stale)" if stale else ""))
        if unmarked:
            bad = True
            print(f"FAIL: {path}: {len(unmarked)} unmarked numbers in bench text")
            for u in unmarked:
                print(f"#   {u}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
