#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The pinned state against other local users and against itself.
# 1. On a bpffs whose root has the default mode 1777, nobody makes
#    /sys/fs/bpf/tsq first: tsqd and tsqctl must refuse it (nobody could
#    otherwise rename or unlink root's pins, the link among them, and so
#    detach the policy), and root's own directory must stand the attack.
# 2. tsqctl attach and tsqd started together, 25 times: each time exactly
#    one struct_ops link, pinned, whose maps work (the loser of the race
#    used to unpin the winner's state on its way out).
. "$(dirname "$0")/lib.sh"

TSQD=$OUT/tsqd
BPFTOOL=$OUT/tools/bpftool
PINS=/sys/fs/bpf/tsq
cgr=/sys/fs/cgroup
conf=$TMP/tsq.conf
echo '/pins limit 8k' >"$conf"
mkdir -p $cgr/pins
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
struct_ops_links() { "$BPFTOOL" -j link show | jq '[.[] | select(.type == "struct_ops")] | length'; }

# 1. The attack.
mode=$(stat -c %a /sys/fs/bpf)
chmod 1777 /sys/fs/bpf
as_nobody mkdir $PINS
timeout 20 "$TSQD" -c "$conf" -d "$TMP/none" -l none -i 0 2>"$TMP/tsqd.err"
rc=$?
log "tsqd: $(cat "$TMP/tsqd.err")"
check "nobody's $PINS: tsqd exits 1" 'rc == 1' rc=$rc
check "nobody's $PINS: tsqd says who owns it" 'n == 1' \
	n="$(grep -c "tsqd: $PINS is owned by uid 65534 with mode 0[0-7]*: .*refusing it" "$TMP/tsqd.err")"
"$TSQCTL" attach 2>"$TMP/ctl.err"
rc=$?
log "tsqctl: $(cat "$TMP/ctl.err")"
check "nobody's $PINS: tsqctl attach refuses it too" 'rc != 0 && n == 1' rc=$rc \
	n="$(grep -c "owned by uid 65534" "$TMP/ctl.err")"
check "nobody's $PINS: nothing pinned in it, no struct_ops link" 'f == 0 && l == 0' \
	f="$(find $PINS -mindepth 1 | wc -l)" l="$(struct_ops_links)"
as_nobody rmdir $PINS

# Root's directory (0700) on the same 1777 bpffs: nobody can neither
# rename nor unlink the link, nor the directory.
"$TSQCTL" attach || fail "tsqctl attach"
id=$("$TSQCTL" -j status | jq .link_id)
as_nobody mv $PINS/link $PINS/x 2>/dev/null
as_nobody rm -f $PINS/link 2>/dev/null
as_nobody mv $PINS /sys/fs/bpf/moved 2>/dev/null
as_nobody rm -rf $PINS 2>/dev/null
check "root's $PINS: the link survives nobody's attempts" 'a == b && a > 0' \
	a="$id" b="$("$TSQCTL" -j status | jq .link_id)"
"$TSQCTL" set /pins limit 8k
check "root's $PINS: policy still settable" 'n == 1' \
	n="$("$TSQCTL" -j show | jq '[.[] | select(.cgroup == "/pins")] | length')"
"$TSQCTL" reset
chmod "$mode" /sys/fs/bpf

# 2. The race, 25 rounds (50 in make check: 25 on each kernel).
bad=0 attached_by_ctl=0 adopted=0
for i in $(seq 25); do
	"$TSQCTL" reset 2>/dev/null
	: >"$TMP/race.log"
	"$TSQD" -c "$conf" -d "$TMP/none" -l none -i 0 2>"$TMP/race.log" &
	pid=$!
	"$TSQCTL" attach 2>/dev/null && attached_by_ctl=$((attached_by_ctl + 1))
	until_ok 20000 grep -q 'loaded 1 policies' "$TMP/race.log" >/dev/null
	alive=$(kill -0 $pid 2>/dev/null && echo 1 || echo 0)
	grep -q 'adopted' "$TMP/race.log" && adopted=$((adopted + 1))
	kill -TERM $pid 2>/dev/null
	wait $pid
	# After tsqd is gone, only the pins hold the attachment.
	links=$(struct_ops_links)
	pinned=$([ -e $PINS/link ] && [ -e $PINS/policy ] && [ -e $PINS/stats ] && echo 1 || echo 0)
	works=$("$TSQCTL" -j show 2>/dev/null | jq 'length' 2>/dev/null || echo -1)
	if [ "$alive" != 1 ] || [ "$links" != 1 ] || [ "$pinned" != 1 ] || [ "$works" != 1 ]; then
		bad=$((bad + 1))
		log "round $i: tsqd alive $alive, struct_ops links $links, pinned $pinned, show $works;" \
			"$(tr '\n' '|' <"$TMP/race.log")"
	fi
done
log "25 rounds: tsqctl attached first $attached_by_ctl times, tsqd adopted $adopted times"
check "25 races of tsqctl attach and tsqd: one working attachment each time" \
	'bad == 0' bad=$bad
"$TSQCTL" reset
rmdir $cgr/pins
check_dmesg pins
finish
