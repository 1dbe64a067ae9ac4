#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The sync scope map without the kernel hook (tests/host/scope_tool.c on
# maps pinned as tsq pins them): pinned root's alone with the size the
# header says; a scope entry per process, keyed by its pid with its
# start time, made by begin and gone at end; more cgroups than a run
# takes, a cgroup not known or another pid namespace make no entry; the
# entries of processes gone (killed, or a pid reused) pruned by the next
# begin, a live one's kept; a full map refused with -ENOSPC; pins without
# the map (an older tsq's) refused with -ENOENT. In a private mount
# namespace with its own bpffs.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUTPUT:-$top/.output}
[ "$(id -u)" = 0 ] || { echo "# SKIP: test_scope: needs root"; exit 0; }
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cgmnt" ] || { echo "# SKIP: test_scope: no cgroup2 mount"; exit 0; }
t=$(mktemp -d)
root=$cgmnt/tsqscope-$$
trap 'rm -rf "$t"; rmdir "$root"/c* "$root" 2>/dev/null' EXIT
mkdir -p "$root"
for i in $(seq 17); do mkdir "$root/c$i"; done

cat >"$t/run.sh" <<'EOS'
set -u
out=$1 t=$2 root=$3
mount -t bpf bpf /sys/fs/bpf || exit 1
"$out/scale_maps" setup "$root" 1 >/dev/null || exit 1
bpftool=$out/tools/bpftool
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
ok() { if eval "$2"; then pass "$1"; else fail "$1 ($3)"; fi; }
id() { stat -c %i "$1"; }
ENOENT=-2 EPERM=-1 EINVAL=-22 E2BIG=-7 ENOSPC=-28

info=$("$bpftool" -j map show pinned /sys/fs/bpf/tsq/scope |
	jq -r '"\(.type) \(.max_entries) \(.bytes_key) \(.bytes_value)"')
mode=$(stat -c %a /sys/fs/bpf/tsq/scope)
ok "pinned: scope map, hash of 256, u32 key, 208-B value, mode 600" \
	'[ "$info $mode" = "hash 256 4 208 600" ]' "$info mode $mode"
ok "pinned: sync_count map" '[ -e /sys/fs/bpf/tsq/sync_count ]' "$(ls /sys/fs/bpf/tsq)"

# hold: begin, then end on a line of stdin.
# Once bash reaps a coproc it closes its fds and unsets H and H_PID,
# which a loaded machine does before the last read: a copy of the read
# end (a copy of the write end would keep its stdin open), and numbers.
coproc H { exec "$out/scope_tool" hold "$root/c1" "$root/c2"; }
h_pid=$H_PID h_out=${H[1]}
exec {h_in}<&"${H[0]}"
read -r w rc <&"$h_in"
l=$("$out/scope_tool" list)
ok "begin: 0" '[ "$w $rc" = "begin 0" ]' "$w $rc"
want="$h_pid $(awk '{ print $22 }' /proc/$h_pid/stat) 2 $(id "$root/c1"):-1 $(id "$root/c2"):-1"
ok "begin: one entry, pid, start time, the two cgroups, levels unknown" '[ "$l" = "$want" ]' \
	"list [$l] want [$want]"
echo end >&"$h_out"
read -r w <&"$h_in"
l=$("$out/scope_tool" list)
ok "end: no entry left" '[ "$w" = end ] && [ -z "$l" ]' "$w [$l]"
exec {h_out}>&- {h_in}<&-
wait "$h_pid"

r=$("$out/scope_tool" hold $(printf "$root/c%d " $(seq 17)) </dev/null)
ok "17 cgroups, more than TSQ_SYNC_SCOPES: -E2BIG, no entry" \
	'[ "$r" = "begin $E2BIG" ] && [ -z "$("$out/scope_tool" list)" ]' "$r"
