#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# libFuzzer targets for libtsq's parsers. Each runs FUZZ_SECONDS (10 here,
# 300 with `make fuzz`) from its seed corpus and the inputs that once
# crashed it (tests/host/fuzz/{corpus,regressions}/NAME). New inputs go
# to $OUTPUT/fuzz/NAME.corpus, never into the source tree; a crash leaves
# $OUTPUT/fuzz/NAME-crash-* to copy into regressions/ once fixed.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${FUZZ_SECONDS:-10}
out=${OUTPUT:-.output}
[[ $out = /* ]] || out=$top/$out

if ! build=$(make -C "$top" --no-print-directory fuzz-build 2>&1); then
	echo "$build" | tail -5
	echo "FAIL: build fuzzers (clang-19 -fsanitize=fuzzer needs libclang-rt-19-dev)"
	exit 1
fi

failed=0
for src in "$top"/tests/host/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	work=$out/fuzz/$name.corpus
	log=$out/fuzz/$name.log
	dirs=("$work")
	for d in corpus regressions; do
		[ -d "$top/tests/host/fuzz/$d/$name" ] && dirs+=("$top/tests/host/fuzz/$d/$name")
	done
	mkdir -p "$work"
	rm -f "$out/fuzz/$name"-crash-* "$out/fuzz/$name"-leak-* "$out/fuzz/$name"-timeout-*
	"$out/fuzz/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/fuzz/$name-" \
		"${dirs[@]}" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	if [ "$rc" = 0 ]; then
		echo "PASS: $name: ${runs:-?} runs in ${secs}s, ${rate:-?}/s"
	else
		why=$(grep -m1 -E '^(SUMMARY|==[0-9]+== ?ERROR)' "$log")
		input=$(ls "$out/fuzz/$name"-{crash,leak,timeout}-* 2>/dev/null | head -1)
		echo "FAIL: $name: ${why:-exit code $rc}; input ${input:-none}, log $log"
		failed=1
	fi
done
exit "$failed"
