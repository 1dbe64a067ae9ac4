#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cgroup names are anyone's bytes: whoever can make a cgroup (a delegated
# subtree, a container) picks them. With TCP flows from cgroups named
# with bytes that are not UTF-8, an escape sequence that sets a
# terminal's title, CR, 0x01, a C1 CSI, quote/backslash/tab and a
# leading dot, natively on this host (tsqd in observation mode):
# - /metrics passes promtool check metrics, and every such cgroup has
#   its series, labelled with \xNN escapes;
# - /stats.json and tsqctl -j top decode with Python's strict json;
# - tsqctl top's text has no control byte and is valid UTF-8;
# - a right-to-left override (U+202E) and the other bidi controls reach
#   no output raw, and a name with the text \x1b in it shows in tsqctl
#   top as \\x1b, not as what ESC shows as.
set -u
. "$(dirname "$0")/netpair.sh"

netpair_start test_names tsqnames promtool python3 curl
trap netpair_cleanup EXIT
names=($'bad\xff\xfeutf8' $'esc\e]0;pwned\a\e[31m' $'cr\rret' $'soh\x01x'
       $'c1\xc2\x9b2J' $'q"b\\s\tx' .hidden $'rlo\xe2\x80\xaegpj.exe'
       'lit\x1b[31m' $'lri\xe2\x81\xa6x\xe2\x81\xa9\xe2\x80\x8f\xd8\x9c')
if ! netpair_up rcv "${names[@]}"; then
	echo "FAIL: setup of netns, veth and cgroups"
	exit 1
fi
port=5301
for n in "${names[@]}"; do
	spawn rcv "$rcv" iperf3 -s -p $port
	port=$((port + 1))
done
sleep 1
port=5301
for n in "${names[@]}"; do
	spawn "$n" "$snd" iperf3 -c 198.18.0.2 -p $port -t 20 -b 20M
	port=$((port + 1))
done
netpair_tsqd || echo "FAIL: tsqd did not start: $(head -c 300 "$t/tsqd.log")"
sleep 2
netpair_get /metrics >"$t/metrics"
netpair_get /stats.json >"$t/stats.json"
nsenter --net=/run/netns/"$snd" "$tsqctl" -j top -i 0.5 -a -s >"$t/top.json"
nsenter --net=/run/netns/"$snd" "$tsqctl" top -i 0.5 -n 1 -a >"$t/top.txt"

if promtool check metrics <"$t/metrics" >"$t/promtool" 2>&1; then
	echo "PASS: promtool check metrics: $(wc -l <"$t/metrics") lines with the names in labels"
else
	echo "FAIL: promtool check metrics: $(head -c 300 "$t/promtool")"
fi
rel=${base#"$cgmnt"}
python3 - "$rel" "${#names[@]}" "$t" <<'PY'
import json, re, sys
rel, want, t = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def text_of(name, path):
    """The file as UTF-8, strictly; said and read anyway if it is not."""
    raw = open(path, 'rb').read()
    try:
        return raw.decode('utf-8')
    except UnicodeDecodeError as e:
        print(f"FAIL: {name}: not UTF-8: {e}")
        return raw.decode('utf-8', 'surrogateescape')

BIDI = set(map(chr, [0x61c, 0x200e, 0x200f, *range(0x202a, 0x202f), *range(0x2066, 0x206a)]))

def controls(text):
    """Control characters other than newline: C0, DEL, C1; bidi controls."""
    return [hex(ord(c)) for c in text
            if (ord(c) < 0x20 and c != '\n') or 0x7f <= ord(c) < 0xa0 or c in BIDI]

# /metrics: the labels of tsq_obs_sockets below our base.
text = text_of("/metrics", f"{t}/metrics")
labels = set()
for line in text.splitlines():
    m = re.match(r'tsq_obs_sockets\{cgroup="((?:[^"\\]|\\.)*)"\} (\d+)$', line)
    if m and m.group(1).startswith(rel + '/') and int(m.group(2)) > 0:
        labels.add(m.group(1))
esc = rel + r'/esc\\x1b]0;pwned\\x07\\x1b[31m'
if len(labels) >= want and esc in labels:
    print(f"PASS: /metrics: a series for each of the {want} cgroups, ESC as \\x1b")
else:
    print(f"FAIL: /metrics: {len(labels)} of {want} labelled series: {sorted(labels)[:3]}")
bad = controls(text)
print("PASS: /metrics: no control byte" if not bad else f"FAIL: /metrics: control bytes {bad[:5]}")

# JSON: strict decoding of the bytes, every cgroup named.
for name, path in (("tsqd /stats.json", f"{t}/stats.json"), ("tsqctl -j top -a -s", f"{t}/top.json")):
    try:
        doc = json.loads(open(path, 'rb').read())
    except ValueError as e:
        print(f"FAIL: {name}: strict JSON decode: {e}")
        continue
    ours = [c for c in doc["cgroups"] if c["cgroup"] and c["cgroup"].startswith(rel + '/')
            and c["established"] > 0]
    ok = len(ours) >= want and any(c["cgroup"] == rel + "/bad\\xff\\xfeutf8" for c in ours)
    print(f"PASS: {name}: strict JSON, {len(ours)} named cgroups, a non-UTF-8 byte as \\xff"
          if ok else f"FAIL: {name}: {len(ours)} of {want} cgroups: {[c['cgroup'] for c in ours]}")

# tsqctl top's text, as a terminal would get it.
text = text_of("tsqctl top", f"{t}/top.txt")
bad = controls(text)
rows = [l for l in text.splitlines() if l.startswith(rel + '/')]
if not bad and len(rows) >= want:
    print(f"PASS: tsqctl top: {len(rows)} rows of the cgroups, no control byte")
else:
    print(f"FAIL: tsqctl top: control bytes {bad[:8]}, {len(rows)} rows")
names = {r.split()[0] for r in rows}
for what, want_name in (("U+202E as its bytes' escapes", rel + r"/rlo\xe2\x80\xaegpj.exe"),
                        ("the text \\x1b with its backslash doubled", rel + r"/lit\\x1b[31m"),
                        ("ESC as \\x1b", rel + r"/esc\x1b]0;pwned\x07\x1b[31m"),
                        ("LRI, PDI, RLM, ALM escaped", rel + r"/lri\xe2\x81\xa6x\xe2\x81\xa9\xe2\x80\x8f\xd8\x9c")):
    if want_name in names:
        print(f"PASS: tsqctl top: {what}: {want_name[len(rel):]}")
    else:
        print(f"FAIL: tsqctl top: {what}: no row {want_name[len(rel):]!r} in {sorted(names)}")
# JSON keeps the name, \u-escaped: the raw dump has no bidi byte.
raw = open(f"{t}/stats.json", 'rb').read()
doc = json.loads(raw)
if b'\xe2\x80\xae' not in raw and b'\\u202e' in raw and \
   any(c["cgroup"] == rel + "/rlo\u202egpj.exe" for c in doc["cgroups"]):
    print("PASS: tsqd /stats.json: U+202E as \\u202e, decoded the name's own character")
else:
    print("FAIL: tsqd /stats.json: U+202E raw or the name lost")
PY
exit 0
