#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsq-test: systemd
# The package make deb built, installed with systemd as PID 1 on the
# patched kernel, used as README.md says: dpkg -i, systemctl enable
# --now tsqd, a drop-in and systemctl reload for a service whose flow is
# already running (bytes in the qdisc before and after), then systemctl
# stop, which leaves the policy pinned and in force until tsqctl reset.
. "$(dirname "$0")/lib.sh"

version=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
deb=$OUT/deb/tsq_${version}_$(dpkg --print-architecture).deb
unit=tsq-deb-bulk.service
cgpath=/system.slice/$unit
tsqctl=/usr/sbin/tsqctl
[ -s "$deb" ] || { fail "no $deb: make deb"; finish; }

dpkg -i "$deb" >"$TMP/dpkg" 2>&1
rc=$?
check "dpkg -i $(basename "$deb")" 'rc == 0' rc=$rc
[ "$rc" = 0 ] || { log "$(tail -5 "$TMP/dpkg")"; finish; }
check "installed, not started: tsqd.service is inactive" 's == "inactive"' \
	s="$(systemctl is-active tsqd.service)"

t0=$(date +%s%N)
systemctl enable --now tsqd.service 2>"$TMP/enable"
rc=$?
log "systemctl enable --now tsqd: exit $rc after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
check "systemctl enable --now tsqd: active" 'rc == 0 && a == "active" && e == "enabled"' \
	rc=$rc a="$(systemctl is-active tsqd.service)" e="$(systemctl is-enabled tsqd.service)"
st=$("$tsqctl" -j status)
check "tsqd attached the hook: link pinned, tsqctl status says so" \
	'pinned == 0 && att == "true" && mode == "policy" && pid > 0' \
	pinned="$([ -e /sys/fs/bpf/tsq/link ]; echo $?)" att="$(jq -r .attached <<<"$st")" \
	mode="$(jq -r .tsqd_mode <<<"$st")" pid="$(jq -r .tsqd_pid <<<"$st")"
log "tsqd: $(journalctl -b -u tsqd.service --no-pager -o cat | tr '\n' '|' | head -c 600)"

# One flow of a service, sampled by the clock of the backlog sampler
# for 3 s after each step: no policy; a drop-in and systemctl reload;
# systemctl stop; tsqctl reset. The flow outlives the steps (60 s), and
# ends with its unit.
tbf_on 100mbit
iperf_server
systemd-run -q --unit=$unit -p Type=exec \
	iperf3 -c "$TSQ_PEER_IP" -t 60 -C cubic -J --logfile /run/tsq-deb-bulk.json
sleep 600 &
timer=$!
# The sampler's times are wall-clock, as the steps' (EPOCHREALTIME, no
# exec): its own start lags ours by an exec, hundreds of ms under TCG.
"$OUT/qdisc_backlog" "$TSQ_DEV" 2000 "$timer" unix >"$TMP/flow.unix" &
sampler=$!
start=${EPOCHREALTIME/./}
at() { local now=${EPOCHREALTIME/./}; echo $(( (now - start) / 1000 )); }

sleep 4
t_reload=$(at)
echo "$unit limit 8k tso 8k" >"$TMP/drop-in"
install -m 644 "$TMP/drop-in" /etc/tsq/tsq.conf.d/$unit.conf
systemctl reload tsqd.service
rc=$?
check "systemctl reload tsqd" 'rc == 0' rc=$rc
reloaded=$(at)
sleep 4

t_stop=$(at)
systemctl stop tsqd.service
check "systemctl stop tsqd: inactive, link still pinned" 'a == "inactive" && pinned == 0' \
	a="$(systemctl is-active tsqd.service)" pinned="$([ -e /sys/fs/bpf/tsq/link ]; echo $?)"
n=$("$tsqctl" -j show | jq --arg c "$cgpath" '[.[] | select(.cgroup == $c)] | length')
check "after stop, tsqctl show still has the service's policy" 'n == 1' n="$n"
stopped=$(at)
sleep 3

t_reset=$(at)
"$tsqctl" reset
rc=$?
check "tsqctl reset: nothing pinned" 'rc == 0 && pinned != 0' \
	rc=$rc pinned="$([ -e /sys/fs/bpf/tsq/link ]; echo $?)"
was_reset=$(at)
sleep 4
t_end=$(at)
kill "$timer"
wait "$sampler"
awk -v s="$start" '{ printf "%d %s\n", ($1 * 1e6 - s) / 1000, $2 }' "$TMP/flow.unix" >"$TMP/flow.bl"
systemctl stop $unit
log "iperf3: $(jq -r '.error // "ok"' /run/tsq-deb-bulk.json 2>/dev/null);" \
	"reload at $t_reload-$reloaded ms, stop at $t_stop-$stopped, reset at $t_reset-$was_reset," \
	"end at $t_end, $(wc -l <"$TMP/flow.bl") samples"

# Stock TSQ lets a 100 Mbit/s cubic flow keep a 64 KB TSO skb and more
# in the qdisc; limit 8k tso 8k keeps it near 15 KB (t_systemd).
before=$(peak flow 1000 "$t_reload")
after=$(peak flow $((reloaded + 1000)) "$t_stop")
kept=$(peak flow "$stopped" "$t_reset")
back=$(peak flow $((was_reset + 1000)) "$t_end")
log "qdisc backlog peaks: before $before B, after reload $after B, tsqd stopped $kept B, after reset $back B"
check "before the drop-in: a stock-sized queue" 'p >= 60000' p="$before"
check "after systemctl reload: the running flow is limited" 'p > 0 && p <= 24600' p="$after"
check "tsqd stopped: the policy stays in force" 'p > 0 && p <= 24600' p="$kept"
check "after tsqctl reset: stock again" 'p >= 60000' p="$back"
rm -f /etc/tsq/tsq.conf.d/$unit.conf
check_dmesg deb
finish
