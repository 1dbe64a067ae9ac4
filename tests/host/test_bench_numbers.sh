#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bench numbers come from bench/results and agree with it: results.md,
# headline.md and numbers.json are what bench/report.py makes of raw/;
# every number README.md and the man pages mark as a bench number
# (tests/host/bench_numbers.py says how) agrees with numbers.json at the
# digits it shows, an included headline.md is verbatim, and bench text
# has no unmarked measurement. Numbers marked stale (no run in
# bench/results gives them yet) are listed. The check is shown to fail
# on copies of README.md with a marked number changed, a cell of the
# included table changed and an unmarked number added, and to check a
# number a man page marks with a roff comment.
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"
res=$top/bench/results
check=$top/tests/host/bench_numbers.py

# Debian's python3, as bench/run runs report.py; no plot, so no
# matplotlib needed.
mkdir -p "$tmp/res"
cp -r "$res/raw" "$tmp/res/"
if /usr/bin/python3 "$top/bench/report.py" --no-plot "$tmp/res" >"$tmp/log" 2>&1; then
	for f in results.md headline.md numbers.json results.json; do
		# The plot's line is there only when matplotlib drew it.
		if diff <(grep -v "^!\[latency\]" "$res/$f" | cat -s) <(grep -v "^!\[latency\]" "$tmp/res/$f" | cat -s) \
			>"$tmp/diff" 2>&1; then
			pass "bench/results/$f is what report.py makes of raw/"
		else
			fail "bench/results/$f differs from report.py's output on raw/ (rerun it): $(head -3 "$tmp/diff" | tr '\n' ' ')"
		fi
	done
else
	fail "report.py on bench/results/raw: $(tail -1 "$tmp/log")"
fi

cd "$top" || exit 1
res=bench/results
/usr/bin/python3 "$check" "$res" README.md man/*.[0-9]

# It can fail: the first number marked and not stale, changed.
read -r line num < <(grep -n -o -m1 -P '\d[\d.,]*<!--bench:(?!stale:)' README.md | head -1 |
	sed 's/<!--.*//; s/:/ /')
if [ -z "$line" ]; then
	fail "README.md has no marked bench number"
	exit 0
fi
# A different number at the same digits: its last digit plus one, mod 10.
last=${num: -1}
bad=${num%?}$(( (last + 1) % 10 ))
sed "${line}s/${num}<!--bench:/${bad}<!--bench:/" README.md >"$tmp/README.md"
if /usr/bin/python3 "$check" "$res" "$tmp/README.md" | grep -q "README.md:$line: $bad is not "; then
	pass "the check fails on README.md with $num changed to $bad (line $line)"
else
	fail "the check does not see $num changed to $bad at README.md:$line"
fi
# A headline cell: the first table row after the include, its last cell.
start=$(grep -n '^<!-- bench:include headline.md -->' README.md | cut -d: -f1)
row=$(awk -v s="$start" 'NR > s && /^\| [0-9]/ { print NR; exit }' README.md)
sed "${row}s/| [^|]* |\$/| 9.99 |/" README.md >"$tmp/README.md"
if [ -n "$row" ] && /usr/bin/python3 "$check" "$res" "$tmp/README.md" |
	grep -q "README.md:$start: the block is not"; then
	pass "the check fails on a changed cell of the included headline.md"
else
	fail "the check does not see a changed headline cell (line ${row:-none})"
fi
# An unmarked measurement in bench text.
region=$(grep -n '^<!-- bench given:' README.md | head -1 | cut -d: -f1)
sed "$((region + 1))s/^/Stock held 123.4 KiB. /" README.md >"$tmp/README.md"
if /usr/bin/python3 "$check" "$res" "$tmp/README.md" | grep -q "README.md:$((region + 1)): 123.4 KiB"; then
	pass "the check fails on an unmarked number in bench text"
else
	fail "the check does not see an unmarked number at README.md:$((region + 1))"
fi
# A man page marks a number with a roff comment at the end of its line:
# numbers.json's first value, as it is and off by one.
read -r name value < <(jq -r 'to_entries[0] | "\(.key) \(.value)"' "$res/numbers.json")
for shown in $(awk -v v="$value" 'BEGIN { printf "%.0f %.0f", v, v + 1 }'); do
	printf '.TH T 8\n.SH NAME\nt\n.SH DESCRIPTION\nIt held\n%s \\" bench:%s\nKiB.\n' \
		"$shown" "$name" >"$tmp/t.8"
	/usr/bin/python3 "$check" "$res" "$tmp/t.8" >"$tmp/out"
	echo "$?" >>"$tmp/rcs"
done
if [ "$(tr '\n' ' ' <"$tmp/rcs")" = "0 1 " ]; then
	pass "a man page's roff-marked number is checked ($name)"
else
	fail "roff-marked numbers: exit codes $(tr '\n' ' ' <"$tmp/rcs") for $name = $value, not 0 then 1"
fi
