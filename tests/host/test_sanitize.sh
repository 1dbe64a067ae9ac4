#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqd and tsqctl built with ASan and UBSan that stop at the first
# finding (make tests: .output/san/), on this host's kernel without the
# hook, so observation mode: tsqd with cgroup and unit entries in its
# policy files reloads 100 times (SIGHUP, and file changes) while
# cgroups come and go and /metrics and /stats.json are scraped from the
# first snapshot on; then tsqctl's commands that run here. A finding, a
# crash or a missing reload fails.
top=$(cd "$(dirname "$0")/../.." && pwd)
san=${OUTPUT:-$top/.output}/san
[ "$(id -u)" = 0 ] || { echo "# SKIP: test_sanitize: needs root"; exit 0; }
[ -x "$san/tsqd" ] && [ -x "$san/tsqctl" ] ||
	{ echo "FAIL: no $san/tsqd or $san/tsqctl (make tests)"; exit 1; }
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cgmnt" ] || { echo "# SKIP: test_sanitize: no cgroup2 mount"; exit 0; }
t=$(mktemp -d)
cg=$cgmnt/tsqsan-$$
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rmdir "$cg"/* "$cg" 2>/dev/null; rm -rf "$t"' EXIT
mkdir -p "$cg/a" "$t/conf.d"
rel=${cg#"$cgmnt"}
# Every entry kind: a cgroup that exists, one that does not yet, units.
cat >"$t/tsq.conf" <<CONF
$rel/a limit 8k
$rel/b budget 32k
backup.service limit 16k tso 8k
a@b.service budget 64k
tsqsan.slice limit 4k
CONF
echo "sshd.service limit-us 1000 rate delivered" >"$t/conf.d/units.conf"
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=0 \
       UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

port=$((20000 + ($$ + 13) % 20000))
unshare -m sh -c 'mount -t bpf bpf /sys/fs/bpf && exec "$0" "$@"' "$san/tsqd" \
	-c "$t/tsq.conf" -d "$t/conf.d" --listen "127.0.0.1:$port" --log-interval 1 \
	2>"$t/log" &
pid=$!
for _ in $(seq 100); do
	grep -q 'statistics on' "$t/log" && break
	sleep 0.1
done

# scrape PATH: the answer's bytes in $t/scrape.
scrape() {
	curl -sf --max-time 5 "http://127.0.0.1:$port$1" >"$t/scrape"
}
if scrape /metrics && grep -q '^tsq_observation_mode 1$' "$t/scrape"; then
	echo "PASS: sanitized tsqd: the first /metrics ($(wc -l <"$t/scrape") lines)"
else
	echo "FAIL: sanitized tsqd: the first /metrics: $(tail -3 "$t/log")"
fi

# reloads N: wait up to 5 s for the Nth "reread" line.
reloads() {
	local i
	for i in $(seq 100); do
		[ "$(grep -c 'reread' "$t/log")" -ge "$1" ] && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
ok=0 scrapes=0
for i in $(seq 100); do
	case $((i % 4)) in
	0) mkdir "$cg/b" ;;
	1) rmdir "$cg/b" 2>/dev/null ;;
	2) echo "# rewrite $i" >>"$t/conf.d/units.conf" ;;
	esac
	kill -HUP "$pid" 2>/dev/null
	reloads "$i" || break
	if [ $((i % 10)) = 0 ]; then
		scrape /metrics && scrape /stats.json && scrapes=$((scrapes + 2))
	fi
	ok=$i
done
rmdir "$cg/b" 2>/dev/null
n=$(grep -c 'reread' "$t/log")
if [ "$ok" = 100 ] && [ "$n" -ge 100 ] && [ "$scrapes" = 20 ]; then
	echo "PASS: sanitized tsqd: 100 reloads with cgroup and unit entries ($n rereads, $scrapes scrapes)"
else
	echo "FAIL: sanitized tsqd: $ok of 100 reloads, $n rereads, $scrapes of 20 scrapes: $(tail -5 "$t/log" | tr '\n' ' ')"
fi
kill "$pid" 2>/dev/null
wait "$pid"
rc=$?
if [ "$rc" = 0 ] && ! grep -qE 'AddressSanitizer|runtime error|LeakSanitizer' "$t/log"; then
	echo "PASS: sanitized tsqd: SIGTERM, exit 0, no finding"
else
	echo "FAIL: sanitized tsqd: exit $rc: $(grep -m3 -E 'Sanitizer|runtime error|SEGV' "$t/log")"
fi

# tsqctl: what runs without the hook, the refusals, and the commands
# that read pinned maps (scale_maps pins them in a private bpffs, with
# policies on three cgroups).
fails=()
mkdir -p "$cg/c1" "$cg/c2" "$cg/c3"
cat >"$t/pinned.sh" <<'EOS'
mount -t bpf bpf /sys/fs/bpf && "$1" setup "$2" 3 >/dev/null || exit 1
for args in "show" "-j show" "stats" "-j stats" "show $3/c1" "unset $3/c2" "set $3/c3 limit 4k" \
	    "set $3/c1 limit-us 1000 rate delivered" "-j show" "show $3/c1"; do
	# shellcheck disable=SC2086
	"$4" $args >/dev/null 2>>"$5/pinned.err"
	echo "$args: exit $?" >>"$5/pinned.rc"
done
EOS
if ! unshare -m bash "$t/pinned.sh" "${OUTPUT:-$top/.output}/scale_maps" "$cg" "$rel" \
	"$san/tsqctl" "$t"; then
	fails+=("scale_maps could not pin the maps")
elif grep -qE 'Sanitizer|runtime error' "$t/pinned.err" || grep -qE 'exit ([3-9]|[1-9][0-9])' "$t/pinned.rc"; then
	fails+=("on pinned maps: $(grep -m1 -E 'Sanitizer|runtime error' "$t/pinned.err") $(tr '\n' ' ' <"$t/pinned.rc")")
fi
for args in "status" "-j status" "doctor" "-j doctor" "top -i 0.2 -n 2 -a -s" \
	    "-j top -i 0.2 -n 2 -a -s" "show" "stats" "set /x limit 8k" "set x y" "frob" \
	    "set /x limit-us 1000 rate fast" "set /x rate delivered"; do
	# shellcheck disable=SC2086
	"$san/tsqctl" $args >"$t/out" 2>"$t/err"
	rc=$?
	# 0, 1 (refused, advice) and 2 (usage) are answers; a sanitizer exits 1
	# too, so its report is what tells.
	if [ "$rc" -gt 2 ] || grep -qE 'Sanitizer|runtime error' "$t/err"; then
		fails+=("$args: exit $rc $(grep -m1 -E 'Sanitizer|runtime error' "$t/err")")
	fi
done
if [ ${#fails[@]} = 0 ]; then
	echo "PASS: sanitized tsqctl: 23 commands, 10 on pinned maps, no finding"
else
	echo "FAIL: sanitized tsqctl: ${fails[*]}"
fi
exit 0
