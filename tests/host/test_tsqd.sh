#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsqd on this host, whose kernel has no tcp_tsq_ops: observation mode,
# said in its first log line, in tsqctl status and on /metrics; start-up
# errors are one line naming what is missing, exit 1 (2 for bad options);
# nothing pinned; no bpffs mounted is mounted (mode 0700), and an
# unprivileged user's /sys/fs/bpf/tsq on a bpffs of mode 1777 does not
# stop observation mode, which pins nothing; tsqctl's exit status likewise (tsqctl(8): 1 when the
# kernel or the pinned state refuses, 2 for a wrong command line). The VM
# test (t_tsqd.sh) covers the daemon with the hook.
top=$(cd "$(dirname "$0")/../.." && pwd)
tsqd=${OUTPUT:-$top/.output}/tsqd
tsqctl=${OUTPUT:-$top/.output}/tsqctl
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

. "$top/tests/host/tsqd_private.sh"
port=$((20000 + $$ % 20000))
tsqd_private "$tsqd" "$port" "$t/log"
if head -1 "$t/log" | grep -q '^tsqd: observation mode: hook: no tcp_tsq_ops'; then
	echo "PASS: no hook: observation mode, first log line: $(head -1 "$t/log")"
else
	echo "FAIL: no hook: log: $(head -c 300 "$t/log")"
fi
if curl -sf "http://127.0.0.1:$port/metrics" >"$t/metrics" &&
   grep -q '^tsq_observation_mode 1$' "$t/metrics" && grep -q '^# TYPE tsq_obs_queued_bytes gauge' "$t/metrics"; then
	echo "PASS: observation mode serves tsq_obs_* metrics"
else
	echo "FAIL: /metrics in observation mode: $(head -c 300 "$t/metrics")"
fi
if curl -sf "http://127.0.0.1:$port/stats.json" | jq -e '.cgroups | type == "array"' >/dev/null; then
	echo "PASS: observation mode serves /stats.json"
else
	echo "FAIL: /stats.json in observation mode"
fi
st=$("$tsqctl" status)
# Any tsqd on this host is in observation mode: another checkout's test
# may run one too, and status names the first it finds.
if grep -qE "^tsqd: running, pid [0-9]+, observation mode" <<<"$st" &&
   [ "$("$tsqctl" -j status | jq -r .tsqd_mode)" = observation ]; then
	echo "PASS: tsqctl status: $(grep '^tsqd:' <<<"$st")"
else
	echo "FAIL: tsqctl status: $(tr '\n' ';' <<<"$st")"
fi
# The host's kernel has neither hook: the probe says which, by name.
ht=$("$tsqctl" -j status | jq -r '"\(.hook) \(.hook_type)"')
if [ "$ht" = "false none" ] && grep -q '^hook: no tcp_tsq_ops or bpf_tcp_tsq_set()' <<<"$st"; then
	echo "PASS: tsqctl status: the hook probe says none ($ht)"
else
	echo "FAIL: tsqctl status: hook $ht, $(grep '^hook:' <<<"$st")"
fi
kill "$pid"
wait "$pid"
rc=$?
if [ "$rc" = 0 ]; then
	echo "PASS: SIGTERM in observation mode: exit 0"
else
	echo "FAIL: SIGTERM in observation mode: exit $rc"
fi
expect "not privileged" 1 '^tsqd: needs CAP_BPF and CAP_PERFMON' \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tsqd"
expect "bad --listen address" 2 'bad IPv4 address' "$tsqd" --listen 1.2.3:80
expect "bad --listen port" 2 'bad port' "$tsqd" --listen 127.0.0.1:70000
expect "bad --log-interval" 2 'want 0 to 86400' "$tsqd" --log-interval -5
expect "stray argument" 2 'unexpected argument' "$tsqd" extra
expect "tsqctl attach without the hook: refused, exit 1" 1 \
	'^tsqctl: cannot attach: no tcp_tsq_ops' "$tsqctl" attach