r=$("$out/scope_tool" hold "$root/none" </dev/null)
ok "a cgroup not known (id 0): -EINVAL" '[ "$r" = "begin $EINVAL" ]' "$r"
r=$(unshare -p -f --mount-proc "$out/scope_tool" hold "$root/c1" </dev/null)
ok "another pid namespace: -EPERM, no entry" \
	'[ "$r" = "begin $EPERM" ] && [ -z "$("$out/scope_tool" list)" ]' "$r"

# Stale entries: a holder killed with its entry in; a live pid's entry
# with a start time not its own (a reused pid); and a live holder's.
sleep 100 </dev/null & live=$!
coproc L { exec "$out/scope_tool" hold "$root/c5"; }
l_pid=$L_PID l_out=${L[1]}
exec {l_in}<&"${L[0]}"
read -r _ <&"$l_in"
# (bash warns of a second coproc while the first runs: it is meant.)
{ coproc K { exec "$out/scope_tool" hold "$root/c3"; }; } 2>/dev/null
read -r _ <&"${K[0]}"
kpid=$K_PID
kill -9 "$kpid"; wait "$kpid" 2>/dev/null
# pid 1's entry with a start time of 12345 ticks: bytes of the struct.
le() { local v=$1 n=$2 i; for ((i = 0; i < n; i++)); do printf '%d ' $(((v >> (8 * i)) & 255)); done; }
"$bpftool" map update pinned /sys/fs/bpf/tsq/scope key $(le 1 4) \
	value $(le 12345 8) $(le 1 4) $(le 0 4) $(le "$(id "$root/c4")" 8) $(le 0 120) $(le 0 64) ||
	fail "bpftool map update"
before=$("$out/scope_tool" list | awk '{ print $1 }' | sort -n | tr '\n' ' ')
ok "stale: the killed holder's entry stays after its death" \
	'grep -qw "$kpid" <<<"$before" && grep -qw 1 <<<"$before"' "$before"
r=$("$out/scope_tool" hold "$root/c6" </dev/null)
after=$("$out/scope_tool" list | awk '{ print $1 }' | sort -n | tr '\n' ' ')
ok "stale: the next begin prunes the killed holder's and the reused pid's, keeps the live one's" \
	'[ "$r" = "begin 0" ] && [ "$after" = "$l_pid " ]' "begin [$r] before [$before] after [$after]"
exec {l_out}>&- {l_in}<&-
wait "$l_pid"
ok "stale: prune of an empty map: 0" '[ "$("$out/scope_tool" prune)" = 0 ]' ""

# Full: every slot a live process's, as its own entry would be.
sleepers=()
for i in $(seq 256); do sleep 100 </dev/null & sleepers+=($!); done
n=$("$out/scope_tool" fill "$live" "${sleepers[@]}")
r=$("$out/scope_tool" hold "$root/c1" </dev/null)
l=$("$out/scope_tool" list | wc -l)
ok "full map ($n entries of live processes): -ENOSPC, nothing pruned or replaced" \
	'[ "$n" = 256 ] && [ "$r" = "begin $ENOSPC" ] && [ "$l" = 256 ]' "begin [$r] entries $l"
kill "$live"
wait "$live" 2>/dev/null
r=$("$out/scope_tool" hold "$root/c1" </dev/null)
ok "a slot freed by a process that ended: begin 0" '[ "$r" = "begin 0" ]' "$r"
kill "${sleepers[@]}" 2>/dev/null
wait "${sleepers[@]}" 2>/dev/null
p=$("$out/scope_tool" prune)
ok "the filling processes gone: prune removes their 255 entries, none left" \
	'[ "$p" = 255 ] && [ -z "$("$out/scope_tool" list)" ]' "pruned $p"

# An older tsq's pins: no scope map.
rm /sys/fs/bpf/tsq/scope
r=$("$out/scope_tool" hold "$root/c1" </dev/null)
ok "pins without the scope map: -ENOENT (the syncs visit every socket)" \
	'[ "$r" = "begin $ENOENT" ]' "$r"
EOS
unshare -m bash "$t/run.sh" "$out" "$t" "$root"
rc=$?
[ "$rc" = 0 ] || echo "FAIL: test_scope: exit code $rc"
exit 0
