#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The connection hook (issue 37, item 3): its per-cgroup cache (tsq_eff,
# include/tsq.h) never gives a wrong policy. What it costs:
# t_connhook_cost.sh.
#  - Correct: a socket 8 levels below the policy's cgroup gets it; a
#    change of the ancestor's policy, a descendant's own policy and its
#    removal, a cgroup made after the cache was warm, and the policy's
#    removal each reach the next connection (read back from the socket,
#    tsq_socks); a walk that failed in a client's cgroup namespace is not
#    cached; a cache filled to its size with other entries leaves the
#    policy right and the map at its size.
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/connhook.sh
. "$(dirname "$0")/connhook.sh"

# hold: one loopback connection, both ends held until killed.
hold='import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname()); a = s.accept(); time.sleep(60)'

# limit_of DIR: the limit the kernel keeps for a new loopback connection
# made in DIR (both ends are), "none" without a policy.
limit_of() {
	local id pid l
	id=$(stat -c %i "$1")
	bg_in_cg "$1" python3 -c "$hold"
	pid=$!
	for _ in $(seq 50); do
		l=$(awk -v id="$id" '$11 == id { print ($4 ? $5 : "none") }' /sys/fs/bpf/tsq_socks |
			sort -u | tr '\n' ' ')
		[ -z "$l" ] || break
		sleep 0.2
	done
	kill $pid
	wait $pid 2>/dev/null
	echo "${l% }"
}

"$TSQCTL" attach || fail "tsqctl attach"
socks_on
"$TSQCTL" set /ch limit 16000 || fail "tsqctl set /ch"

info=$("$BPFTOOL" -j map show pinned /sys/fs/bpf/tsq/eff |
	jq -r '"\(.type) \(.max_entries)"')
check "the cache is an LRU of 16384 entries, pinned" 'i == "lru_hash 16384"' i="$info"

# 1. The policy, through the cache.
check "8 levels below /ch: its limit" 'l == 16000' l="$(limit_of "$d8")"
check "again, from the cache: its limit" 'l == 16000' l="$(limit_of "$d8")"
"$TSQCTL" set /ch limit 24000
check "/ch's limit changed: the next connection has the new one" 'l == 24000' \
	l="$(limit_of "$d8")"
"$TSQCTL" set /ch/l2 limit 12000
check "/ch/l2 has its own: the next connection 6 levels below has it" 'l == 12000' \
	l="$(limit_of "$d8")"
"$TSQCTL" unset /ch/l2
check "/ch/l2's removed: /ch's again" 'l == 24000' l="$(limit_of "$d8")"
mkdir "$cgr/ch/l2/new"
check "a cgroup made after the cache was warm: /ch's" 'l == 24000' \
	l="$(limit_of "$cgr/ch/l2/new")"
rmdir "$cgr/ch/l2/new"
"$TSQCTL" unset /ch
check "/ch's policy removed: none" 'l == "none"' l="$(limit_of "$d8")"
check "a cgroup without a policy anywhere: none" 'l == "none"' l="$(limit_of $cgr/np)"
"$TSQCTL" set /ch limit 16000

# A connection's other end made in another task's cgroup namespace: on
# loopback the server's end is established in the client's softirq,
# where bpf_cgroup_from_id() sees only the client's namespace and finds
# no /ch. That walk, which could not be made, must not be cached: the
# next server end, established from a client outside any namespace, gets
# /ch's policy; and once that cached /ch's, the namespaced client's
# server end gets it too.
mkdir -p $cgr/cns/c
# server_limit DIR [WRAPPER...]: the limit of the server's end, in /ch,
# of one connection to port 7010 that a client in DIR makes (run by
# WRAPPER).
server_limit() {
	local id spid cpid l
	id=$(stat -c %i $cgr/ch)
	bg_in_cg $cgr/ch python3 -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 7010)); s.listen(); c = s.accept(); time.sleep(30)' &
	spid=$!
	sleep 0.5
	bg_in_cg "$@" python3 -c 'import socket, time
c = socket.create_connection(("127.0.0.1", 7010)); time.sleep(30)'
	cpid=$!
	for _ in $(seq 50); do
		l=$(awk -v id="$id" '$1 == 7010 && $11 == id { print ($4 ? $5 : "none") }' \
			/sys/fs/bpf/tsq_socks)
		[ -z "$l" ] || break
		sleep 0.2
	done
	kill $spid $cpid
	wait $spid $cpid 2>/dev/null
	echo "$l"
}
"$TSQCTL" set /ch limit 16000
l=$(server_limit $cgr/cns/c unshare -C)
log "server end of a connection from a client in a cgroup namespace, cache cold: $l"
check "a client outside a cgroup namespace: the server end has /ch's limit" 'l == 16000' \
	l="$(server_limit $cgr/np)"
check "the namespaced client again: the server end has it too, from the cache" 'l == 16000' \
	l="$(server_limit $cgr/cns/c unshare -C)"

# A cache full of others' entries (ids no cgroup has, of this
# generation): still the right policy, and no more entries than its size.
gen=$("$BPFTOOL" -j map lookup pinned /sys/fs/bpf/tsq/gen key 0 0 0 0 |
	jq -r '.formatted.value // empty')
# 17,000 "map update" lines for bpftool batch: keys 2^40 + i, values
# of this generation with cgroup 1's policy, limit 4096.
awk -v gen="$gen" 'function le(v,  i, s) {
		for (i = 0; i < 8; i++) { s = s (v % 256) " "; v = int(v / 256) }
		return s
	}
	BEGIN {
		for (i = 1; i <= 17000; i++)
			printf "map update pinned /sys/fs/bpf/tsq/eff key %svalue %s%s1 0 0 0 0 16 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
				le(2^40 + i), le(gen), le(1)
	}' >"$TMP/fill"
"$BPFTOOL" batch file "$TMP/fill" >/dev/null 2>"$TMP/fill.err" ||
	log "bpftool batch: $(tail -1 "$TMP/fill.err")"
n=$("$BPFTOOL" -j map dump pinned /sys/fs/bpf/tsq/eff | jq length)
check "17,000 entries into the cache: it holds no more than its size" 'n <= 16384 && n > 1000' n="$n"
check "full cache: 8 levels below /ch, its limit" 'l == 16000' l="$(limit_of "$d8")"
check "full cache: a new cgroup below /ch, its limit" 'l == 16000' \
	l="$(mkdir $cgr/ch/full && limit_of $cgr/ch/full)"
rmdir $cgr/ch/full

took "the policy's checks"
check_dmesg connhook
finish