expect "tsqctl attach with an argument: exit 2" 2 'attach takes no arguments' \
	"$tsqctl" attach x
expect "tsqctl unknown verb: exit 2" 2 '^tsqctl: What is "frob"\?' "$tsqctl" frob
"$tsqd" --help >"$t/out" 2>&1
if [ $? = 0 ] && grep -q -- '--config' "$t/out"; then
	echo "PASS: --help exits 0 and lists the options"
else
	echo "FAIL: --help"
fi
if [ ! -e /sys/fs/bpf/tsq ]; then
	echo "PASS: nothing pinned by observation mode and the failed starts"
else
	echo "FAIL: /sys/fs/bpf/tsq exists after failed starts"
fi
if [ ! /run/tsq/tsqd.pid -nt "$t" ]; then
	echo "PASS: no pid file written by the failed starts"
else
	echo "FAIL: /run/tsq/tsqd.pid written by a failed start"
fi

# /run/tsq as a hostile local user could have left it, in a private
# mount namespace with its own /run and bpffs: tsqd and tsqctl status
# refuse what is not root's alone, in one line, and never hang on it.
cat >"$t/run.sh" <<'EOS'
tsqd=$1 tsqctl=$2 t=$3
mount -t tmpfs -o mode=0755 tmpfs /run && mount -t bpf bpf /sys/fs/bpf || exit 1
res() { echo "$1 rc=$2 $(tr '\n' ' ' <"$t/err" | head -c 300)" >>"$t/results"; }
# start: tsqd for at most 3 s; its exit code and stderr.
start() { timeout 3 "$tsqd" --listen none --log-interval 0 2>"$t/err"; }
mkdir /run/tsq && chown 65534:65534 /run/tsq
start; res owner $?
rm -rf /run/tsq; mkdir -m 0755 /run/tsq
mkfifo /run/tsq/tsqd.pid
timeout 5 "$tsqctl" status >"$t/out" 2>"$t/err"; rc=$?
grep '^tsqd:' "$t/out" >"$t/err"; res fifo $rc
rm /run/tsq/tsqd.pid
echo precious >/run/tsq/victim && chown 65534:65534 /run/tsq/victim
ln /run/tsq/victim /run/tsq/tsqd.pid
start; res hardlink $?
echo "victim $(cat /run/tsq/victim)" >>"$t/results"
rm /run/tsq/tsqd.pid /run/tsq/victim
echo 1 >/run/tsq/tsqd.pid && chown 65534:65534 /run/tsq/tsqd.pid
flock /run/tsq/tsqd.pid sleep 10 &
sleep 0.3
timeout 5 "$tsqctl" status >"$t/out" 2>"$t/err"; rc=$?
grep '^tsqd:' "$t/out" >"$t/err"; res fake-status $rc
start; res fake-start $?
kill $!
EOS
: >"$t/results"
unshare -m bash "$t/run.sh" "$tsqd" "$tsqctl" "$t"
# result NAME REGEX WHAT: the line of NAME in the results matches REGEX.
result() {
	local line
	line=$(grep "^$1 " "$t/results")
	if grep -qE "$2" <<<"$line"; then
		echo "PASS: $3: ${line#* }"
	else
		echo "FAIL: $3: ${line:-no result}"
	fi
}
result owner 'rc=1 tsqd: /run/tsq is owned by uid 65534' "/run/tsq owned by nobody: tsqd refuses it, one line"
result fifo 'rc=0 tsqd: unknown: /run/tsq/tsqd.pid is not a regular file' \
	"a FIFO as the pid file: tsqctl status answers at once"
result hardlink 'rc=1 tsqd: /run/tsq/tsqd.pid has 2 links' "a hard link as the pid file: tsqd refuses it"
result victim '^victim precious$' "the hard-linked file is left as it was"
result fake-status 'rc=0 tsqd: unknown: .*owned by uid 65534' \
	"nobody's locked pid file saying 1: status names no pid"
result fake-start 'rc=1 tsqd: /run/tsq/tsqd.pid is owned by uid 65534' \
	"nobody's locked pid file: tsqd refuses it, not \"pid 1\""

