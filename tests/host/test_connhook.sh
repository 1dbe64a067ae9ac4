#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The connection hook's cache without the hook (maps pinned as tsq pins
# them, bench/scale_maps): tsq_eff pinned root's alone, an LRU of the
# size the header says, which 20,000 inserts leave at that size; tsq_gen
# pinned, and bumped once by each tsqctl set and unset after the policy
# map changed (the entries resolved before are stale from then on), not
# by show; pins without the generation (an older tsq's) still take a
# set. The hook's own use of it: tests/vm/t_connhook.sh. In a private
# mount namespace with its own bpffs.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUTPUT:-$top/.output}
[ "$(id -u)" = 0 ] || { echo "# SKIP: test_connhook: needs root"; exit 0; }
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cgmnt" ] || { echo "# SKIP: test_connhook: no cgroup2 mount"; exit 0; }
t=$(mktemp -d)
root=$cgmnt/tsqconn-$$
trap 'rm -rf "$t"; rmdir "$root"/c* "$root" 2>/dev/null' EXIT
mkdir -p "$root/c1" "$root/c2"

cat >"$t/run.sh" <<'EOS'
set -u
out=$1 t=$2 root=$3 rel=$4 top=$5
mount -t bpf bpf /sys/fs/bpf || exit 1
"$out/scale_maps" setup "$root" 1 >/dev/null || exit 1
bpftool=$out/tools/bpftool
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
ok() { if eval "$2"; then pass "$1"; else fail "$1 ($3)"; fi; }
# The generation, -1 without one.
gen() {
	local v
	v=$("$bpftool" -j map lookup pinned /sys/fs/bpf/tsq/gen key 0 0 0 0 2>/dev/null |
		jq -r '.formatted.value // empty')
	echo "${v:--1}"
}
hdr() { sed -n "s/^#define $1[[:space:]]*\([0-9]*\).*/\1/p" "$top/include/tsq.h"; }

want=$(hdr TSQ_EFF_CGROUPS)
info=$("$bpftool" -j map show pinned /sys/fs/bpf/tsq/eff |
	jq -r '"\(.type) \(.max_entries) \(.bytes_key) \(.bytes_value)"')
mode=$(stat -c %a /sys/fs/bpf/tsq/eff 2>&1)
ok "pinned: eff, an LRU hash of TSQ_EFF_CGROUPS ($want), u64 key, 40-B value, mode 600" \
	'[ "$info $mode" = "lru_hash $want 8 40 600" ]' "$info mode $mode"
info=$("$bpftool" -j map show pinned /sys/fs/bpf/tsq/gen |
	jq -r '"\(.type) \(.max_entries) \(.bytes_value)"')
mode=$(stat -c %a /sys/fs/bpf/tsq/gen 2>&1)
ok "pinned: gen, an array of one u64, mode 600" \
	'[ "$info $mode" = "array 1 8 600" ]' "$info mode $mode"

# As many entries as a tenant with 20,000 cgroups would make.
awk 'function le(v,  i, s) {
		for (i = 0; i < 8; i++) { s = s (v % 256) " "; v = int(v / 256) }
		return s
	}
	BEGIN {
		for (i = 1; i <= 20000; i++)
			printf "map update pinned /sys/fs/bpf/tsq/eff key %svalue %s%s1 0 0 0 0 16 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
				le(2^40 + i), le(0), le(1)
	}' >"$t/fill"
"$bpftool" batch file "$t/fill" >/dev/null 2>"$t/fill.err"
rc=$?
n=$("$bpftool" -j map dump pinned /sys/fs/bpf/tsq/eff | jq length)
ok "20,000 inserts: every one taken, the map at its size or under" \
	'[ "$rc" = 0 ] && [ "$n" -le "$want" ] && [ "$n" -gt $((want / 2)) ]' \
	"batch rc $rc, $n entries, $(tail -1 "$t/fill.err")"

# No hook here: tsqctl's sync fails after the map and the generation
# changed, and says so.
g0=$(gen)
"$out/tsqctl" set "$rel/c2" limit 8k 2>"$t/err"
g1=$(gen)
p=$("$out/tsqctl" show "$rel/c2")
ok "tsqctl set: the policy written, the generation bumped once" \
	'[ "$g0" -ge 0 ] && [ "$g1" = $((g0 + 1)) ] && [ "$p" = "$rel/c2 limit 8k" ]' "gen $g0 -> $g1, show [$p] $(cat "$t/err")"
"$out/tsqctl" show >/dev/null
ok "tsqctl show: the generation as it was" '[ "$(gen)" = "$g1" ]' "gen $(gen)"
"$out/tsqctl" unset "$rel/c2" 2>/dev/null
g2=$(gen)
p=$("$out/tsqctl" show "$rel/c2" 2>&1)
ok "tsqctl unset: the policy gone, the generation bumped once" \
	'[ "$g2" = $((g1 + 1)) ] && ! grep -q limit <<<"$p"' "gen $g1 -> $g2, show [$p]"

rm /sys/fs/bpf/tsq/gen
"$out/tsqctl" set "$rel/c2" limit 16k 2>"$t/err"
p=$("$out/tsqctl" show "$rel/c2")
ok "pins without the generation (an older tsq's): set writes the policy" \
	'[ "$p" = "$rel/c2 limit 16k" ] && ! grep -qi "gen" "$t/err"' "show [$p] $(cat "$t/err")"
EOS
unshare -m bash "$t/run.sh" "$out" "$t" "$root" "/${root#"$cgmnt"/}" "$top"
rc=$?
[ "$rc" = 0 ] || echo "FAIL: test_connhook: exit code $rc"
exit 0
