#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series' selftests/bpf tests, run by the kernel tree's own test_progs
# (scripts/build-selftests.sh): tcp_tsq (the limit in force, the floor, a
# group's bound, how calls compose, a policy for running connections and
# the privilege it needs, the owner, which program may call which kfunc),
# bpf_tcp_ca (patch 1's kfunc_filter, and the congestion control tests it
# must leave passing), and tcpbpf_user, which the series must leave
# passing.
# bbr and dctcp are modules in this kernel, loaded first: their kfuncs
# then come from module BTF. Each subtest is a PASS or FAIL line here.
. "$(dirname "$0")/lib.sh"

# Built per kernel version (scripts/build-selftests.sh); run-tests says
# which kernel this is.
ST=$OUT/selftests
[ "${TSQ_KVER:-6.12}" = 6.12 ] || ST=$ST-$TSQ_KVER
# bpf_tcp_ca's cubic test reads the kernel's config, as libbpf looks
# for it: /boot/config-RELEASE (the guest's /boot is the host's).
kdir=$OUT/kernel
[ "${TSQ_KVER:-6.12}" = 6.12 ] || kdir=$kdir-$TSQ_KVER
mount -t tmpfs tsq-boot /boot && cp "$kdir/.config" "/boot/config-$(uname -r)" ||
	fail "the kernel's config at /boot"
for m in tcp_bbr tcp_dctcp; do
	modprobe "$m" || fail "modprobe $m"
done
check "bbr and dctcp are modules, loaded" 'b == 1 && d == 1' \
	b="$([ -d /sys/module/tcp_bbr/sections ] && echo 1 || echo 0)" \
	d="$([ -d /sys/module/tcp_dctcp/sections ] && echo 1 || echo 0)"

# test_progs finds its helpers and programs beside it.
cd "$ST" || fail "no $ST"
./test_progs -v -t tcp_tsq,tcpbpf_user,bpf_tcp_ca >"$TMP/test_progs.out" 2>&1
rc=$?
while IFS= read -r line; do
	case $line in
	"#"*/*:OK) pass "${line#\#}" ;;
	"#"*/*:FAIL) fail "${line#\#}" ;;
	"#"*:OK) pass "${line#\#}" ;;
	"#"*:FAIL) fail "${line#\#}" ;;
	"#"*:SKIP) echo "# ${line#\#}" ;;
	*:FAIL:*|*:printf:*|test_*:*|libbpf:*) echo "# $line" ;;
	esac
done <"$TMP/test_progs.out"
summary=$(grep '^Summary:' "$TMP/test_progs.out")
log "test_progs: exit $rc, $summary"
check "test_progs: the three tests, no failure" 'rc == 0 && s ~ /^Summary: 3\/[0-9]+ PASSED, [0-9]+ SKIPPED, 0(\/0)? FAILED$/' \
	rc="$rc" s="$summary"
[ "$rc" = 0 ] || tail -40 "$TMP/test_progs.out" | sed 's/^/# /'
check_dmesg selftests
finish