# bpffs: missing, then mounted mode 1777 with nobody's /sys/fs/bpf/tsq
# in it, then missing where tsqd cannot mount it (no CAP_SYS_ADMIN), in
# private mount namespaces with their own /run. Observation mode pins
# nothing, so none of them may stop it: it runs and serves.
cat >"$t/bpffs.sh" <<'EOS'
tsqd=$1 t=$2 port=$3 case=$4
mount -t tmpfs -o mode=0755 tmpfs /run || exit 1
umount /sys/fs/bpf 2>/dev/null
case $case in
squat)
	mount -t bpf -o mode=1777 bpf /sys/fs/bpf || exit 1
	setpriv --reuid=65534 --regid=65534 --clear-groups mkdir /sys/fs/bpf/tsq || exit 1
	run=("$tsqd") ;;
nocap)
	run=(setpriv --bounding-set -sys_admin --inh-caps -sys_admin "$tsqd") ;;
*)
	run=("$tsqd") ;;
esac
"${run[@]}" --listen "127.0.0.1:$port" --log-interval 0 2>"$t/$case.log" &
p=$!
for _ in $(seq 50); do grep -q 'statistics on' "$t/$case.log" && break; sleep 0.1; done
curl -sf --max-time 5 "http://127.0.0.1:$port/stats.json" >"$t/$case.json"
kill -0 $p 2>/dev/null && echo running >"$t/$case.state"
findmnt -n -o FSTYPE,OPTIONS /sys/fs/bpf >"$t/$case.mnt"
stat -c '%u %a' /sys/fs/bpf/tsq >"$t/$case.dir" 2>/dev/null
ls -A /sys/fs/bpf/tsq >>"$t/$case.dir" 2>/dev/null
kill $p; wait $p
EOS
for c in missing squat nocap; do
	unshare -m bash "$t/bpffs.sh" "$tsqd" "$t" "$((port + 1))" "$c"
	ok=0
	[ "$(cat "$t/$c.state" 2>/dev/null)" = running ] &&
		jq -e '.cgroups | type == "array"' "$t/$c.json" >/dev/null 2>&1 &&
		grep -q '^tsqd: observation mode: hook: no tcp_tsq_ops' "$t/$c.log" && ok=1
	log=$(tr '\n' ' ' <"$t/$c.log" | head -c 400)
	case $c in
	missing)
		if [ $ok = 1 ] && grep -q '^bpf .*mode=700' "$t/$c.mnt" &&
		   grep -q '^tsqd: mounted bpffs at /sys/fs/bpf, mode 0700$' "$t/$c.log"; then
			echo "PASS: no bpffs: tsqd mounts one, mode 0700 ($(cat "$t/$c.mnt")), and serves"
		else
			echo "FAIL: no bpffs: ok=$ok, mount '$(cat "$t/$c.mnt")', log: $log"
		fi ;;
	squat)
		if [ $ok = 1 ] && [ "$(tr '\n' ' ' <"$t/$c.dir")" = "65534 755 " ] &&
		   grep -q '^tsqd: ignoring /sys/fs/bpf/tsq: observation mode pins nothing$' "$t/$c.log"; then
			echo "PASS: nobody's /sys/fs/bpf/tsq on a bpffs of mode 1777: observation mode runs, the directory left as it was"
		else
			echo "FAIL: nobody's /sys/fs/bpf/tsq: ok=$ok, dir '$(tr '\n' ' ' <"$t/$c.dir")', log: $log"
		fi ;;
	nocap)
		if [ $ok = 1 ] && grep -q '^tsqd: no bpffs at /sys/fs/bpf, and mounting one failed: Operation not permitted; observation mode pins nothing$' "$t/$c.log"; then
			echo "PASS: no bpffs and no CAP_SYS_ADMIN to mount one: observation mode runs, and says so"
		else
			echo "FAIL: no bpffs, no CAP_SYS_ADMIN: ok=$ok, log: $log"
		fi ;;
	esac
done
