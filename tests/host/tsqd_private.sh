# SPDX-License-Identifier: GPL-2.0
# Sourced by host tests: tsqd_private TSQD PORT LOG starts tsqd on
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
