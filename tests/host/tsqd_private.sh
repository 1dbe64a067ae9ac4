# SPDX-License-Identifier: GPL-2.0
# Sourced by host tests.
#
# expect NAME RC REGEX CMD...: CMD (at most 10 s) exits RC with one line
# on stderr that matches REGEX; PASS or FAIL. Its output goes to $t.
expect() {
	local name=$1 want=$2 re=$3 rc n
	shift 3
	timeout 10 "$@" >"$t/out" 2>"$t/err"
	rc=$?
	n=$(wc -l <"$t/err")
	if [ "$rc" = "$want" ] && [ "$n" = 1 ] && grep -qE "$re" "$t/err"; then
		echo "PASS: $name (exit $rc: $(cat "$t/err"))"
	else
		echo "FAIL: $name: exit $rc (want $want), $n lines: $(head -c 300 "$t/err")"
	fi
}

# tsqd_private TSQD PORT LOG starts tsqd on
# 127.0.0.1:PORT in a private mount namespace with its own bpffs (so
# that whatever it pins stays there), its log in LOG, and waits up to
# 5 s for it to serve. Its pid is in $pid.
tsqd_private() {
	unshare -m sh -c 'mount -t bpf bpf /sys/fs/bpf && exec "$0" "$@"' "$1" \
		--listen "127.0.0.1:$2" --log-interval 0 2>"$3" &
	pid=$!
	for _ in $(seq 50); do
		grep -q 'statistics on' "$3" && break
		sleep 0.1
	done
}
