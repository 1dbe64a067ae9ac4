# SPDX-License-Identifier: GPL-2.0
# TAP output for the test runners (tests/check, tests/host/run,
# tests/vm/run-tests), sourced. The tests themselves print one line a
# check, "PASS: name", "FAIL: name: why" or "# SKIP: name: why" (VM tests
# also write "PASS name" lines to their results file); these functions
# number them as TAP results, keep a skip a skip, and count:
#
#   ok 1 - name
#   not ok 2 - name: why
#   ok 3 - name # SKIP why
#
# ktap_done closes with the plan and one "WHO: N passed, N failed,
# N skipped" line. ktap_prefix goes before every name (tests/vm/run-tests:
# the kernel version, so that two runs are told apart).

ktap_n=0 ktap_passed=0 ktap_failed=0 ktap_skipped=0 ktap_prefix=

ktap_header() { echo "TAP version 13"; }

ktap_ok() {
	ktap_n=$((ktap_n + 1)) ktap_passed=$((ktap_passed + 1))
	echo "ok $ktap_n - $ktap_prefix$1"
}

ktap_not_ok() {
	ktap_n=$((ktap_n + 1)) ktap_failed=$((ktap_failed + 1))
	echo "not ok $ktap_n - $ktap_prefix$1"
}

# ktap_skip NAME REASON
ktap_skip() {
	ktap_n=$((ktap_n + 1)) ktap_skipped=$((ktap_skipped + 1))
	echo "ok $ktap_n - $ktap_prefix$1 # SKIP $2"
}

# A test's output on stdin: its result lines as TAP, its "# " lines as
# they are (diagnostics), the rest dropped. Run it in this shell
# (ktap_convert <FILE, or < <(CMD)), not at the end of a pipe, or the
# counts are lost with the subshell.
ktap_convert() {
	local line rest
	while IFS= read -r line; do
		case $line in
		"PASS: "*) ktap_ok "${line#PASS: }" ;;
		"PASS "*) ktap_ok "${line#PASS }" ;;
		"FAIL: "*) ktap_not_ok "${line#FAIL: }" ;;
		"FAIL "*) ktap_not_ok "${line#FAIL }" ;;
		"# SKIP: "*": "* | "SKIP: "*": "*)
			rest=${line#*SKIP: }
			ktap_skip "${rest%%: *}" "${rest#*: }" ;;
		"# SKIP: "* | "SKIP: "*) ktap_skip "${line#*SKIP: }" "" ;;
		"#"*) echo "$line" ;;
		esac
	done
}

# Counts of TAP results on stdin, added to ours without renumbering them
# (tests/check sums its runners); the lines are shown indented, as a
# subtest's.
ktap_tally() {
	local line
	while IFS= read -r line; do
		echo "    $line"
		case $line in
		"not ok "*) ktap_failed=$((ktap_failed + 1)) ;;
		"ok "*" # SKIP"*) ktap_skipped=$((ktap_skipped + 1)) ;;
		"ok "*) ktap_passed=$((ktap_passed + 1)) ;;
		esac
	done
}

# ktap_done WHO: the plan, the closing line; fails if a check failed or
# none passed.
ktap_done() {
	echo "1..$ktap_n"
	echo "$1: $ktap_passed passed, $ktap_failed failed, $ktap_skipped skipped"
	[ "$ktap_failed" = 0 ] && [ "$ktap_passed" -gt 0 ]
}
