#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every -j output that this host can make is JSON that a strict decoder
# takes (Python's json on the bytes: UTF-8, no raw control characters):
# tsqctl status, doctor, top (with every cgroup and every socket), show
# and stats over maps that scale_maps pins in a private bpffs, and
# tsqd's /stats.json. Cgroups whose names hold a quote, a backslash and
# a tab, bytes that are not UTF-8 and an escape sequence are in the tree
# while they run: names are the user's bytes (test_names.sh has more).
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUTPUT:-$top/.output}
tsqctl=$out/tsqctl
[ "$(id -u)" = 0 ] || { echo "# SKIP: test_json: needs root"; exit 0; }
for c in jq python3; do
	command -v $c >/dev/null || { echo "FAIL: test_json: no $c (scripts/install-deps.sh)"; exit 1; }
done
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cgmnt" ] || { echo "# SKIP: test_json: no cgroup2 mount"; exit 0; }
t=$(mktemp -d)
dir=$cgmnt/tsqjson-$$
odd=$dir/$'q"b\\s\tx'
raw=$dir/$'raw\xff\e[2J'
trap 'rmdir "$odd" "$raw" "$dir"/c* "$dir" 2>/dev/null; rm -rf "$t"' EXIT
mkdir -p "$odd" "$raw" "$dir"/c1 "$dir"/c2 "$dir"/c3

# strict FILE...: each file is one JSON text, or one a line with -l.
strict() {
	python3 -c '
import json, sys
lines = sys.argv[1] == "-l"
for path in sys.argv[2:]:
    raw = open(path, "rb").read()
    for doc in (raw.splitlines() if lines else [raw]):
        json.loads(doc)
' "$@" 2>&1 | tail -1
}

# valid NAME CMD...: CMD's stdout is JSON, whatever its exit code.
valid() {
	local name=$1
	shift
	"$@" >"$t/out" 2>"$t/err"
	if [ -s "$t/out" ] && [ -z "$(strict - "$t/out")" ]; then
		echo "PASS: $name: strict JSON ($(wc -c <"$t/out") bytes)"
	else
		echo "FAIL: $name: not strict JSON: $(strict - "$t/out") $(head -c 200 "$t/err")"
	fi
}

valid "tsqctl -j status" "$tsqctl" -j status
valid "tsqctl -p status" "$tsqctl" -p status
valid "tsqctl -j doctor" "$tsqctl" -j doctor
valid "tsqctl -j top -a -s" "$tsqctl" -j top -i 0.2 -a -s
if jq -e --arg c "${odd#"$cgmnt"}" '[.cgroups[] | select(.cgroup == $c)] | length == 1' \
	"$t/out" >/dev/null; then
	echo "PASS: tsqctl -j top: a cgroup named with a quote, a backslash and a tab"
else
	echo "FAIL: tsqctl -j top: no cgroup ${odd#"$cgmnt"} in $(head -c 300 "$t/out")"
fi

# show and stats need pinned maps: scale_maps pins them in a private
# bpffs, with a policy and statistics on three cgroups.
cat >"$t/pinned.sh" <<'EOS'
mount -t bpf bpf /sys/fs/bpf || exit 1
"$1" setup "$2" 3 >/dev/null || exit 1
"$3" -j show >"$4/show"
"$3" -j stats >"$4/stats"
"$3" -j stats --watch 1 >"$4/watch" &
sleep 1.5
kill $!
EOS
if unshare -m bash "$t/pinned.sh" "$out/scale_maps" "$dir" "$tsqctl" "$t"; then
	for f in show stats; do
		if [ -z "$(strict - "$t/$f")" ] && jq -e 'length == 3' "$t/$f" >/dev/null 2>&1; then
			echo "PASS: tsqctl -j $f: valid JSON, 3 cgroups"
		else
			echo "FAIL: tsqctl -j $f: $(head -c 300 "$t/$f")"
		fi
	done
	if [ "$(wc -l <"$t/watch")" -ge 2 ] && [ -z "$(strict -l "$t/watch")" ] &&
	   jq -es 'all(length == 3)' "$t/watch" >/dev/null; then
		echo "PASS: tsqctl -j stats --watch: one JSON array a line"
	else
		echo "FAIL: tsqctl -j stats --watch: $(head -c 300 "$t/watch")"
	fi
else
	echo "FAIL: scale_maps could not pin the maps in a private bpffs"
fi

# tsqd in observation mode (no hook here), in its own bpffs.
. "$top/tests/host/tsqd_private.sh"
port=$((20000 + ($$ + 7) % 20000))
tsqd_private "$out/tsqd" "$port" "$t/log"
valid "tsqd /stats.json" curl -sf "http://127.0.0.1:$port/stats.json"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
exit 0
